"""Every GraphQL example of README.md and of the docs' pages (``docs/``, in the order of
mkdocs.yml's navigation), run in order against a real server.

The server runs with the router over the demo backends (so ``routerStatus`` and
``routerEvents`` have something to show) and without queue workers (so the queue examples
find their jobs still queued), and the examples run with an admin key of client ``acme``,
as the README says. A generated git repository lies under the server's
``KENNING_REPOSITORY_ROOTS`` and ``"<repositoryPath>"`` stands for its path; a variable
``"<upload NAME>"`` is sent as a small Markdown file ``NAME`` in a multipart request.
An example answers without top-level errors and without error members (``... on Error``)
unless it is marked ``expect-error=CODE``; then it must fail with that code.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router.demo import DemoBackends, DemoConfig
from kenning.settings import Settings
from kenning.storage.db.database_url import with_database
from kenning.storage.db.migrate import run_upgrade
from tests.support.code_repo import make_code_repo
from tests.support.database import TEST_DATABASE, recreate_database
from tests.support.readme import (
    Example,
    error_members,
    examples,
    fill,
    remember,
    uploads,
    without_uploads,
)
from tests.support.server_process import Server, create_key, free_port, start_server, stop_server

pytestmark = pytest.mark.e2e

FIRST_MESSAGE_WITHIN = 15.0


README_DATABASE = f"{TEST_DATABASE}_readme"


@pytest.fixture(scope="module")
def readme_settings(test_settings: Settings) -> Settings:
    """A database of its own: other test servers run workers that would take its jobs."""
    url = with_database(test_settings.database_url, README_DATABASE)
    asyncio.run(recreate_database(url, README_DATABASE))
    settings = test_settings.model_copy(update={"database_url": url})
    run_upgrade(settings, "head")
    return settings


@pytest.fixture(scope="module")
def repository_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small git repository (two commits) alone under a repository root."""
    return make_code_repo(tmp_path_factory.mktemp("repository-roots") / "shop").root


@pytest.fixture(scope="module")
def readme_server(
    readme_settings: Settings, tmp_path_factory: pytest.TempPathFactory, repository_path: Path
) -> Iterator[Server]:
    demo = DemoBackends(DemoConfig(gpu_port=free_port(), cpu_port=free_port(), load_time=0.05))
    demo.start()
    router = {k: v for k, v in demo.environment().items() if k.startswith("KENNING_ROUTER_")}
    router["KENNING_ROUTER_STATE_PREFIX"] = f"kenning:router:readme:{uuid.uuid4().hex[:8]}:"
    folder = tmp_path_factory.mktemp("readme")
    repositories = {
        "KENNING_REPOSITORY_ROOTS": str(repository_path.parent),
        "KENNING_REPOSITORY_DIR": str(folder / "clones"),
    }
    process, running = start_server(
        readme_settings, folder / "server.log", KENNING_QUEUE_WORKERS="0", **router,
        **repositories,
    )  # fmt: skip
    key = asyncio.run(create_key(readme_settings, Scope("acme"), Role.ADMIN))
    try:
        yield running.with_key(key)
    finally:
        stop_server(process)
        demo.stop()


def markdown_file(name: str) -> bytes:
    """The small Markdown document an upload example of the docs sends as ``name``."""
    title = name.rsplit(".", 1)[0].replace("-", " ").capitalize()
    return f"# {title}\n\n## Deploys\n\nBilling deploys run from main at 10:00.\n".encode()


def multipart(example: Example, variables: dict[str, Any]) -> dict[str, Any]:
    """httpx arguments of the GraphQL multipart request spec: operations, map, one part per
    ``"<upload NAME>"`` variable."""
    files = uploads(variables)
    operations = {"query": example.document, "variables": without_uploads(variables)}
    return {
        "data": {
            "operations": json.dumps(operations),
            "map": json.dumps({str(i): [path] for i, (path, _) in enumerate(files)}),
        },
        "files": {
            str(i): (name, markdown_file(name), "text/markdown")
            for i, (_, name) in enumerate(files)
        },
    }


async def _query(server: Server, example: Example, variables: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=60) as client:
        if uploads(variables):
            answer = await client.post(
                f"{server.url}/graphql",
                headers={**server.headers, "Apollo-Require-Preflight": "true"},
                **multipart(example, variables),
            )
        else:
            answer = await client.post(
                f"{server.url}/graphql",
                json={"query": example.document, "variables": variables},
                headers=server.headers,
            )
    body: dict[str, Any] = answer.json()
    return body


async def _trigger(server: Server, example: Example) -> None:
    """Make the event a subscription waits for happen (only ``routerEvents`` needs one)."""
    if "routerEvents" in example.root_fields:
        async with httpx.AsyncClient(timeout=60) as client:
            await client.post(
                f"{server.url}/router/announce", json={"session": "readme"}, headers=server.headers
            )


async def _first_message(
    server: Server, example: Example, variables: dict[str, Any]
) -> dict[str, Any]:
    async with websockets.connect(server.ws_url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": server.headers}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        payload = {"query": example.document, "variables": variables}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        await _trigger(server, example)
        async with asyncio.timeout(FIRST_MESSAGE_WITHIN):
            while True:
                message = json.loads(await ws.recv())
                if message["type"] == "next":
                    body: dict[str, Any] = message["payload"]
                    return body
                if message["type"] == "error":
                    return {"errors": message["payload"]}
                assert message["type"] == "ping", f"{example}: {message}"
                await ws.send(json.dumps({"type": "pong"}))


async def test_every_readme_example_runs(readme_server: Server, repository_path: Path) -> None:
    seen: dict[str, Any] = {"repositoryPath": str(repository_path)}
    ran = 0
    for example in examples():
        variables = fill(example.variables, seen)
        if example.kind.value == "subscription":
            body = await _first_message(readme_server, example, variables)
        else:
            body = await _query(readme_server, example, variables)
        if example.expect_error is not None:
            assert body.get("errors"), f"{example} was to fail: {body}"
            codes = {e["extensions"]["code"] for e in body["errors"]}
            assert codes == {example.expect_error}, f"{example}: {body['errors']}"
        else:
            assert "errors" not in body, f"{example}: {body['errors']}"
            assert body.get("data"), f"{example}: no data"
            failed = error_members(body["data"])
            assert not failed, f"{example} answered with an error member: {failed}"
            remember(body["data"], seen)
        ran += 1
    assert ran == len(examples()) >= 40
