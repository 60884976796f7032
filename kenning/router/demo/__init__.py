"""Fake Ollama servers that behave like the real one, for trying the router without a GPU.

`FakeOllama` (read first: `fake_ollama.py`) speaks the Ollama API on a loopback port with
models that load, take time per token and can be cancelled mid-generation, so a priority-0
request visibly preempts background work. `DemoBackends` starts a "GPU" and a "CPU" fake
and says how to point Kenning at them (``kenning router demo``). The tests use the same fakes.
"""

from kenning.router.demo.backends import DemoBackends, DemoConfig, shell_lines
from kenning.router.demo.fake_models import (
    ModelSpec,
    Residencies,
    Residency,
    fake_embedding,
    fake_tokens,
    normalized,
    parse_keep_alive,
)
from kenning.router.demo.fake_ollama import BUSY, DEFAULT_MODELS, FakeOllama, RequestRecord
from kenning.router.demo.threaded_server import ThreadedServer

__all__ = [
    "BUSY",
    "DEFAULT_MODELS",
    "DemoBackends",
    "DemoConfig",
    "FakeOllama",
    "ModelSpec",
    "RequestRecord",
    "Residencies",
    "Residency",
    "ThreadedServer",
    "fake_embedding",
    "fake_tokens",
    "normalized",
    "parse_keep_alive",
    "shell_lines",
]
