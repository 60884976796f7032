"""The extraction benchmark's figures as JSON and as a short table."""

from __future__ import annotations

from typing import Any

from bench._extraction_overhead import Baseline, Pass
from bench._extraction_quality import QualityRun
from bench._extraction_scoring import Counts, as_dict
from bench.ir_metrics import mean

GOAL_OVERHEAD_MS = 5.0
WORST = 5


def quality_json(run: QualityRun) -> dict[str, Any]:
    """Micro P/R/F1 (strict and lenient), model seconds per document, the worst documents."""
    score = run.score
    return {
        "model": run.model,
        "documents": len(score.documents),
        "entities": as_dict(score.entities),
        "triples": as_dict(score.triples),
        "entities_by_name": as_dict(score.entity_names),
        "triples_by_ends": as_dict(score.triple_ends),
        "model_seconds_per_document": round(mean(run.model_seconds), 3),
        "attempts_per_document": round(mean(run.attempts), 3),
        "documents_without_valid_answer": run.invalid,
        "relations_dropped_by_merge": run.dropped,
        "worst_documents": [
            {
                "document": d.document,
                "entities": as_dict(d.entities),
                "triples": as_dict(d.triples),
            }
            for d in score.worst(WORST)
        ],
    }


def quality_table(run: QualityRun, label: str) -> str:
    """P/R/F1 rows and the worst documents, under ``label``."""
    score = run.score
    rows = [
        f"extraction quality — {label} — {run.model}, {len(score.documents)} documents",
        f"{'':20} {'P':>6} {'R':>6} {'F1':>6}",
        _row("entities", score.entities),
        _row("triples", score.triples),
        _row("entities by name", score.entity_names),
        _row("triples by ends", score.triple_ends),
        f"model seconds per document: {mean(run.model_seconds):.2f}"
        f" (attempts {mean(run.attempts):.2f}, no valid answer: {len(run.invalid)})",
        "worst documents (triple F1, entity F1): "
        + ", ".join(
            f"{d.document} ({d.triples.f1:.2f}, {d.entities.f1:.2f})" for d in score.worst(WORST)
        ),
    ]
    return "\n".join(rows)


def _row(name: str, counts: Counts) -> str:
    return f"{name:20} {counts.precision:6.3f} {counts.recall:6.3f} {counts.f1:6.3f}"


def pass_json(run: Pass) -> dict[str, Any]:
    return {
        "sources": run.sources,
        "chunks": run.chunks,
        "model_calls": run.model_calls,
        "cached": run.cached,
        "stage_ms_per_chunk": round(run.stage_ms_per_chunk, 3),
        "model_ms_per_call": round(run.model_ms_per_call, 3),
        "overhead_ms_per_chunk": round(run.overhead_ms_per_chunk, 3),
        "port_ms_per_chunk": {
            phase: round(seconds * 1000 / max(run.chunks, 1), 3)
            for phase, seconds in sorted(run.phase_seconds.items())
        },
    }


def overhead_json(
    cold: Pass,
    baseline: Baseline,
    unchanged: Pass,
    changed: Pass,
    changed_urn: str,
    changed_chunks: int,
) -> dict[str, Any]:
    """The three passes, the baseline, the ratio and whether each goal was met."""
    calls_by_source = {urn: n for urn, n in changed.per_source_calls.items() if n}
    return {
        "cold": pass_json(cold),
        "baseline_plain_script": {
            "calls": baseline.calls,
            "ms_per_call": round(baseline.ms_per_call, 3),
        },
        "stage_over_plain_ratio": round(cold.stage_ms_per_chunk / baseline.ms_per_call, 3),
        "goal_overhead_ms_per_chunk": GOAL_OVERHEAD_MS,
        "overhead_goal_met": cold.overhead_ms_per_chunk <= GOAL_OVERHEAD_MS,
        "reingest_unchanged": pass_json(unchanged),
        "reingest_unchanged_goal_met": unchanged.model_calls == 0,
        "one_document_changed": {
            **pass_json(changed),
            "changed_source": changed_urn,
            "chunks_whose_text_changed": changed_chunks,
            "calls_by_source": calls_by_source,
        },
        "one_document_changed_goal_met": calls_by_source == {changed_urn: changed_chunks},
    }


def overhead_table(shape: str, figures: dict[str, Any]) -> str:
    cold, plain = figures["cold"], figures["baseline_plain_script"]
    unchanged, changed = figures["reingest_unchanged"], figures["one_document_changed"]
    ports = ", ".join(f"{k} {v:.2f}" for k, v in cold["port_ms_per_chunk"].items())
    return "\n".join(
        [
            f"extraction overhead — fake Ollama — {shape}: {cold['sources']} sources, "
            f"{cold['chunks']} chunks",
            f"{'':34} {'ms/chunk':>9}",
            f"{'extraction stage (cold cache)':34} {cold['stage_ms_per_chunk']:9.3f}",
            f"{'  inside model calls':34} {cold['model_ms_per_call']:9.3f}",
            f"{'  Kenning overhead (goal <= 5)':34} {cold['overhead_ms_per_chunk']:9.3f}",
            f"  of which in ports (ms/chunk): {ports}",
            f"{'plain script, same calls':34} {plain['ms_per_call']:9.3f}",
            f"stage / plain script: {figures['stage_over_plain_ratio']:.2f}x",
            f"re-ingest unchanged: {unchanged['model_calls']} model calls "
            f"({unchanged['cached']} cached, {unchanged['overhead_ms_per_chunk']:.3f} ms/chunk)",
            f"one document changed ({changed['chunks_whose_text_changed']} chunks changed): "
            f"{changed['model_calls']} model calls, by source: {changed['calls_by_source']}",
        ]
    )
