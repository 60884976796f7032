"""Which figures of each benchmark's results JSON go into the ``make bench`` table.

One function per benchmark, reading the JSON that benchmark writes (see its module) and
returning ``Figure`` values; the goals are issue 15's where one applies (``issue=n``),
else the benchmark's own. The read and scale benchmarks' readers have modules of their
own (``bench._read_figures``, ``bench._scale_figures``), and so do the agents' faces and memory
(``bench._agent_figures``). ``router_results`` reads the
router benchmark's printed lines, as it writes no JSON.
"""

from __future__ import annotations

import re
from typing import Any

from bench._agent_figures import (
    agent_context,
    erasure,
    find_nodes,
    mcp,
    memory_truth,
    python_client,
    user_context,
)
from bench._all_table import Extract, Figure, Goal
from bench._read_figures import read
from bench._scale_figures import scale


def ingest(data: dict[str, Any]) -> list[Figure]:
    """Per embedder: docs/s against raw asyncpg, re-ingest cost, model throughput (local)."""
    found = []
    for kind, run in sorted(data.items()):
        kenning = run["kenning"]
        if "baseline_per_document" in run:  # the hash run: the model costs nothing
            found.append(Figure(f"ingest docs/s, {kind} embedder", "docs/s", kenning["docs_per_s"],
                                run["baseline_per_document"]["docs_per_s"], "raw asyncpg",
                                Goal("ratio", least=0.5, issue=6)))  # fmt: skip
        found.append(Figure(f"unchanged re-ingest, {kind} embedder", "ms/doc",
                            run["reingest"]["sequential_ms_mean"],
                            goal=Goal("figure", most=5, issue=6)))  # fmt: skip
        alone = run.get("model_alone")
        if alone:
            batched = next(v for k, v in alone.items() if k.startswith("chunks_per_s_batches_of"))
            found.append(Figure(f"embedding through ingest, {kind} model", "chunks/s",
                                kenning["chunks_per_s"], batched, "plain script",
                                Goal("ratio", least=0.8, issue=2)))  # fmt: skip
            if "queue" in run:
                found.append(Figure(f"embedding through the queue, {kind} model", "chunks/s",
                                    run["queue"]["chunks_per_s"], batched, "plain script",
                                    Goal("ratio", least=0.8, issue=2)))  # fmt: skip
    return found


def queue(data: dict[str, Any]) -> list[Figure]:
    """Throughput, lane isolation and fan-out, each section only when this run measured it."""
    found = []
    if "throughput" in data:
        by_workers = {t["workers"]: t["jobs_per_s"] for t in data["throughput"]}
        found.append(Figure("queue throughput, 2 workers", "jobs/s", by_workers[2],
                            by_workers[1], "1 worker"))  # fmt: skip
    if "lane_isolation" in data:
        lanes = data["lane_isolation"]
        label = f"priority lane p95, {lanes['bulk_jobs']:,} bulk queued"
        found.append(Figure(label, "ms", lanes["loaded"]["p95_ms"], lanes["idle"]["p95_ms"],
                            "idle", Goal("ratio", most=1.5, issue=6)))  # fmt: skip
    if "fan_out" in data:
        found += _fan_out(data["fan_out"])
    return found


def interactive_search(data: dict[str, Any]) -> list[Figure]:
    """Search p95 while a large document and bulk jobs are embedded, against idle, per mode."""
    load = f"{data['bulk_jobs_queued']} bulk jobs + {data['document_bytes'] / 1e6:.2g} MB ingest"
    return [Figure(f"{mode} search p95 during {load}", "ms", data["loaded"][mode]["p95_ms"],
                   data["idle"][mode]["p95_ms"], "idle", Goal("ratio", most=3, issue=1))
            for mode in ("VECTOR", "HYBRID")]  # fmt: skip


def queue_snapshot(data: dict[str, Any]) -> list[Figure]:
    """``queueStatus``'s snapshot over many historical jobs: maintained counts vs a full count."""
    return [Figure(f"queue snapshot p50, {data['history']:,} jobs, {name} reader", "ms",
                   r["snapshot"]["p50_ms"], r["old_snapshot"]["p50_ms"], "count over every job",
                   Goal("figure", most=20, issue=6))
            for name, r in data["readers"].items()]  # fmt: skip


def _fan_out(fan: dict[str, Any]) -> list[Figure]:
    n = f"{fan['subscribers']:,} subscribers"
    return [
        Figure(f"queueStatus change-to-delivery p95, {n}", "ms", fan["p95_ms"],
               goal=Goal("figure", most=250, issue=4)),
        Figure(f"queueStatus deliveries, {n}", "", fan["deliveries"],
               fan["expected_deliveries"], "expected", Goal("ratio", least=1.0, issue=4)),
    ]  # fmt: skip


_ROUTER_LINE = re.compile(r"(/api/\w+)\s+direct p50\s+([\d.]+).*?router p50\s+([\d.]+)")
_FIRST_BYTE = re.compile(r"load time (\d+) s.*\(median (\d+) ms\)")


def router_results(stdout: str) -> dict[str, Any] | None:
    """The router benchmark's figures from its printed lines; None if it printed none."""
    paths = {m[1]: {"direct_p50_ms": float(m[2]), "router_p50_ms": float(m[3])}
             for m in _ROUTER_LINE.finditer(stdout)}  # fmt: skip
    first = {f"load_{m[1]}s": float(m[2]) for m in _FIRST_BYTE.finditer(stdout)}
    if not paths and not first:
        return None
    return {"overhead": paths, "p0_first_byte_median_ms": first}


