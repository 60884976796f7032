"""Memory truth benchmark: does ``agentContext`` state what holds now, and only that, once
facts change? And what do time on facts cost the writes and reads that carry it?

Run from the repository root::

    .venv/bin/python -m bench.memory_truth [--entities 150] [--skip-read]

**Truth** (its own database, ``kenning_bench_memory_truth``, rebuilt every run): a synthetic
organisation of ``--entities`` services, each with six relations declared ONE (database,
owner team, region, queue, cache, runtime). Every fact is written as a note with a
relationship line (``service:s007|database|database:postgres``) through the GraphQL
``ingest`` mutation in process, with the ``observedAt`` its source gives. Half the facts
change once or twice; a tenth of the changed ones arrive out of order (the older note is
written after the newer: a backfill). Then for every service ``agentContext`` (entity: the
service, no history) is read and each fact checked: the current value is stated (the edge
line ``service:s007 database database:postgres``), and no retired value is stated anywhere
as current (no edge line, no piece whose text holds its relationship line). For every changed
fact ``agentContext(asOf:)`` at a time before its first change must state the old value.
Goals (issue 37): current >= 99 %, retired-as-current 0 %, asOf-old 100 %.

**Write cost**: each change note is written twice, interleaved: into the client above (the
note ends the older edge) and into a control client holding the same first notes and the
same ONE declarations, where the note restates the value that holds (a later observedAt,
the same target: nothing ends). Both pay for the timeline; only one ends an edge. Goal: p50
of ending <= 1.2x p50 of not ending.

**Read cost** (``--skip-read`` leaves it out): on the read benchmark's corpus (``bench.read``'s
database, built when missing or stale), the same 2-hop ``neighbors`` and the same
``agentContext`` (user and two entities) in process, three ways interleaved: with no validity
filter (what reads cost before time on facts: the baseline), with the filter (now), and
``asOf`` a past time. Goals: now <= 1.1x the baseline's p50, asOf <= 1.5x.

Results go to stdout and ``bench/results/memory_truth.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis
import uvloop

from bench._memory_truth_corpus import RELATIONS, Fact, Note, facts
from bench._own_database import own_settings, recreate_and_migrate
from bench._timing import percentile
from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.memory.context_lines import node_text
from kenning.graphql.context import Context
from kenning.runtime import Runtime
from kenning.schema.build import build_schema
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.factory import create_embedder

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "memory_truth.json"
DATABASE = "kenning_bench_memory_truth"
REDIS_DB = "10"
TRUTH, CONTROL = Scope("truth"), Scope("control")
GOALS = {"current": 99.0, "retired": 0.0, "as_of": 100.0, "ending_ratio": 1.2,
         "now_ratio": 1.1, "as_of_ratio": 1.5}  # fmt: skip

INGEST = """mutation I($urn: String!, $content: String!, $at: DateTime!) {
  ingest(input: {sourceUrn: $urn, kind: "note", content: $content, observedAt: $at}) {
    __typename ... on Error { code message } } }"""
DEFINE = """mutation D($type: String!, $cardinality: Cardinality!) {
  defineRelation(edgeType: $type, cardinality: $cardinality) { __typename } }"""
CONTEXT = """query C($key: String!, $asOf: DateTime) {
  agentContext(query: "service configuration", entityKeys: [$key], limit: 10, asOf: $asOf) {
    __typename ... on AgentContext { sections { infoType lines { text } } } } }"""


class Api:
    """GraphQL in process, as one principal."""

    def __init__(self, runtime: Runtime, scope: Scope) -> None:
        self._schema = build_schema()
        self._context = Context(runtime=runtime, principal=Principal(
            key_id=f"bench-{scope.client_id}", scope=scope, role=Role.AGENT))  # fmt: skip

    async def __call__(self, query: str, **variables: Any) -> dict[str, Any]:
        result = await self._schema.execute(
            query, variable_values=variables, context_value=self._context
        )
        if result.errors or result.data is None:
            raise RuntimeError(result.errors)
        return result.data


async def _write(api: Api, note: Note) -> float:
    started = time.perf_counter()
    data = await api(INGEST, urn=note.urn, content=note.content, at=note.at.isoformat())
    elapsed = (time.perf_counter() - started) * 1000
    if data["ingest"]["__typename"] != "IngestSuccess":
        raise RuntimeError(data)
    return elapsed


def _stated(sections: list[dict[str, Any]]) -> tuple[set[str], str]:
    """The edge lines and all piece text outside ``history``: what is stated as current."""
    lines = [line["text"] for s in sections if s["infoType"] != "history" for line in s["lines"]]
    # A relationship line may end with its target's label: what is stated is before it.
    return {line.split(" (")[0] for line in lines}, "\n".join(lines)


def _edge_line(service: str, relation: str, value: str) -> str:
    """How agentContext states ``service relation relation:value`` (no label)."""
    return f"{node_text(service)} {relation.upper()} → {node_text(f'{relation}:{value}')}"


async def truth(runtime: Runtime, entities: int) -> dict[str, Any]:
    """Write every fact, then check what agentContext states now and asOf."""
    truth_api, control_api = Api(runtime, TRUTH), Api(runtime, CONTROL)
    for relation in RELATIONS:
        await truth_api(DEFINE, type=relation, cardinality="ONE")
        await control_api(DEFINE, type=relation, cardinality="ONE")
    found = facts(entities)
    ending: list[float] = []
    plain: list[float] = []
    for fact in found:  # first notes: nothing to end yet in either client
        await _write(truth_api, fact.order[0])
        await _write(control_api, fact.order[0])
    for fact in found:
        for note in fact.order[1:]:
            ending.append(await _write(truth_api, note))
            held = fact.order[0]  # what the control client holds: restated, later
            same = Note(held.service, held.relation, held.value, note.at, note.version)
            plain.append(await _write(control_api, same))
    checks = {"current": [0, 0], "retired": [0, 0], "as_of": [0, 0]}
    by_service: dict[str, list[Fact]] = {}
    for fact in found:
        by_service.setdefault(fact.current.service, []).append(fact)
    for service, its in sorted(by_service.items()):
        data = await truth_api(CONTEXT, key=service, asOf=None)
        edges, text = _stated(data["agentContext"]["sections"])
        for fact in its:
            now = fact.current
            checks["current"][0] += _edge_line(service, now.relation, now.value) in edges
            checks["current"][1] += 1
            for old in fact.notes[:-1]:
                said = _edge_line(service, old.relation, old.value)
                checks["retired"][0] += said in edges or old.line in text
                checks["retired"][1] += 1
            if len(fact.notes) > 1:
                first, change = fact.notes[0], fact.notes[1]
                before = first.at + (change.at - first.at) / 2
                then = await truth_api(CONTEXT, key=service, asOf=before.isoformat())
                edges_then, _ = _stated(then["agentContext"]["sections"])
                checks["as_of"][0] += _edge_line(service, first.relation, first.value) in edges_then
                checks["as_of"][1] += 1
    return {
        "facts": len(found),
        "changed": sum(len(f.notes) > 1 for f in found),
        "backfilled": sum(f.order != f.notes for f in found),
        "percent": {k: round(100 * hit / total, 2) if total else None
                    for k, (hit, total) in checks.items()},
        "counts": {k: {"hits": hit, "of": total} for k, (hit, total) in checks.items()},
        "ingest_ms": {"ending": _summary(ending), "not_ending": _summary(plain)},
    }  # fmt: skip


def _summary(values: list[float]) -> dict[str, float]:
    return {f"p{q}_ms": round(percentile(values, q), 3) for q in (50, 95)} | {"n": len(values)}


Timed = Callable[[], Awaitable[object]]


async def _interleaved(paths: dict[str, Timed], rounds: int, warm_up: int) -> dict[str, Any]:
    for _ in range(warm_up):
        for call in paths.values():
            await call()
    times: dict[str, list[float]] = {name: [] for name in paths}
    for _ in range(rounds):
        for name, call in paths.items():
            started = time.perf_counter()
            await call()
            times[name].append((time.perf_counter() - started) * 1000)
    return {name: _summary(values) for name, values in times.items()}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--entities", type=int, default=150)
    parser.add_argument("--queries", type=int, default=200, help="read cost, per path")
    parser.add_argument("--skip-read", action="store_true", help="no read-cost part")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    settings = own_settings(DATABASE, REDIS_DB)
    recreate_and_migrate(settings, DATABASE)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        report = runner.run(_run(args, settings))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(render(report))


async def _run(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    pool = await create_pool(settings)
    redis = aioredis.from_url(settings.redis_url)
    runtime = Runtime(settings=settings, pool=pool, redis=redis,
                      embedder=create_embedder(settings))  # fmt: skip
    try:
        print(f"writing {args.entities} services x {len(RELATIONS)} facts ...", file=sys.stderr)
        report: dict[str, Any] = {"cpus": os.cpu_count(), "goals": GOALS,
                                  "truth": await truth(runtime, args.entities)}  # fmt: skip
    finally:
        await redis.aclose()
        await pool.close()
    if not args.skip_read:
        from bench._memory_truth_reads import read_cost

        report["read"] = await read_cost(args.queries, _interleaved)
    return report


def render(report: dict[str, Any]) -> str:
    """The figures and their goals."""
    t = report["truth"]
    pct, ms = t["percent"], t["ingest_ms"]
    ratio = ms["ending"]["p50_ms"] / ms["not_ending"]["p50_ms"]
    lines = [
        f"memory truth: {t['facts']} facts, {t['changed']} changed, {t['backfilled']} backfilled",
        f"  current value stated       {pct['current']:6.2f} %  (goal >= {GOALS['current']} %)",
        f"  retired value as current   {pct['retired']:6.2f} %  (goal {GOALS['retired']} %)",
        f"  asOf before a change: old  {pct['as_of']:6.2f} %  (goal {GOALS['as_of']} %)",
        f"  ingest p50 ending an edge {ms['ending']['p50_ms']:.2f} ms vs not "
        f"{ms['not_ending']['p50_ms']:.2f} ms: x{ratio:.2f} (goal <= {GOALS['ending_ratio']})",
    ]
    for op, paths in report.get("read", {}).get("ops", {}).items():
        base = paths["unfiltered"]["p50_ms"]
        lines.append(
            f"  {op:13} p50 unfiltered {base:.2f} ms, now {paths['now']['p50_ms']:.2f} ms "
            f"(x{paths['now']['p50_ms'] / base:.2f}, goal <= {GOALS['now_ratio']}), asOf "
            f"{paths['as_of']['p50_ms']:.2f} ms (x{paths['as_of']['p50_ms'] / base:.2f}, "
            f"goal <= {GOALS['as_of_ratio']})"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
