"""Where the built GraphiQL files are, and which of them the page loads.

``web/graphiql/build.mjs`` writes the files into ``STATIC_DIR`` with ``manifest.json``::

    {"js": "graphiql-PT6LVTEH.js", "css": "graphiql-6KWUT6BJ.css", "workers": {...}}
"""

from __future__ import annotations

from pathlib import Path

from kenning.web_bundle import Bundle, read_bundle

__all__ = ["BUILD_HINT", "STATIC_DIR", "Bundle", "load_bundle", "static_dir"]

# Module-level so tests can point it at a temporary directory.
STATIC_DIR = Path(__file__).parent / "static"

BUILD_HINT = (
    "GraphiQL is not built in this installation: run scripts/install.sh "
    "(or: cd web/graphiql && npm ci && npm run build), then reload."
)


def static_dir() -> Path:
    """The directory the built files are served from."""
    return STATIC_DIR


def load_bundle() -> Bundle | None:
    """The bundle named by ``manifest.json``, or ``None`` if it is missing or incomplete."""
    return read_bundle(static_dir())
