"""The documentation site at ``/docs``: what ``make docs`` built into ``site/``, served as
static files (no key needed, as for the console's page).

Until the site is built, ``/docs`` and every page under it answer 404 with a one-line hint
to run ``make docs``. The directory is checked on every request, so a site built while the
server runs is served at once.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

# mkdocs.yml's site_dir, beside the kenning package in a checkout.
SITE_DIR = Path(__file__).resolve().parent.parent / "site"
BUILD_HINT = "The documentation is not built: run `make docs`, then reload /docs/.\n"


def _not_built() -> Response:
    return PlainTextResponse(BUILD_HINT, status_code=404)


class DocsSite:
    """ASGI app serving the built site in ``directory``, or the hint while it is missing."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @property
    def built(self) -> bool:
        return (self.directory / "index.html").is_file()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.built:
            await _not_built()(scope, receive, send)
            return
        await StaticFiles(directory=self.directory, html=True)(scope, receive, send)


def docs_routes(directory: Path | None = None) -> list[BaseRoute]:
    """``/docs`` (to ``/docs/`` once built) and the site under ``/docs/``; the site in
    ``directory``, else in ``SITE_DIR``."""
    site = DocsSite(directory or SITE_DIR)

    async def docs_root(request: Request) -> Response:
        # Relative, so the redirect also holds where a proxy mounts Kenning under a prefix.
        return RedirectResponse("docs/") if site.built else _not_built()

    return [Route("/docs", docs_root, methods=["GET", "HEAD"]), Mount("/docs", app=site)]
