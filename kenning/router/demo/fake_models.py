"""Model catalogue, residency (load/unload/keep_alive/VRAM) and deterministic outputs of the fake.

Everything a test needs to predict what the fake answers lives here: `fake_embedding`,
`normalized` and `fake_tokens` are pure functions of the input text.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
import struct
import time
from dataclasses import dataclass, field
from typing import Any

DEFAULT_KEEP_ALIVE_S = 300.0
_DURATION = re.compile(r"^(-?\d+(?:\.\d+)?)(ms|s|m|h)?$")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def fake_embedding(text: str, dims: int) -> list[float]:
    """Raw (not normalized) vector derived from the text, as legacy /api/embeddings returns."""
    values: list[float] = []
    counter = 0
    while len(values) < dims:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        for (word,) in struct.iter_unpack(">I", digest):
            values.append((word / 0xFFFFFFFF) * 4.0 - 2.0)
        counter += 1
    return values[:dims]


def normalized(vector: list[float]) -> list[float]:
    """L2-normalized copy, as /api/embed returns."""
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def fake_tokens(prompt: str, count: int) -> list[str]:
    """The tokens the fake generates for a prompt: `count` short words derived from its hash."""
    digest = hashlib.sha256(prompt.encode()).hexdigest()
    return [f"t{digest[i % 60 : i % 60 + 4]} " for i in range(count)]


def parse_keep_alive(value: Any) -> float | None:
    """Seconds to keep a model loaded; None means forever (negative), 0 unloads at once."""
    if value is None:
        return DEFAULT_KEEP_ALIVE_S
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        match = _DURATION.match(str(value).strip())
        if match is None:
            raise ValueError(f"time: invalid duration {value!r}")
        seconds = float(match.group(1)) * _UNITS[match.group(2)]
    return None if seconds < 0 else seconds


@dataclass
class ModelSpec:
    """A model the fake knows; embedding models do not support generate/chat."""

    name: str
    size_mb: int = 100
    embedding: bool = False
    dims: int = 16
    family: str = "llama"

    def tag(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.name,
            "modified_at": "2025-01-01T00:00:00Z",
            "size": self.size_mb * 1024 * 1024,
            "digest": hashlib.sha256(self.name.encode()).hexdigest(),
            "details": {
                "parent_model": "",
                "format": "gguf",
                "family": self.family,
                "families": [self.family],
                "parameter_size": "1B",
                "quantization_level": "Q4_K_M",
            },
        }


@dataclass
class Residency:
    spec: ModelSpec
    expires_at: float | None
    active: int = 0
    unload_pending: bool = False
    last_used: float = field(default_factory=time.monotonic)


class Residencies:
    """Loaded models with Ollama's rules: VRAM budget, keep_alive, no unload while in use."""

    def __init__(self, vram_mb: int) -> None:
        self.vram_mb = vram_mb
        self.loaded: dict[str, Residency] = {}
        self.loads: list[str] = []
        self.unloads: list[str] = []
        self._loading: dict[str, asyncio.Future[None]] = {}

    def used_mb(self) -> int:
        return sum(r.spec.size_mb for r in self.loaded.values())

    async def acquire(self, spec: ModelSpec, load_time: float) -> Residency:
        """Load the model if needed (waiting for room) and count one running request on it."""
        while True:
            self.sweep()
            resident = self.loaded.get(spec.name)
            if resident is not None:
                resident.active += 1
                resident.unload_pending = False
                return resident
            pending = self._loading.get(spec.name)
            if pending is not None:
                await asyncio.shield(pending)
                continue
            if self._make_room(spec.size_mb):
                await self._load(spec, load_time)
                continue
            await asyncio.sleep(0.01)

    def release(self, resident: Residency, keep_alive: float | None) -> None:
        """One request finished: reset expiry like Ollama, unload if it was asked to."""
        resident.active -= 1
        resident.last_used = time.monotonic()
        if keep_alive == 0:
            resident.unload_pending = True
        elif not resident.unload_pending:
            resident.expires_at = None if keep_alive is None else time.time() + keep_alive
        self.sweep()

    def expire(self, name: str) -> None:
        """keep_alive 0 on an idle request: unload now, or once running requests finish."""
        resident = self.loaded.get(name)
        if resident is not None:
            resident.unload_pending = True
            self.sweep()

    def sweep(self) -> None:
        now = time.time()
        for name, resident in list(self.loaded.items()):
            expired = resident.expires_at is not None and resident.expires_at <= now
            if resident.active == 0 and (resident.unload_pending or expired):
                del self.loaded[name]
                self.unloads.append(name)

    def _make_room(self, size_mb: int) -> bool:
        if self._loading:
            return False
        while self.used_mb() + size_mb > self.vram_mb:
            idle = [r for r in self.loaded.values() if r.active == 0]
            if not idle:
                return False
            victim = min(idle, key=lambda r: r.last_used)
            del self.loaded[victim.spec.name]
            self.unloads.append(victim.spec.name)
        return True

    async def _load(self, spec: ModelSpec, load_time: float) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._loading[spec.name] = done
        try:
            await asyncio.sleep(load_time)
            self.loaded[spec.name] = Residency(spec, time.time() + DEFAULT_KEEP_ALIVE_S)
            self.loads.append(spec.name)
        finally:
            del self._loading[spec.name]
            done.set_result(None)

    def ps(self) -> list[dict[str, Any]]:
        self.sweep()
        models = []
        for resident in self.loaded.values():
            expires = resident.expires_at if resident.expires_at is not None else 4102444800.0
            entry = resident.spec.tag()
            del entry["modified_at"]
            entry["expires_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expires))
            entry["size_vram"] = entry["size"]
            entry["context_length"] = 4096
            models.append(entry)
        return models
