"""The ``make bench`` figures of what agents use: their memory (user and agent context,
memory truth, erasure, node search) and the faces they reach it by (MCP, the Python
client). One function per benchmark, as in ``bench._all_figures``, which lists them all."""

from __future__ import annotations

from typing import Any

from bench._all_table import Figure, Goal


def user_context(data: dict[str, Any]) -> list[Figure]:
    """``userContext`` p50 through GraphQL against its raw SQL."""
    lat = data["latency"]
    return [Figure(f"userContext p50, {data['items']:,} items", "ms", lat["graphql"]["p50_ms"],
                   lat["sql"]["p50_ms"], "SQL", Goal("figure", most=30))]  # fmt: skip


def agent_context(data: dict[str, Any]) -> list[Figure]:
    """``agentContext`` p50 through GraphQL against the same use case in process, and at
    depth 2 against agentContext before the three-layer retrieve (when the run measured it)."""
    lat = data["latency"]
    found = [
        Figure(
            "agentContext p50, every layer",
            "ms",
            lat["graphql"]["p50_ms"],
            lat["direct"]["p50_ms"],
            "in process",
            Goal("figure", most=60),
        )
    ]
    if "baseline" in lat:
        found.append(
            Figure(
                f"agentContext p50, three layers at depth {data.get('depth', 2)}",
                "ms",
                lat["graphql"]["p50_ms"],
                lat["baseline"]["p50_ms"],
                f"before ({data['baseline_ref']})",
                Goal("ratio", most=data.get("goal_baseline_ratio", 1.3)),
            )
        )
    return found


def memory_truth(data: dict[str, Any]) -> list[Figure]:
    """What agentContext states once facts change (issue 37's goals), what ending an edge
    costs an ingest, and what the validity filter costs reads (against no filter)."""
    truth = data["truth"]
    pct, ms = truth["percent"], truth["ingest_ms"]
    facts = f"{truth['changed']} of {truth['facts']} facts changed"
    found = [
        Figure(f"agentContext states the current value, {facts}", "%", pct["current"],
               goal=Goal("figure", least=99)),
        Figure("agentContext states a retired value as current", "%", pct["retired"],
               goal=Goal("figure", most=0)),
        Figure("agentContext asOf before a change states the old value", "%", pct["as_of"],
               goal=Goal("figure", least=100)),
        Figure("ingest p50 that ends an edge", "ms", ms["ending"]["p50_ms"],
               ms["not_ending"]["p50_ms"], "ends none", Goal("ratio", most=1.2)),
    ]  # fmt: skip
    for op, paths in data.get("read", {}).get("ops", {}).items():
        base = paths["unfiltered"]["p50_ms"]
        found += [
            Figure(f"{op} p50, edges valid now", "ms", paths["now"]["p50_ms"], base,
                   "no validity filter", Goal("ratio", most=1.1)),
            Figure(f"{op} p50, asOf a past time", "ms", paths["as_of"]["p50_ms"], base,
                   "no validity filter", Goal("ratio", most=1.5)),
        ]  # fmt: skip
    return found


def erasure(data: dict[str, Any]) -> list[Figure]:
    """Erasing a person named in 1,000 chunks (REDACT, re-embedded), per embedder, against
    the same change by hand: embed the redacted texts, one plain SQL UPDATE (issue 37)."""
    return [
        Figure(
            f"eraseSubject REDACT, {run['chunks_named']} chunks, {kind} embedder",
            "s",
            run["erasure_s"],
            run["baseline_s"],
            "embed + plain SQL UPDATE",
            Goal("figure", most=data["goal_s"]),
        )
        for kind, run in sorted(data["runs"].items())
    ]


def find_nodes(data: dict[str, Any]) -> list[Figure]:
    """``findNodes`` p50 through GraphQL against its raw SQL, per way of typing a key."""
    return [Figure(f"findNodes p50, {form}", "ms", f["latency"]["graphql"]["p50_ms"],
                   f["latency"]["sql"]["p50_ms"], "SQL")
            for form, f in data["forms"].items()]  # fmt: skip


def mcp(data: dict[str, Any]) -> list[Figure]:
    """A search through MCP over HTTP against GraphQL, what ``kenning mcp`` (stdio) adds, and
    an agent context and an ingest through MCP over HTTP against GraphQL."""
    p50 = {path: value["p50_ms"] for path, value in data["latency"].items()}
    return [
        Figure("search p50, MCP tool over HTTP", "ms", p50["mcp_http"], p50["graphql"], "GraphQL",
               Goal("ratio", most=1.1)),
        Figure("search p50 added by the stdio proxy", "ms", p50["mcp_stdio"] - p50["mcp_http"],
               goal=Goal("figure", most=2)),
        *(_mcp_row(data, name, label) for name, label in _MCP_ROWS if name in data),
    ]  # fmt: skip


_MCP_ROWS = (
    ("agent_context", "agentContext p50, MCP get_context over HTTP"),
    ("ingest", "ingest p50, MCP ingest_document over HTTP"),
)


def _mcp_row(data: dict[str, Any], name: str, label: str) -> Figure:
    p50 = {path: value["p50_ms"] for path, value in data[name]["latency"].items()}
    return Figure(label, "ms", p50["mcp_http"], p50["graphql"], "GraphQL", Goal("ratio", most=1.1))


def python_client(data: dict[str, Any]) -> list[Figure]:
    """A search through kenning-client, async and sync, against a raw httpx POST of it."""
    p50 = {path: value["p50_ms"] for path, value in data["latency"].items()}
    return [
        Figure(f"search p50, Python client ({kind})", "ms", p50[f"client_{kind}"],
               p50[f"httpx_{kind}"], "raw httpx POST", Goal("ratio", most=1.05))
        for kind in ("async", "sync")
    ]  # fmt: skip
