"""``kenning router demo``: fake GPU and CPU Ollama backends to try the router with."""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType
from typing import Annotated

import typer

from kenning.cli.exit_codes import ExitCode
from kenning.cli.group import report
from kenning.cli.options import env_name, valid_port
from kenning.router import RouterSettings
from kenning.router.demo import DemoBackends, DemoConfig, shell_lines
from kenning.router.demo.backends import BACKGROUND_MODEL, CHAT_MODEL
from kenning.settings import EmbedderKind, Settings

READY = "# Serving until Ctrl-C."
_DEFAULTS = DemoConfig()


def kenning_environment(backends: DemoBackends) -> dict[str, str]:
    """The router's variables plus those that make Kenning embed through it."""
    config = backends.config
    return {
        **backends.environment(),
        env_name(Settings, "embedder"): EmbedderKind.OLLAMA.value,
        env_name(Settings, "embedding_model"): config.embedding_model,
        env_name(Settings, "embedding_dim"): str(config.embedding_dim),
    }


def _describe(backends: DemoBackends) -> list[str]:
    config = backends.config
    router = RouterSettings.model_fields
    where = f"http://{router['host'].default}:{router['port'].default}"
    return [
        "# Fake Ollama backends for the Kenning router (kenning router demo).",
        f"#   gpu0  {backends.gpu.url}  {config.token_delay} s per token, loads a model in "
        f"{config.load_time} s, {config.vram_mb} MB of VRAM",
        f"#   cpu   {backends.cpu.url}  {config.cpu_token_delay} s per token",
        f"#   models: {CHAT_MODEL} (chat), {BACKGROUND_MODEL} (background generation), "
        f"{config.embedding_model} ({config.embedding_dim}-d embeddings)",
        "# In another shell, paste these lines (or source this output), then run",
        f"# `kenning router --allow-anonymous` (Ollama API on {where}, no API keys: keep it",
        "# on loopback) or `kenning serve` (the same under /ollama behind API keys, and Kenning",
        "# embeds through it; use a new database, its vectors are fake):",
    ]


def demo_command(
    gpu_port: Annotated[
        int, typer.Option(metavar="PORT", callback=valid_port, help="Port of the fake GPU.")
    ] = _DEFAULTS.gpu_port,
    cpu_port: Annotated[
        int, typer.Option(metavar="PORT", callback=valid_port, help="Port of the fake CPU.")
    ] = _DEFAULTS.cpu_port,
    token_delay: Annotated[
        float, typer.Option(metavar="SECONDS", help="Seconds per generated token on the GPU.")
    ] = _DEFAULTS.token_delay,
    cpu_token_delay: Annotated[
        float, typer.Option(metavar="SECONDS", help="Seconds per generated token on the CPU.")
    ] = _DEFAULTS.cpu_token_delay,
    tokens: Annotated[
        int, typer.Option(metavar="N", help="Tokens per answer (a request's num_predict wins).")
    ] = _DEFAULTS.tokens,
    load_time: Annotated[
        float, typer.Option(metavar="SECONDS", help="Seconds the GPU takes to load a model.")
    ] = _DEFAULTS.load_time,
    embedding_model: Annotated[
        str, typer.Option(metavar="NAME", help="Name of the fake embedding model.")
    ] = _DEFAULTS.embedding_model,
    embedding_dim: Annotated[
        int, typer.Option(metavar="N", help="Dimension of its vectors.")
    ] = _DEFAULTS.embedding_dim,
) -> None:
    """Start a fake GPU Ollama and a fake CPU Ollama on loopback and print the environment
    that points Kenning's router at them; serve until Ctrl-C.

    The fakes speak the Ollama API and take time per token, so a priority-0 request
    visibly preempts priority-3 work on the GPU, which finishes on the CPU instead.
    """
    config = DemoConfig(
        gpu_port=gpu_port,
        cpu_port=cpu_port,
        token_delay=token_delay,
        cpu_token_delay=cpu_token_delay,
        tokens=tokens,
        load_time=load_time,
        embedding_model=embedding_model,
        embedding_dim=embedding_dim,
    )
    _serve_demo(DemoBackends(config))


def _serve_demo(backends: DemoBackends) -> None:
    try:
        backends.start()
    except OSError as error:
        raise report(
            f"{error.strerror or error}: choose other ports with --gpu-port and --cpu-port",
            ExitCode.FAILED,
        ) from None
    stop = threading.Event()

    def on_signal(_: int, __: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        lines = [*_describe(backends), *shell_lines(kenning_environment(backends)), READY]
        typer.echo("\n".join(lines))
        sys.stdout.flush()  # a reader on a pipe needs the variables now, not at exit
        stop.wait()
    finally:
        backends.stop()
