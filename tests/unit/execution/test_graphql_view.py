"""/graphql refusals before the schema runs are GraphQL-shaped, whatever goes wrong."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.graphql.view import KenningGraphQL
from kenning.runtime import Runtime
from kenning.schema.build import build_schema
from kenning.settings import Settings
from kenning.storage.db.health import unavailable_part


class Keys:
    def __init__(self, failure: BaseException | None) -> None:
        self.failure = failure

    async def authenticate(self, key: str) -> Principal:
        if self.failure is not None:
            raise self.failure
        return Principal(key_id="k", scope=Scope("acme"), role=Role.UI)


def app(failure: BaseException | None, **settings: Any) -> Starlette:
    runtime = SimpleNamespace(settings=Settings(_env_file=None, **settings), api_keys=Keys(failure))
    view = KenningGraphQL(
        {"runtime": cast(Runtime, runtime)}, unavailable_part, schema=build_schema()
    )
    return Starlette(routes=[Route("/graphql", view.handle_http, methods=["GET", "POST"])])


async def post(target: Starlette, content: bytes) -> httpx.Response:
    transport = httpx.ASGITransport(app=target)
    async with httpx.AsyncClient(transport=transport, base_url="http://kenning") as client:
        return await client.post(
            "/graphql",
            content=content,
            headers={"Authorization": "Bearer kn_x", "Content-Type": "application/json"},
        )


QUERY = b'{"query": "{ viewer { role } }"}'


async def test_an_unexpected_failure_is_a_masked_graphql_500() -> None:
    answer = await post(app(RuntimeError("SELECT secret FROM keys")), QUERY)
    assert answer.status_code == 500
    [error] = answer.json()["errors"]
    assert error["extensions"]["code"] == "INTERNAL_SERVER_ERROR"
    assert "secret" not in answer.text


async def test_postgres_down_while_checking_a_key_is_a_503_naming_it() -> None:
    answer = await post(app(ConnectionRefusedError(111, "refused")), QUERY)
    assert answer.status_code == 503 and answer.headers["retry-after"]
    [error] = answer.json()["errors"]
    assert (error["extensions"]["code"], error["extensions"]["part"]) == (
        "SERVICE_UNAVAILABLE",
        "postgres",
    )


@pytest.mark.parametrize("chunked", [False, True])
async def test_a_body_over_the_limit_is_a_413(chunked: bool) -> None:
    body = b'{"query": "{ viewer { role } }", "variables": {"x": "' + b"a" * 5000 + b'"}}'

    async def pieces() -> Any:
        for start in range(0, len(body), 1000):
            yield body[start : start + 1000]

    target = app(None, max_request_bytes=2048)
    transport = httpx.ASGITransport(app=target)
    async with httpx.AsyncClient(transport=transport, base_url="http://kenning") as client:
        answer = await client.post(
            "/graphql",
            content=pieces() if chunked else body,
            headers={"Authorization": "Bearer kn_x", "Content-Type": "application/json"},
        )
    assert answer.status_code == 413
    assert answer.json()["errors"][0]["extensions"]["code"] == "PAYLOAD_TOO_LARGE"
