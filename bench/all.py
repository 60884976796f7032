"""Every benchmark in turn, then one table of ratios measured in the same run.

Run from the repository root (``make bench`` does)::

    .venv/bin/python -m bench.all [--only ingest,read] [--quick] [--timeout 3600]

The local stack is started first (``kenning stack up``). Each benchmark of ``bench._all_runs``
runs as its own process; its results JSON (only if written by this run) is read into rows
of Kenning's figure, the baseline's, their ratio and the goal (issue 15's where one applies).
A failing benchmark becomes a ``FAILED (exit n)`` row and the next one runs. The table goes
to stdout and, with every row's figures, to ``bench/results/all.json``. The exit status is 1
when any benchmark failed (a missed goal is a figure, not a failure).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench._all_figures import EXTRACTS, router_results
from bench._all_runs import Run, chosen
from bench._all_table import Row, render, rows, unmeasured

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--only", help="comma-separated benchmark names (default: all)")
    parser.add_argument("--quick", action="store_true", help="each benchmark's smallest sizes")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per benchmark")
    return parser.parse_args(argv)


def _stop(child: subprocess.Popen[str]) -> None:
    """Kill the benchmark and every server or worker it started (its own process group)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(child.pid, signal.SIGKILL)


def _execute(command: list[str], timeout: float) -> tuple[str | None, str]:
    """Run one benchmark, echoing its output as it comes; (why it failed or None, its stdout)."""
    env = {"HF_HUB_OFFLINE": "1", **os.environ, "PYTHONUNBUFFERED": "1"}
    lines: list[str] = []
    with subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, start_new_session=True
    ) as child:
        timer = threading.Timer(timeout, _stop, (child,))
        timer.start()
        try:
            assert child.stdout is not None
            for line in child.stdout:
                print(line, end="", flush=True)
                lines.append(line)
            code = child.wait()
        except BaseException:  # Ctrl-C: its servers are in its own session, stop them too
            _stop(child)
            raise
        finally:
            timed_out = not timer.is_alive()
            timer.cancel()
    if timed_out:
        return f"timeout after {timeout:g} s", "".join(lines)
    return (None if code == 0 else f"exit {code}"), "".join(lines)


def _fresh_results(run: Run, stdout: str, started: float) -> dict[str, Any] | None:
    """This run's results: its JSON file if written since ``started``, else None."""
    if run.results is None:
        return router_results(stdout)
    path = RESULTS / run.results
    if not path.exists() or path.stat().st_mtime < started:
        return None
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


def _one(run: Run, quick: bool, timeout: float) -> tuple[list[Row], dict[str, Any]]:
    command = [sys.executable, *run.argv(quick)]
    print(f"== {run.name}: {' '.join(command[1:])}", file=sys.stderr, flush=True)
    started = time.time()
    failure, stdout = _execute(command, timeout)
    results = None if failure else _fresh_results(run, stdout, started)
    wall = round(time.time() - started, 1)
    record = {"name": run.name, "command": command[1:], "failure": failure, "wall_s": wall,
              "results": results}  # fmt: skip
    return rows(run.name, failure, results, EXTRACTS[run.extract]), record


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        runs = chosen(args.only)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stack = subprocess.run([sys.executable, "-m", "kenning", "stack", "up"], cwd=ROOT)
    if stack.returncode != 0:
        print("error: kenning stack up failed; no benchmark ran", file=sys.stderr)
        return stack.returncode
    table: list[Row] = []
    records = []
    for run in runs:
        found, record = _one(run, args.quick, args.timeout)
        table += found
        records.append(record)
    print(render(table))
    RESULTS.mkdir(parents=True, exist_ok=True)
    report = {
        "finished_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "quick": args.quick,
        "cpus": os.cpu_count(),
        "rows": [asdict(r) for r in table],
        "issue_goals_unmeasured": unmeasured(table),
        "runs": records,
    }
    (RESULTS / "all.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {(RESULTS / 'all.json').relative_to(ROOT)}", file=sys.stderr)
    return 1 if any(r["failure"] for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
