"""`DemoBackends`: a fake GPU and a fake CPU Ollama, and the variables that route to them."""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from kenning.router.config import RouterSettings
from kenning.router.demo.fake_models import ModelSpec
from kenning.router.demo.fake_ollama import DEFAULT_MODELS, FakeOllama

CHAT_MODEL = "llama3.2:1b"
BACKGROUND_MODEL = "qwen2.5:7b"
GPU_NAME = "gpu0"


@dataclass(frozen=True, slots=True)
class DemoConfig:
    """How the two fakes behave; the defaults make a preemption easy to watch.

    The GPU generates a token every ``token_delay`` seconds and loads a model in
    ``load_time``; the CPU is slower per token and loads at once.
    """

    gpu_port: int = 11441
    cpu_port: int = 11442
    token_delay: float = 0.05
    cpu_token_delay: float = 0.15
    tokens: int = 40
    load_time: float = 0.5
    vram_mb: int = 8192
    embedding_model: str = "demo-embed"
    embedding_dim: int = 384


class DemoBackends:
    """Start with `start()`, stop with `stop()`; `environment()` points a router at them."""

    def __init__(self, config: DemoConfig) -> None:
        self.config = config
        models = (
            *DEFAULT_MODELS,
            ModelSpec(
                config.embedding_model, size_mb=300, embedding=True, dims=config.embedding_dim
            ),
        )
        self.gpu = FakeOllama(
            GPU_NAME,
            models=models,
            vram_mb=config.vram_mb,
            load_time=config.load_time,
            token_latency=config.token_delay,
            tokens=config.tokens,
            port=config.gpu_port,
        )
        # A CPU box has plenty of RAM: its budget never forces an unload.
        self.cpu = FakeOllama(
            "cpu",
            models=models,
            vram_mb=1 << 20,
            token_latency=config.cpu_token_delay,
            tokens=config.tokens,
            port=config.cpu_port,
        )

    def start(self) -> None:
        """Listen on both ports; ``OSError`` naming the port when one is taken (nothing is
        left running then)."""
        for fake, port in ((self.gpu, self.config.gpu_port), (self.cpu, self.config.cpu_port)):
            try:
                fake.start()
            except OSError as error:
                self.stop()
                message = f"cannot listen on 127.0.0.1:{port} ({error.strerror or error})"
                raise OSError(error.errno, message) from error

    def stop(self) -> None:
        self.cpu.stop()
        self.gpu.stop()

    def environment(self) -> dict[str, str]:
        """``KENNING_ROUTER_*`` variables: these backends, and the models each set holds."""

        def env(field: str) -> str:
            return f"{RouterSettings.model_config.get('env_prefix', '')}{field}".upper()

        gpu = {"name": GPU_NAME, "url": self.gpu.url, "vram_budget_mb": self.config.vram_mb}
        return {
            env("gpu_backends"): _compact([gpu]),
            env("cpu_backend"): self.cpu.url,
            env("orchestrator_models"): _compact([CHAT_MODEL]),
            # Kenning's own model calls (structure, extract) are background work: with this
            # set a `make run` pointed at the demo can try them without an Ollama.
            env("background_models"): _compact([self.config.embedding_model, BACKGROUND_MODEL]),
        }


def shell_lines(variables: Mapping[str, str]) -> list[str]:
    """``export NAME='value'`` lines a POSIX shell can source."""
    return [f"export {name}={shlex.quote(value)}" for name, value in variables.items()]


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))