def router(data: dict[str, Any]) -> list[Figure]:
    """Added latency per request, and P0 time to first byte while the GPU is saturated."""
    found = [Figure(f"router {path} p50", "ms", p["router_p50_ms"], p["direct_p50_ms"], "direct")
             for path, p in data["overhead"].items()]  # fmt: skip
    found += [Figure(f"P0 first byte under preemption, model {load.replace('_', ' ')}", "ms", ms)
              for load, ms in data["p0_first_byte_median_ms"].items()]  # fmt: skip
    return found


_RELEVANCE_GOALS = {"KEYWORD": 0.66, "HYBRID": 0.72}


def relevance(data: dict[str, Any]) -> list[Figure]:
    """SciFact nDCG@10 per mode beside BM25's published figure (dense MiniLM for VECTOR)."""
    refs = data["references_ndcg_at_10"]
    bm25 = next(v for k, v in refs.items() if k.startswith("BM25"))
    dense = next(v for k, v in refs.items() if "dense" in k)
    found = []
    for result in data["results"]:
        mode = result["mode"]
        # The quick subset's figures are not comparable with the full set's goals.
        least = None if data.get("quick") else _RELEVANCE_GOALS.get(mode)
        goal = Goal("figure", least=least, issue=3) if least else None
        baseline, name = (dense, "MiniLM dense") if mode == "VECTOR" else (bm25, "BM25")
        found.append(Figure(f"SciFact nDCG@10 {mode}", "", result["ndcg_at_10"], baseline,
                            name, goal))  # fmt: skip
    return found


def loop_health(data: dict[str, Any]) -> list[Figure]:
    """``/healthz`` p99 during concurrent large ingests against the idle server."""
    size = f"{data['document_chars'] / 1e6:g} MB"
    label = f"/healthz p99 during {data['documents_per_round']} concurrent {size} ingests"
    return [Figure(label, "ms", data["during_ingests"]["p99_ms"], data["idle"]["p99_ms"],
                   "idle", Goal("figure", most=data.get("goal_p99_ms", 50.0)))]  # fmt: skip


def extraction(data: dict[str, Any]) -> list[Figure]:
    """Kenning's own cost per chunk, against a plain script, and re-ingest model calls."""
    found = []
    for shape, fig in data.get("overhead", {}).items():
        cold, plain = fig["cold"], fig["baseline_plain_script"]
        found += [
            Figure(f"extraction overhead, {shape}", "ms/chunk", cold["overhead_ms_per_chunk"],
                   goal=Goal("figure", most=5)),
            Figure(f"extraction stage, {shape}", "ms/chunk", cold["stage_ms_per_chunk"],
                   plain["ms_per_call"], "plain script"),
            Figure(f"model calls of unchanged re-ingest, {shape}", "calls",
                   fig["reingest_unchanged"]["model_calls"], goal=Goal("figure", most=0)),
        ]  # fmt: skip
    return found


def files(data: dict[str, Any]) -> list[Figure]:
    """File extraction: text PDF pages/s and OCR pages/s against the bare libraries."""
    pdf, ocr, folder = data["text_pdf"], data["ocr"], data["mixed_folder"]
    return [
        Figure("text PDF extraction", "pages/s", pdf["kenning_pages_per_s"],
               pdf["pdfium_text_alone_pages_per_s"], "pypdfium2 alone"),
        Figure("OCR of scanned pages", "pages/s", ocr["kenning_ocr_pages_per_s"],
               ocr["tesseract_cli_alone_pages_per_s"], "tesseract alone"),
        Figure(f"mixed folder of {folder['kinds']} kinds", "files/s",
               folder["kenning_files_per_s"]),
    ]  # fmt: skip


def crawl(data: dict[str, Any]) -> list[Figure]:
    """Crawling a loopback site against plain GETs of the same pages."""
    return [Figure(f"crawl of {data['pages']} loopback pages", "pages/s",
                   data["crawl_pages_per_s"], data["baseline_get_pages_per_s"],
                   "plain httpx GETs")]  # fmt: skip


def code(data: dict[str, Any]) -> list[Figure]:
    """A repository's code structure into the graph, against tree-sitter parsing alone."""
    return [
        Figure(f"code ingest end to end, {data['files']} files", "files/s",
               data["end_to_end"]["files_per_second"], data["parse_only"]["files_per_second"],
               "tree-sitter parse alone", Goal("figure", least=data["goal_files_per_second"])),
        Figure("unchanged code re-ingest", "files/s",
               data["reingest_unchanged"]["files_per_second"]),
    ]  # fmt: skip


def code_local(data: dict[str, Any]) -> list[Figure]:
    """A repository ingest with the default local model, against that model alone embedding
    the same texts."""
    alone = data["embedding_alone"]
    return [
        Figure(
            f"repository ingest, local model, {data['files']} files",
            "s",
            data["end_to_end"]["seconds"],
            alone["seconds"],
            f"the model alone, {alone['texts']} texts",
            Goal("figure", most=data["goal_seconds"]),
        )
    ]


EXTRACTS: dict[str, Extract] = {
    "ingest": ingest,
    "read": read,
    "queue": queue,
    "queue_fan_out": lambda data: _fan_out(data["fan_out"]),
    "queue_snapshot": queue_snapshot,
    "interactive_search": interactive_search,
    "router": router,
    "relevance": relevance,
    "loop_health": loop_health,
    "user_context": user_context,
    "agent_context": agent_context,
    "memory_truth": memory_truth,
    "find_nodes": find_nodes,
    "mcp": mcp,
    "python_client": python_client,
    "erasure": erasure,
    "extraction": extraction,
    "files": files,
    "crawl": crawl,
    "code": code,
    "code_local": code_local,
    "scale": scale,
}

__all__ = ["EXTRACTS", "router_results"]
