"""Where the built console files are, and which of them the page loads.

``web/console/build.mjs`` writes the files into ``STATIC_DIR`` with ``manifest.json``::

    {"js": "console-PT6LVTEH.js", "css": "console-6KWUT6BJ.css"}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

# Module-level so tests can point it at a temporary directory.
STATIC_DIR = Path(__file__).parent / "static"

BUILD_HINT = (
    "The console is not built in this installation: run scripts/install.sh "
    "(or: cd web/console && npm ci && npm run build), then reload."
)


@dataclass(frozen=True)
class Bundle:
    """The built console: its directory and the names of its script and stylesheet."""

    directory: Path
    js: str
    css: str


def static_dir() -> Path:
    """The directory the built files are served from."""
    return STATIC_DIR


def load_bundle() -> Bundle | None:
    """The bundle named by ``manifest.json``, or ``None`` if it is missing or incomplete."""
    directory = static_dir()
    try:
        manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
        js, css = manifest["js"], manifest["css"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(js, str) or not isinstance(css, str):
        return None
    if not (directory / js).is_file() or not (directory / css).is_file():
        return None
    return Bundle(directory, js, css)
