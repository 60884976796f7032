"""The scale benchmark's figures: the ``make bench`` table rows and the printed summary.

Both read the report ``bench.scale`` writes (``bench/results/scale.json``): ``serve`` holds
per server-process count (``"1"``, ``"2"``) a throughput per operation, ``drain`` per
worker-process count the queue's jobs/s, ``ratios`` each figure at the largest count over
the figure with one process.
"""

from __future__ import annotations

from typing import Any

from bench._all_table import Figure, Goal

SEARCH_GOAL = Goal("ratio", least=1.6)  # issue 19: searches on a 2-core machine
OPS = {"search": "HYBRID search", "neighbors": "2-hop neighbors"}
CONTENDED = 0.25  # cores busy with other work


def _most(counts: dict[str, Any]) -> str:
    return max(counts, key=int)


def ratios(report: dict[str, Any]) -> dict[str, float]:
    """Each operation's requests/s and the drain's jobs/s, most processes over one."""
    found: dict[str, float] = {}
    serve = report.get("serve", {})
    if "1" in serve and len(serve) > 1:
        top = serve[_most(serve)]
        for op in OPS:
            found[op] = round(top[op]["qps"] / serve["1"][op]["qps"], 2)
    drain = report.get("drain", {})
    if "1" in drain and len(drain) > 1:
        found["drain"] = round(drain[_most(drain)]["jobs_per_s"] / drain["1"]["jobs_per_s"], 2)
    return found


def scale(data: dict[str, Any]) -> list[Figure]:
    """Requests/s with N server processes against one; jobs/s with N worker processes
    against one; PostgreSQL's share of the CPU server, PostgreSQL and client used, at N."""
    found = []
    serve, drain = data["serve"], data["drain"]
    if "1" not in serve or len(serve) < 2:
        raise ValueError("no ratio: the run did not serve with 1 and with more processes")
    top, width = _most(serve), data["concurrency"]
    for op, name in OPS.items():
        goal = SEARCH_GOAL if op == "search" else None
        found.append(Figure(f"{name} req/s, {top} server processes, {width} in flight",
                            "req/s", serve[top][op]["qps"], serve["1"][op]["qps"],
                            "1 process", goal))  # fmt: skip
    for op, name in OPS.items():
        share = serve[top][op]["postgres_cpu_share"]
        found.append(Figure(f"PostgreSQL share of the CPU used, {name}, {top} processes", "%",
                            round(100 * share, 1)))  # fmt: skip
    if "other_cores_busy_max" in data:  # a miss: the ratios above measured a busy machine
        busy, goal = data["other_cores_busy_max"], Goal("figure", most=CONTENDED)
        found.append(Figure("other work on the machine during the reads, at most", "cores",
                            busy, goal=goal))  # fmt: skip
    if len(drain) > 1:
        top = _most(drain)
        found.append(Figure(f"queue drain, {top} worker processes", "jobs/s",
                            drain[top]["jobs_per_s"], drain["1"]["jobs_per_s"],
                            "1 process"))  # fmt: skip
    return found


def contention(report: dict[str, Any]) -> float:
    """The most cores anything else on the machine kept busy during a measured phase: above
    ``CONTENDED`` the ratios say more about that load than about Kenning."""
    serve = report.get("serve", {}).values()
    return max((run["cores_busy"]["other"] for ops in serve for run in ops.values()), default=0)


def render(report: dict[str, Any]) -> str:
    """The report as a few lines for the terminal."""
    lines = [f"concurrency {report['concurrency']}, {report['spec']['chunks']} chunks"]
    for count, ops in sorted(report["serve"].items(), key=lambda kv: int(kv[0])):
        for op, name in OPS.items():
            run = ops[op]
            lines.append(
                f"  serve x{count} {name:16} {run['qps']:8.1f} req/s  p50 "
                f"{run['latency']['p50_ms']:6.1f} ms  cpu ms/req: server "
                f"{run['server_cpu_ms']:.2f} postgres {run['postgres_cpu_ms']:.2f} client "
                f"{run['client_cpu_ms']:.2f} other {run['other_cpu_ms']:.2f}  cores busy "
                f"{run['cores_busy']}  by process {run['requests_by_process']}"
            )
    for count, run in sorted(report["drain"].items(), key=lambda kv: int(kv[0])):
        rate, jobs = run["jobs_per_s"], run["jobs"]
        busy, postgres = run["machine_cores_busy"], run["postgres_cores_busy"]
        lines.append(
            f"  worker x{count} drain {rate:8.1f} jobs/s ({jobs} jobs)  cores busy: machine "
            f"{busy}, postgres {postgres}"
        )
    lines.append(f"  ratios: {report['ratios']}")
    other = contention(report)
    if other > CONTENDED:
        lines.append(f"  WARNING: other work kept up to {other:.2f} cores busy: run it again idle")
    return "\n".join(lines)
