"""The server under test: ``create_app`` under uvicorn in a child process on loopback.

Started as ``kenning serve`` starts it (same uvicorn arguments), with the settings' embedder
passed in, settings (port included) from the ``KENNING_*`` variables ``bench._processes``
sets. ``SERVE`` is the command that runs it.
"""

from __future__ import annotations

from kenning.settings import Settings

SERVE = ("-m", "bench.read", "--serve")


def serve() -> None:
    """Child-process entry: the app from ``KENNING_*`` (the benchmark's words embedder)."""
    import uvicorn

    from kenning.app import create_app
    from kenning.storage.embedders.factory import create_embedder

    settings = Settings()
    app = create_app(settings, embedder=create_embedder(settings))
    uvicorn.run(
        app, host=settings.host, port=settings.port, log_config=None, ws="websockets-sansio",
        lifespan="on",
    )  # fmt: skip
