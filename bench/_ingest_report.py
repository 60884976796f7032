"""The figures of the ingest benchmark: per-phase rates, the printed table and the JSON file."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench._ingest_server import Sent
from bench._timing import PhaseTime, percentile
from kenning.settings import EmbedderKind

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "ingest.json"


@dataclass(frozen=True, slots=True)
class Rates:
    """Throughput and latency of one ingest phase."""

    docs: int
    chunks: int
    edges: int
    docs_per_s: float
    chunks_per_s: float
    edges_per_s: float
    latency_p50_ms: float
    latency_p95_ms: float
    time: PhaseTime


def rates(sent: Sequence[Sent], time_: PhaseTime) -> Rates:
    """Counts summed from the mutation results, divided by the phase's wall time."""
    chunks, edges = sum(s.chunks for s in sent), sum(s.edges for s in sent)
    latencies = [s.seconds * 1000 for s in sent]
    wall = time_.wall_s
    return Rates(
        len(sent), chunks, edges, len(sent) / wall, chunks / wall, edges / wall,
        percentile(latencies, 50), percentile(latencies, 95), time_,
    )  # fmt: skip


def _plain(value: object) -> object:
    if isinstance(value, Rates | PhaseTime):
        return _plain(asdict(value))
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, float):
        return round(value, 4)
    return value


def _cpu_ms_per_doc(r: dict[str, Any]) -> float:
    """CPU of the side that stores (the server, or this process for the baseline) plus
    PostgreSQL's, per document: steadier than wall time when other work shares the cores."""
    t = r["time"]
    writer = t["server_cpu_s"] if "latency_p50_ms" in r else t["client_cpu_s"]
    return float(1000 * (writer + t["postgres_cpu_s"]) / r["docs"])


def _row(name: str, r: dict[str, Any]) -> str:
    t = r["time"]
    p50, p95 = r.get("latency_p50_ms"), r.get("latency_p95_ms")
    lat = f"{p50:7.1f} {p95:7.1f}" if p50 is not None else f"{'-':>7} {'-':>7}"
    cpu = [t["client_cpu_s"], t["server_cpu_s"], t["postgres_cpu_s"]]
    other = t["machine_cpu_s"] - sum(cpu)  # processes outside this benchmark
    return (
        f"{name:<38}{r['docs']:>6}{r['chunks']:>7}{r['edges']:>7}{t['wall_s']:>8.2f}"
        f"{r['docs_per_s']:>8.1f}{r['chunks_per_s']:>9.1f}{r['edges_per_s']:>9.1f} {lat}  "
        + "".join(f"{v:>7.1f}" for v in [*cpu, other, _cpu_ms_per_doc(r)])
    )


