"""The GraphQL multipart request spec as a client sends it (``ingestFile``), and the app
run in process with keys of two tenants."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx

from kenning.app import create_app
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from tests.support.counting_embedder import CountingEmbedder

INGEST_FILE = """mutation F($file: Upload!, $input: IngestFileInput) {
  ingestFile(file: $file, input: $input) {
    __typename
    ... on IngestFileSuccess { job { jobId status } file { id filename mediaType size sha256
                               sourceUrn downloadUrl } }
    ... on FileRejected { code field problem detected message }
    ... on Error { code field message } } }"""
PREFLIGHT = {"Apollo-Require-Preflight": "true"}
JOB_STATUS = """query S($id: ID!) { ingestionStatus(jobId: $id) { status lastError } }"""


def multipart(query: str, filename: str, data: bytes, **variables: Any) -> dict[str, Any]:
    """httpx arguments of one upload bound to ``$file``."""
    operations = {"query": query, "variables": {**variables, "file": None}}
    return {
        "data": {
            "operations": json.dumps(operations),
            "map": json.dumps({"0": ["variables.file"]}),
        },
        "files": {"0": (filename, data, "application/octet-stream")},
    }


@dataclass
class Uploads:
    """The running app and a client with one key per tenant."""

    http: httpx.AsyncClient
    keys: dict[str, str]

    def auth(self, tenant: str | None) -> dict[str, str]:
        return {} if tenant is None else {"Authorization": f"Bearer {self.keys[tenant]}"}

    async def upload(
        self, filename: str, data: bytes, tenant: str = "acme", **input: Any
    ) -> dict[str, Any]:
        answer = await self.http.post(
            "/graphql", headers={**self.auth(tenant), **PREFLIGHT},
            **multipart(INGEST_FILE, filename, data, input=input or None),
        )  # fmt: skip
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert "errors" not in body, body
        result: dict[str, Any] = body["data"]["ingestFile"]
        return result

    async def finished(self, job_id: str, tenant: str = "acme") -> dict[str, Any]:
        """The job's status and last error once it is no longer queued or running."""
        for _ in range(1200):
            job: dict[str, Any] = (await self.graphql(JOB_STATUS, tenant, id=job_id))[
                "ingestionStatus"
            ]
            if job["status"] not in ("QUEUED", "RUNNING"):
                return job
            await asyncio.sleep(0.05)
        raise AssertionError(f"job {job_id} did not finish")

    async def graphql(self, query: str, tenant: str = "acme", **variables: Any) -> dict[str, Any]:
        answer = await self.http.post(
            "/graphql", json={"query": query, "variables": variables}, headers=self.auth(tenant)
        )
        body: dict[str, Any] = answer.json()
        assert "errors" not in body, body
        data: dict[str, Any] = body["data"]
        return data


@asynccontextmanager
async def running_uploads(
    settings: Settings, pool: asyncpg.Pool, embedder: CountingEmbedder | None = None
) -> AsyncIterator[Uploads]:
    """``create_app`` with its lifespan (its queue worker runs the jobs), agents of acme
    and globex."""
    store = PgApiKeys(pool)
    keys = {
        tenant: (await store.create(Scope(tenant), Role.AGENT, "files-test"))[0]
        for tenant in ("acme", "globex")
    }
    app = create_app(settings, embedder=embedder or CountingEmbedder(settings.embedding_dim))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://kenning.test", timeout=60
        ) as http:
            yield Uploads(http, keys)
