"""The GraphiQL page and its assets, served from a bundle in a temporary directory."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from kenning.graphiql import _bundle, graphiql_page, graphiql_routes

SCRIPT = "console.log('graphiql');\n"
STYLE = "body { margin: 0 }\n"


def client() -> TestClient:
    app = Starlette(routes=[Route("/graphql", graphiql_page), *graphiql_routes()])
    return TestClient(app)


@pytest.fixture
def static(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A built bundle: hashed files, their gzip copies and the manifest naming them."""
    files = {"graphiql-AB12.js": SCRIPT, "graphiql-CD34.css": STYLE, "codicon-EF56.ttf": "ttf"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        (tmp_path / f"{name}.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "graphiql-AB12.js.LEGAL.txt").write_text("MIT\n")
    manifest = {"js": "graphiql-AB12.js", "css": "graphiql-CD34.css", "workers": {}}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(_bundle, "STATIC_DIR", tmp_path)
    return tmp_path


def test_the_page_loads_the_built_files_from_this_server(static: Path) -> None:
    page = client().get("/graphql")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["cache-control"] == "no-cache"
    assert '<script type="module" src="graphiql/assets/graphiql-AB12.js">' in page.text
    assert '<link rel="stylesheet" href="graphiql/assets/graphiql-CD34.css">' in page.text
    assert "http" not in page.text.replace("http-equiv", "")
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy


@pytest.mark.parametrize(
    ("name", "content_type", "body"),
    [
        ("graphiql-AB12.js", "text/javascript; charset=utf-8", SCRIPT),
        ("graphiql-CD34.css", "text/css; charset=utf-8", STYLE),
        ("codicon-EF56.ttf", "font/ttf", "ttf"),
    ],
)
def test_assets_have_their_content_type_and_are_cached_for_good(
    static: Path, name: str, content_type: str, body: str
) -> None:
    plain = client().get(f"/graphiql/assets/{name}", headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200
    assert plain.headers["content-type"] == content_type
    assert plain.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert "content-encoding" not in plain.headers
    assert plain.text == body


def test_a_browser_that_accepts_gzip_gets_the_precompressed_copy(static: Path) -> None:
    packed = client().get("/graphiql/assets/graphiql-AB12.js", headers={"Accept-Encoding": "gzip"})
    assert packed.headers["content-encoding"] == "gzip"
    assert packed.headers["vary"] == "Accept-Encoding"
    assert packed.headers["content-type"] == "text/javascript; charset=utf-8"
    assert packed.text == SCRIPT  # decoded by the client, as a browser does


def test_licence_texts_are_served_as_plain_text(static: Path) -> None:
    legal = client().get("/graphiql/assets/graphiql-AB12.js.LEGAL.txt")
    assert legal.status_code == 200
    assert legal.headers["content-type"] == "text/plain; charset=utf-8"


@pytest.mark.parametrize(
    "name",
    ["manifest.json", "graphiql-AB12.js.gz", "missing-0000.js", "..%2Fmanifest.json", ".hidden.js"],
)
def test_other_files_are_not_served(static: Path, name: str) -> None:
    (static / ".hidden.js").write_text("secret")
    assert client().get(f"/graphiql/assets/{name}").status_code == 404


def test_nothing_outside_the_static_directory_is_served(static: Path) -> None:
    (static.parent / "outside.js").write_text("secret")
    for path in ("/graphiql/assets/../outside.js", "/graphiql/assets/%2E%2E/outside.js"):
        response = client().get(path)
        assert response.status_code == 404
        assert "secret" not in response.text


def test_an_unbuilt_installation_answers_503_naming_the_build_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_bundle, "STATIC_DIR", tmp_path / "static")
    page = client().get("/graphql")
    assert page.status_code == 503
    assert "scripts/install.sh" in page.text
    assert "npm ci && npm run build" in page.text
    assert client().get("/graphiql/assets/graphiql-AB12.js").status_code == 404


def test_a_manifest_naming_missing_files_is_not_built(static: Path) -> None:
    (static / "graphiql-AB12.js").unlink()
    assert client().get("/graphql").status_code == 503