def summary(results: dict[str, Any], args: argparse.Namespace) -> str:
    """The human-readable table of one invocation."""
    head = (
        f"{'run':<38}{'docs':>6}{'chunks':>7}{'edges':>7}{'wall s':>8}{'docs/s':>8}"
        f"{'chunks/s':>9}{'edges/s':>9} {'p50 ms':>7} {'p95 ms':>7}  "
        + "".join(f"{h:>7}" for h in ("client", "server", "pg", "other", "ms/doc"))
    )
    title = (
        f"concurrency {args.concurrency}, {os.cpu_count()} cores, load average before "
        f"{args.load_before[0]:.2f}; edges = edge upserts as the mutations report them; "
        "then CPU seconds of this client, the server process, PostgreSQL (this database's "
        "backends and background writers) and other processes; ms/doc: CPU of the storing "
        "side (server or baseline client) + PostgreSQL per document"
    )
    lines = [title, head]
    notes = []
    for kind, res in results.items():
        lines.append(_row(f"kenning, {res['embedder']} embedder", res["kenning"]))
        for name in ("per_document", "bulk"):
            if f"baseline_{name}" in res:
                b = res[f"baseline_{name}"]
                size = b["docs_per_transaction"]
                label = (
                    f"baseline asyncpg, {size} doc/tx, {args.concurrency if size == 1 else 1} conn"
                )
                lines.append(_row(label, b))
                same = "identical" if b["stored"] == res["kenning_stored"] else "DIFFERENT"
                ratio = res["kenning"]["docs_per_s"] / b["docs_per_s"]
                cost = _cpu_ms_per_doc(res["kenning"]) / _cpu_ms_per_doc(b)
                notes.append(f"{kind}: kenning/baseline ({name.replace('_', ' ')}) docs/s = "
                             f"{ratio:.2f}, CPU per document {cost:.1f}x; stored rows "
                             f"{same}")  # fmt: skip
        e, s, r = res["embedder_during_ingest"], res["kenning_stored"], res["reingest"]
        notes.append(
            f"{kind}: stored {s['chunks']} chunks, {s['vertices']} vertices, {s['edges']} edges, "
            f"{s['sources']} sources, {s['mentions']} mentions; embedder {e['calls']} calls for "
            f"{e['texts']} texts"
        )
        notes.append(
            f"{kind}: re-ingest of {r['documents']} unchanged documents: {r['statuses']}, "
            f"{r['embedder_calls']} embedder calls, stored rows unchanged: "
            f"{r['stored_rows_unchanged']}; one at a time {r['sequential_ms_mean']:.2f} ms mean "
            f"(p50 {r['sequential_ms_p50']:.2f}, p95 {r['sequential_ms_p95']:.2f}), "
            f"{args.concurrency} at a time {r['concurrent_ms_per_doc']:.2f} ms per document"
        )
        if kind == EmbedderKind.LOCAL.value:
            notes.extend(_local_notes(res))
    return "\n".join([*lines, *notes])


def _local_notes(res: dict[str, Any]) -> list[str]:
    """Issue 15 goal 2: chunks/s through ingest and through the queue against a plain script."""
    alone, queued = res["model_alone"], res.get("queue")
    plain = alone["chunks_per_s_batches_of_32"]
    sizes = ", ".join(f"{v:.1f} {k}" for k, v in alone.items() if k.startswith("chunks_per_s"))
    notes = [
        f"local: {res['documents']} documents (--docs changes it); plain sentence-transformers "
        f"script on the same {alone['chunks']} chunks, this process afterwards, "
        f"{alone['torch_threads']} torch threads: {sizes}",
        f"local: embedding through ingest {res['kenning']['chunks_per_s']:.1f} chunks/s = "
        f"{res['kenning']['chunks_per_s'] / plain:.2f}x the plain script at batch 32",
    ]
    if queued:
        notes.append(
            f"local: through the queue ({queued['workers']}, {queued['bulk_slots']} bulk "
            f"slots) {queued['chunks']} chunks of {queued['jobs']} jobs in "
            f"{queued['wall_s']:.1f} s = {queued['chunks_per_s']:.1f} chunks/s = "
            f"{queued['chunks_per_s'] / plain:.2f}x the plain script"
        )
    return notes


def report(results: dict[str, Any], args: argparse.Namespace, wall: float) -> None:
    """Print the summary and merge these runs into ``RESULTS`` (one entry per embedder)."""
    plain = {kind: _plain(result) for kind, result in results.items()}
    print(summary(plain, args))
    print(f"wall time of the whole command: {wall:.1f} s")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    saved = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    command = " ".join([".venv/bin/python -m bench.ingest", *sys.argv[1:]])
    finished = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    for kind, result in plain.items():
        assert isinstance(result, dict)
        saved[kind] = {"command": command, "finished_at": finished, "cores": os.cpu_count(),
                       "concurrency": args.concurrency, "load_average_before": args.load_before,
                       "command_wall_s": round(wall, 1), **result}  # fmt: skip
    RESULTS.write_text(json.dumps(saved, indent=2, sort_keys=True) + "\n")
    print(f"written to {RESULTS.relative_to(ROOT)}")
