"""What GraphiQL and the console share: a built bundle named by ``manifest.json`` and its
hashed files, served cached for a year, gzipped when the browser accepts it.

``web/<app>/build.mjs`` writes the files into the app's static directory with
``manifest.json`` (``{"js": "<app>-<hash>.js", "css": "<app>-<hash>.css", ...}``). Only plain
names with a known suffix are served; a changed file always has a new name.

Example: ``read_bundle(static_dir)`` and ``asset_response(request, static_dir, TYPES)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response

IMMUTABLE = "public, max-age=31536000, immutable"
TEXT = "text/plain; charset=utf-8"

_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Bundle:
    """A built page: its directory and the names of its script and stylesheet."""

    directory: Path
    js: str
    css: str


def page_headers(csp: tuple[str, ...]) -> dict[str, str]:
    """Headers of a page that holds an API key: the CSP ``csp`` lists, no referrer, no
    sniffing, and no cache (the page names hashed files: a rebuild shows at the next load)."""
    return {
        "Cache-Control": "no-cache",
        "Content-Security-Policy": "; ".join(csp),
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }


def read_bundle(directory: Path) -> Bundle | None:
    """The bundle ``manifest.json`` names, or ``None`` if it is missing or incomplete."""
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


def content_type(name: str, types: Mapping[str, str]) -> str | None:
    """The Content-Type of ``name`` by its suffix, or ``None`` if it is not served."""
    return next((media for suffix, media in types.items() if name.endswith(suffix)), None)


def _accepts_gzip(request: Request) -> bool:
    return any(
        part.split(";")[0].strip() == "gzip"
        for part in request.headers.get("accept-encoding", "").split(",")
    )


def asset_response(request: Request, directory: Path, types: Mapping[str, str]) -> Response:
    """The file ``request.path_params["name"]`` of ``directory``, or 404."""
    name = str(request.path_params["name"])
    media_type = content_type(name, types)
    path = directory / name
    if media_type is None or not _SAFE_NAME.fullmatch(name) or not path.is_file():
        return PlainTextResponse("Not Found", status_code=404)
    headers = {"Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff"}
    if media_type != TEXT:
        headers["Vary"] = "Accept-Encoding"
        packed = path.with_name(f"{name}.gz")
        if _accepts_gzip(request) and packed.is_file():
            headers["Content-Encoding"] = "gzip"
            return FileResponse(packed, media_type=media_type, headers=headers)
    return FileResponse(path, media_type=media_type, headers=headers)
