"""The documentation site at /docs (kenning.docs_site): served once ``make docs`` built it,
a 404 with a one-line hint to build it before, and mounted by the server's app."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from kenning import docs_site
from kenning.app import create_app
from kenning.settings import EmbedderKind, Settings

HOME = "<!doctype html><title>Kenning</title><h1>Kenning</h1>"
GUIDE = "<!doctype html><title>Writing knowledge</title>"


def build(site: Path) -> None:
    """What `make docs` leaves in site/, in small: the home page, a guide and the 404 page."""
    (site / "guides" / "writing").mkdir(parents=True)
    (site / "index.html").write_text(HOME)
    (site / "guides" / "writing" / "index.html").write_text(GUIDE)
    (site / "404.html").write_text("<!doctype html><title>Not found</title>")


def client(site: Path) -> TestClient:
    return TestClient(Starlette(routes=docs_site.docs_routes(site)))


@pytest.mark.parametrize("path", ["/docs", "/docs/", "/docs/guides/writing/"])
def test_before_the_build_docs_answers_404_saying_to_run_make_docs(
    tmp_path: Path, path: str
) -> None:
    answer = client(tmp_path / "site").get(path, follow_redirects=False)
    assert answer.status_code == 404
    assert answer.text.count("\n") == 1 and "run `make docs`" in answer.text
    assert answer.headers["content-type"].startswith("text/plain")


def test_the_built_site_is_served_at_docs(tmp_path: Path) -> None:
    build(tmp_path)
    docs = client(tmp_path)
    moved = docs.get("/docs", follow_redirects=False)
    assert moved.status_code in (302, 307) and moved.headers["location"] == "docs/"
    assert docs.get("/docs").text == HOME  # the redirect lands on the home page
    home = docs.get("/docs/")
    assert home.status_code == 200 and home.text == HOME
    assert home.headers["content-type"].startswith("text/html")
    assert docs.get("/docs/guides/writing/").text == GUIDE
    missing = docs.get("/docs/no-such-page/")
    assert missing.status_code == 404 and "Not found" in missing.text


def test_a_site_built_while_the_server_runs_is_served_at_once(tmp_path: Path) -> None:
    docs = client(tmp_path)
    assert docs.get("/docs/").status_code == 404
    build(tmp_path)
    assert docs.get("/docs/").text == HOME


def test_the_server_mounts_the_site_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(docs_site, "SITE_DIR", tmp_path)
    server = TestClient(create_app(Settings(embedder=EmbedderKind.HASH)))
    assert "run `make docs`" in server.get("/docs/").text
    build(tmp_path)
    assert server.get("/docs/").text == HOME
