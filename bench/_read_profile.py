"""Where the server's time goes: py-spy samples of the server process, grouped by layer.

Optional (``--profile``): needs ``py-spy`` on the PATH or in the venv (``pip install
py-spy``; it is not a project dependency) and permission to trace the server process.
Each sample (taken only while the server holds the GIL) is charged to the innermost frame
that belongs to a known layer; standard-library frames (json, asyncio, contextlib,
generated dataclass code) are charged to their caller, so ``json.loads`` inside storage
counts as storage and the response's ``json.dumps`` as the HTTP layer.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import signal
import sys
import tempfile
from collections import Counter
from collections.abc import Awaitable
from pathlib import Path

# Checked in order against one frame's file path; the first that matches names its layer.
LAYERS = (
    ("graphql validation", ("graphql/validation/", "graphql/utilities/type_info")),
    ("graphql parsing", ("graphql/language/parser", "graphql/language/lexer")),
    ("graphql visitor", ("graphql/language/visitor",)),
    ("http + asgi", ("uvicorn/", "starlette/", "strawberry/http/", "strawberry/asgi/",
                     "kenning/http_metrics", "kenning/app.py", "httptools")),
    ("graphql execution", ("graphql/", "strawberry/")),
    ("kenning resolvers + schema types", ("kenning/resolvers/", "kenning/schema/")),
    ("kenning domain + storage", ("kenning/domain/", "kenning/storage/", "kenning/runtime")),
    ("asyncpg", ("asyncpg/",)),
)  # fmt: skip
_FILE = re.compile(r"\(([^()]*?)(?::\d+)?\)$")


def _py_spy() -> str | None:
    local = Path(sys.executable).with_name("py-spy")
    return str(local) if local.exists() else shutil.which("py-spy")


def _layer(stack: list[str]) -> str:
    """The layer of the innermost frame that has one; a visitor frame is validation when
    validation is on the stack (it also walks documents elsewhere)."""
    for frame in reversed(stack):
        match = _FILE.search(frame)
        path = match.group(1) if match else ""
        for name, patterns in LAYERS:
            if any(p in path for p in patterns):
                if name == "graphql visitor":
                    return (
                        "graphql validation" if "graphql/validation/" in ";".join(stack) else name
                    )
                return name
    return "other (event loop, stdlib)"


def layers(raw: str) -> dict[str, float]:
    """Share of samples per layer from py-spy's ``raw`` (collapsed stacks) output."""
    counts: Counter[str] = Counter()
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if stack and count.isdigit():
            counts[_layer(stack.split(";"))] += int(count)
    total = sum(counts.values())
    return {name: n / total for name, n in counts.most_common()} if total else {}


async def profiled(pid: int, work: Awaitable[float]) -> dict[str, float] | None:
    """Run ``work`` (returning the server's CPU ms per query) under py-spy; CPU ms per query
    by layer, or ``None`` when py-spy is unavailable or failed."""
    tool = _py_spy()
    if tool is None:
        print("  --profile: py-spy not found (pip install py-spy)", file=sys.stderr)
        await work
        return None
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "samples.txt"
        spy = await asyncio.create_subprocess_exec(
            tool, "record", "--pid", str(pid), "--rate", "250", "--format", "raw", "--gil",
            "--nonblocking", "--output", str(output),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        await asyncio.sleep(1.0)  # let it attach
        server_ms = await work
        if spy.returncode is None:
            spy.send_signal(signal.SIGINT)
        _, errors = await asyncio.wait_for(spy.communicate(), 30)
        if not output.exists():
            print(f"  --profile: py-spy failed: {errors.decode()[-500:]}", file=sys.stderr)
            return None
        shares = layers(output.read_text())
    return {name: share * server_ms for name, share in shares.items()}
