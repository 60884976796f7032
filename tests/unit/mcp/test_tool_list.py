"""The MCP server's ``tools/list``: every tool carries the four annotation hints a client
shows its user (read-only, destructive, idempotent, open-world) and an output schema, and
the hints say what issue 38 asks of the tools that remove or reach outside."""

from __future__ import annotations

from mcp.types import Tool

from kenning.mcp.server import TOOLS, build_server


async def _listed() -> dict[str, Tool]:
    return {tool.name: tool for tool in await build_server().list_tools()}


async def test_every_tool_is_listed_with_the_four_hints_and_an_output_schema() -> None:
    listed = await _listed()
    assert set(listed) == {spec.name for spec in TOOLS}
    for name, tool in listed.items():
        hints = tool.annotations
        assert hints is not None, name
        assert None not in (
            hints.read_only_hint,
            hints.destructive_hint,
            hints.idempotent_hint,
            hints.open_world_hint,
        ), name
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", name


async def test_removals_are_destructive_reads_idempotent_and_repositories_open_world() -> None:
    listed = await _listed()

    def hints(name: str) -> tuple[bool | None, ...]:
        found = listed[name].annotations
        assert found is not None
        return (
            found.read_only_hint,
            found.destructive_hint,
            found.idempotent_hint,
            found.open_world_hint,
        )

    for removal in ("purge_source", "purge_crawl", "purge_repository"):
        assert hints(removal) == (False, True, True, False), removal
    assert hints("delete_rule") == (False, True, False, False)
    assert hints("ingest_repository") == (False, False, True, True)
    for read in (
        "job_status",
        "list_jobs",
        "get_chunks",
        "evidence_pack",
        "find_path",
        "user_context",
        "list_sources",
    ):
        assert hints(read) == (True, False, True, False), read
    for write in ("save_procedure", "record_procedure_run", "store_rule"):
        assert hints(write) == (False, False, False, False), write


async def test_every_read_is_idempotent_and_the_web_is_open_world() -> None:
    listed = await _listed()
    for name, tool in listed.items():
        hints = tool.annotations
        assert hints is not None, name
        if hints.read_only_hint:
            assert (hints.destructive_hint, hints.idempotent_hint) == (False, True), name
    crawl = listed["crawl"].annotations
    assert crawl is not None and (crawl.open_world_hint, crawl.idempotent_hint) == (True, True)
    for replaces in ("ingest_document", "record_task_outcome"):
        found = listed[replaces].annotations
        assert found is not None and found.idempotent_hint is True, replaces
