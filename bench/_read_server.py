"""The server under test: ``create_app`` under uvicorn in a child process on loopback.

Started as ``kenning serve`` starts it (same uvicorn arguments), with the hash embedder
passed in, settings (port included) from the ``KENNING_*`` variables ``bench._processes``
sets. ``SERVE`` is the command that runs it.
"""

from __future__ import annotations

from kenning.settings import Settings

SERVE = ("-m", "bench.read", "--serve")


def serve() -> None:
    """Child-process entry: the app from ``KENNING_*`` with the hash embedder."""
    import uvicorn

    from kenning.app import create_app
    from kenning.storage.embedders.constant import ConstantTimeEmbedder

    settings = Settings()
    app = create_app(settings, embedder=ConstantTimeEmbedder(settings.embedding_dim))
    uvicorn.run(
        app, host=settings.host, port=settings.port, log_config=None, ws="websockets-sansio",
        lifespan="on",
    )  # fmt: skip
