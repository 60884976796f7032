"""The benchmarks ``make bench`` runs, in order, with their full and ``--quick`` arguments.

Each is docs/benchmarks.md's ``python -m bench.<name>``; ``results`` is the JSON file it writes in
``bench/results/`` (None: it only prints, and its figures are read from its output);
``extract`` names its figure reader in ``bench._all_figures.EXTRACTS``. ``quick`` holds the
smallest sizes its flags allow (never ones that rebuild the shared read corpus).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Run:
    """One benchmark invocation."""

    name: str
    module: str
    results: str | None
    extract: str
    args: tuple[str, ...] = ()
    quick: tuple[str, ...] = ()

    def argv(self, quick: bool) -> tuple[str, ...]:
        """The module's arguments for a full or a quick run."""
        return ("-m", self.module, *(self.quick if quick else self.args))


RUNS = (
    Run("ingest", "bench.ingest", "ingest.json", "ingest", ("--embedder", "both"),
        ("--embedder", "both", "--docs", "100", "--reingests", "20")),
    Run("read", "bench.read", "read.json", "read", (),
        ("--queries", "50", "--load-queries", "100")),
    Run("queue", "bench.queue", "queue.json", "queue", (),
        ("--jobs", "200", "--bulk", "500", "--samples", "10", "--subscribers", "50",
         "--transitions-of", "5")),
    Run("queue_fan_out_2000", "bench.queue", "queue.json", "queue_fan_out",
        ("--only", "fan-out", "--subscribers", "2000"),
        ("--only", "fan-out", "--subscribers", "200", "--transitions-of", "5")),
    Run("interactive_search", "bench.interactive_search", "interactive_search.json",
        "interactive_search", (), ("--samples", "20", "--bulk", "100")),
    Run("scale", "bench.scale", "scale.json", "scale", (), ("--requests", "300", "--jobs", "200")),
    Run("queue_snapshot", "bench.queue_snapshot", "queue_snapshot.json", "queue_snapshot", (),
        ("--history", "100000", "--samples", "50")),
    Run("router", "bench.router", None, "router"),
    Run("relevance", "bench.relevance", "relevance.json", "relevance", (), ("--quick",)),
    Run("loop_health", "bench.loop_health", "loop_health.json", "loop_health", (),
        ("--rounds", "1", "--megabytes", "0.5", "--idle-probes", "50")),
    Run("user_context", "bench.user_context", "user_context.json", "user_context", (),
        ("--items", "1000", "--queries", "50")),
    Run("agent_context", "bench.agent_context", "agent_context.json", "agent_context", (),
        ("--queries", "50")),
    Run("memory_truth", "bench.memory_truth", "memory_truth.json", "memory_truth", (),
        ("--entities", "150", "--queries", "50")),
    Run("find_nodes", "bench.find_nodes", "find_nodes.json", "find_nodes", (),
        ("--queries", "50")),
    Run("mcp", "bench.mcp", "mcp.json", "mcp", (), ("--queries", "50")),
    Run("python_client", "bench.python_client", "python_client.json", "python_client", (),
        ("--queries", "50")),
    Run("erasure", "bench.erasure", "erasure.json", "erasure", (),
        ("--embedder", "hash")),
    Run("extraction", "bench.extraction", "extraction.json", "extraction", (),
        ("--copies", "1")),
    Run("files", "bench.files", "files.json", "files", (),
        ("--pdf-pages", "50", "--ocr-pages", "2", "--folder-copies", "1")),
    Run("crawl", "bench.crawl", "crawl.json", "crawl", (), ("--pages", "100", "--rounds", "1")),
    Run("code", "bench.code", "code.json", "code", (), ("--repeat", "1")),
    Run("code_local", "bench.code", "code_local.json", "code_local",
        ("--embedder", "local", "--repeat", "1"), ("--embedder", "local", "--repeat", "1")),
)  # fmt: skip


def chosen(only: str | None) -> tuple[Run, ...]:
    """The runs ``--only a,b`` names, in ``RUNS`` order; every run without it.

    >>> [r.name for r in chosen("read,queue")]
    ['read', 'queue']
    """
    if not only:
        return RUNS
    names = {n.strip() for n in only.split(",") if n.strip()}
    unknown = names - {r.name for r in RUNS}
    if unknown:
        known = ", ".join(r.name for r in RUNS)
        raise ValueError(f"--only: unknown benchmark {', '.join(sorted(unknown))} (known: {known})")
    return tuple(r for r in RUNS if r.name in names)
