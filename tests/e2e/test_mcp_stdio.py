"""``kenning mcp`` against a real server process, driven by the ``mcp`` SDK's stdio client:
the same tools as ``/mcp`` (names, schemas, annotations), calls and their errors forwarded
with Kenning's codes, one client's key unable to read another's memory through it; a wrong
key or an unreachable server is one line on stderr and exit code 4 or 3, never a hang; a server
lost midway makes each call an ``UNAVAILABLE`` tool error while the proxy lives on."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp.client import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.mcp_session import call, error_text, mcp_session
from tests.support.server_process import Server, create_key, start_server, stop_server

pytestmark = pytest.mark.e2e

KENNING = str(Path(sys.executable).with_name("kenning"))
SECONDS = 60


@asynccontextmanager
async def stdio_session(url: str, key: str) -> AsyncIterator[ClientSession]:
    """An initialized session to ``kenning mcp`` started for ``url`` with ``key``."""
    params = StdioServerParameters(
        command=KENNING, args=["mcp", "--url", url], env={"KENNING_API_KEY": key}
    )
    with tempfile.TemporaryFile("w+") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await asyncio.wait_for(session.initialize(), SECONDS)
            yield session


def _run(*args: str, key: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [KENNING, "mcp", *args],
        input="",
        capture_output=True,
        text=True,
        timeout=SECONDS,
        env={"PATH": "/usr/bin:/bin", "KENNING_API_KEY": key, "HF_HUB_OFFLINE": "1"},
    )


async def test_stdio_lists_the_same_tools_and_forwards_calls_and_errors(
    server: Server, migrated_settings: Settings
) -> None:
    a, b = (f"stdio-{side}-{uuid.uuid4().hex[:6]}" for side in "ab")
    key_a = await create_key(migrated_settings, Scope(a), Role.AGENT)
    key_b = await create_key(migrated_settings, Scope(b), Role.AGENT)
    async with mcp_session(server.url, key_a) as direct:
        over_http = (await direct.list_tools()).tools
        refused_over_http = await direct.call_tool("get_context", {"query": " "})
    async with stdio_session(server.url, key_a) as session:
        tools = (await session.list_tools()).tools
        assert [t.model_dump() for t in tools] == [t.model_dump() for t in over_http]
        stored = await call(
            session, "store_knowledge", subject="Editor", content="Uses helix",
            category="PREFERENCE", user_key="user:ada",
        )  # fmt: skip
        assert (stored["subject"], stored["userKey"]) == ("Editor", "user:ada"), stored
        context = await call(session, "get_context", query="which editor?", user_key="user:ada")
        assert "Uses helix" in context["text"]
        refused = await session.call_tool("get_context", {"query": " "})
        assert refused.is_error and "INVALID: query is empty" in error_text(refused), refused
        assert refused.model_dump() == refused_over_http.model_dump()
    async with stdio_session(server.url, key_b) as other:
        context = await call(other, "get_context", query="which editor?", user_key="user:ada")
        assert "helix" not in context["text"]


def test_a_wrong_key_is_one_line_and_exit_4(server: Server) -> None:
    done = _run("--url", server.url, key="kn_not-a-key")
    assert done.returncode == 4 and done.stdout == "", done
    assert done.stderr.strip().splitlines() == [
        f"error: the server at {server.url} refused the API key: the API key is not valid "
        "(unknown or revoked); give a valid one with --api-key or KENNING_API_KEY"
    ]


def test_an_unreachable_server_is_one_line_and_exit_3() -> None:
    done = _run("--url", "http://127.0.0.1:9", key="kn_any")
    assert done.returncode == 3 and done.stdout == "", done
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: cannot reach a Kenning server at http://127.0.0.1:9 ("), line


async def test_a_server_lost_midway_is_a_tool_error_and_the_proxy_lives_on(
    migrated_settings: Settings, tmp_path: Path
) -> None:
    process, running = start_server(migrated_settings, tmp_path / "server.log")
    key = await create_key(migrated_settings, Scope("stdio-lost"), Role.AGENT)
    try:
        async with stdio_session(running.url, key) as session:
            assert (await call(session, "get_rules"))["rules"] == []
            stop_server(process)
            # The call under way loses its session; the next finds no server to connect to.
            for cause in ("Connection closed", f"no MCP session at {running.url}/mcp"):
                lost = await asyncio.wait_for(session.call_tool("get_rules", {}), SECONDS)
                assert lost.is_error, lost
                assert error_text(lost) == (
                    f"UNAVAILABLE: the Kenning server did not answer ({cause}); try again"
                )
    finally:
        stop_server(process)


async def test_a_message_far_over_a_pipe_buffer_arrives_whole(
    server: Server, migrated_settings: Settings
) -> None:
    # 400 KB of text in one JSON-RPC line: far over a stream reader's default 64 KiB line.
    key = await create_key(migrated_settings, Scope("stdio-large"), Role.AGENT)
    content = " ".join(f"word{i}" for i in range(50_000))
    async with stdio_session(server.url, key) as session:
        done = await call(
            session, "ingest_document", source_urn="doc:large", kind="note", content=content
        )
        assert done["status"] == "INDEXED", done
        chunks = await call(session, "get_chunks", ids=done["chunkIds"])
    text = " ".join(chunk["content"] for chunk in chunks["chunks"])
    assert "word0 " in text and text.endswith("word49999"), text[-40:]


def test_a_request_from_a_file_is_answered_on_stdout(
    server: Server, migrated_settings: Settings, tmp_path: Path
) -> None:
    # stdin a regular file (no pipe to poll): the SDK's own transport reads it, and the
    # handshake is answered before the end of the file closes the session.
    client = {"name": "file", "version": "1"}
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    requests = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}]
    given = tmp_path / "requests.jsonl"
    given.write_text("".join(json.dumps(r) + "\n" for r in requests))
    key = asyncio.run(create_key(migrated_settings, Scope("stdio-file"), Role.AGENT))
    env = {"PATH": "/usr/bin:/bin", "KENNING_API_KEY": key, "HF_HUB_OFFLINE": "1"}
    with given.open() as stdin:
        done = subprocess.run(
            [KENNING, "mcp", "--url", server.url],
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=SECONDS,
            env=env,
        )
    answers = {a["id"]: a for a in map(json.loads, done.stdout.splitlines())}
    assert answers[1]["result"]["serverInfo"]["name"] == "kenning", done
