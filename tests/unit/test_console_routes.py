"""The console's page and files (kenning.console), served from a bundle in a temporary directory."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from kenning.console import _bundle, console_routes

SCRIPT = "console.log('console');\n"
STYLE = "body { margin: 0 }\n"


def client() -> TestClient:
    return TestClient(Starlette(routes=console_routes()))


@pytest.fixture
def static(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A built console: hashed files, their gzip copies and the manifest naming them."""
    for name, text in {"console-AB12.js": SCRIPT, "console-CD34.css": STYLE}.items():
        (tmp_path / name).write_text(text)
        (tmp_path / f"{name}.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "console-AB12.js.LEGAL.txt").write_text("MIT\n")
    manifest = {"js": "console-AB12.js", "css": "console-CD34.css"}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(_bundle, "STATIC_DIR", tmp_path)
    return tmp_path


def test_the_page_loads_the_built_files_from_this_server_only(static: Path) -> None:
    page = client().get("/console/")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["cache-control"] == "no-cache"
    assert '<script type="module" src="static/console-AB12.js">' in page.text
    assert '<link rel="stylesheet" href="static/console-CD34.css">' in page.text
    assert "http" not in page.text  # nothing named on another host
    policy = page.headers["content-security-policy"]
    for rule in ("default-src 'self'", "script-src 'self'", "connect-src 'self'"):
        assert rule in policy
    assert "frame-ancestors 'none'" in policy
    assert page.headers["referrer-policy"] == "no-referrer"


def test_the_address_without_a_slash_redirects_to_the_page(static: Path) -> None:
    answer = client().get("/console", follow_redirects=False)
    assert answer.status_code == 308
    assert answer.headers["location"] == "console/"  # relative: a proxy's prefix is kept


@pytest.mark.parametrize(
    ("name", "content_type", "body"),
    [
        ("console-AB12.js", "text/javascript; charset=utf-8", SCRIPT),
        ("console-CD34.css", "text/css; charset=utf-8", STYLE),
        ("console-AB12.js.LEGAL.txt", "text/plain; charset=utf-8", "MIT\n"),
    ],
)
def test_files_have_their_content_type_and_are_cached_for_good(
    static: Path, name: str, content_type: str, body: str
) -> None:
    plain = client().get(f"/console/static/{name}", headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200
    assert plain.headers["content-type"] == content_type
    assert plain.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert plain.headers["x-content-type-options"] == "nosniff"
    assert "content-encoding" not in plain.headers
    assert plain.text == body


def test_a_browser_that_accepts_gzip_gets_the_precompressed_copy(static: Path) -> None:
    packed = client().get("/console/static/console-AB12.js", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["vary"] == "Accept-Encoding"
    assert packed.text == SCRIPT  # decoded by the client, as a browser does


@pytest.mark.parametrize(
    "name", ["manifest.json", "console-AB12.js.gz", "missing-0000.js", ".hidden.js", "x.html"]
)
def test_other_files_are_not_served(static: Path, name: str) -> None:
    (static / ".hidden.js").write_text("secret")
    (static / "x.html").write_text("<p>secret</p>")
    assert client().get(f"/console/static/{name}").status_code == 404


def test_nothing_outside_the_static_directory_is_served(static: Path) -> None:
    (static.parent / "outside.js").write_text("secret")
    for path in ("/console/static/../outside.js", "/console/static/%2E%2E%2Foutside.js"):
        response = client().get(path)
        assert response.status_code == 404
        assert "secret" not in response.text


def test_an_unbuilt_installation_answers_503_naming_the_build_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_bundle, "STATIC_DIR", tmp_path / "static")
    page = client().get("/console/")
    assert page.status_code == 503
    assert "scripts/install.sh" in page.text
    assert "npm ci && npm run build" in page.text


def test_a_manifest_naming_a_missing_file_is_not_built(static: Path) -> None:
    (static / "console-CD34.css").unlink()
    assert client().get("/console/").status_code == 503
