"""Stored originals follow the scope rule: a file uploaded at each row of the scope table,
and each reader kind sees exactly the files of the rows it may read, through ``storedFile``,
through the ``storedFiles`` listing and through ``GET /files/{id}`` with a real key of its
scope (a hidden file answers the same 404 as an unknown id)."""

from __future__ import annotations

import io
import uuid
from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest
from starlette.applications import Starlette
from starlette.datastructures import UploadFile

from kenning.domain.access.principal import Role
from kenning.graphql.http.file_download import file_routes
from kenning.storage.access.api_keys import PgApiKeys
from tests.support.file_samples import text_pdf
from tests.support.graph_data import scope_input
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import principal
from tests.support.leaks.scope_table import READERS, ROWS

pytestmark = pytest.mark.integration

UPLOAD = """mutation($file: Upload!, $input: IngestFileInput) { ingestFile(file: $file,
  input: $input) { __typename ... on IngestFileSuccess { file { id } }
  ... on Error { code message } } }"""
STORED = "query($id: ID!) { storedFile(id: $id) { id sourceUrn } }"
LISTED = """{ storedFiles(first: 200) { hasNextPage nodes { id sourceUrn } }
  sources(first: 200) { nodes { sourceUrn } } }"""


def urn_of(row: str) -> str:
    return "file:" + "-".join(row.replace(",", "").replace("'", "").split())


@pytest.fixture
async def stored(api: Api, pool: asyncpg.Pool) -> dict[str, str]:
    """Row → the id of the file uploaded at its scope."""
    await pool.execute("DELETE FROM source_files")
    ids = {}
    for row, (scope, _) in ROWS.items():
        upload = UploadFile(io.BytesIO(text_pdf([f"Row {row}"])), filename="row.pdf")
        input = {"sourceUrn": urn_of(row), "scope": scope_input(scope)}
        result = (await api(UPLOAD, file=upload, input=input))["ingestFile"]
        assert result["__typename"] == "IngestFileSuccess", result
        ids[row] = result["file"]["id"]
    return ids


@pytest.fixture
async def http(api: Api) -> AsyncIterator[httpx.AsyncClient]:
    app = Starlette(routes=file_routes({"runtime": api.runtime}, lambda error: None))
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://kenning.test"
    ) as client:
        yield client


@pytest.mark.parametrize("name", list(READERS))
async def test_each_reader_sees_and_downloads_exactly_the_files_of_its_rows(
    api: Api, pool: asyncpg.Pool, http: httpx.AsyncClient, stored: dict[str, str], name: str
) -> None:
    reader, expected = READERS[name]
    reading = api.as_(principal(reader))
    seen = set()
    for row, file_id in stored.items():
        found = (await reading(STORED, id=file_id))["storedFile"]
        if found is not None:
            assert found["sourceUrn"] == urn_of(row)
            seen.add(row)
    assert seen == expected
    listed = await reading(LISTED)
    by_id = {file_id: row for row, file_id in stored.items()}
    files = listed["storedFiles"]["nodes"]
    assert {by_id[f["id"]] for f in files} == expected and len(files) == len(expected)
    # Its uploads are not indexed yet: no source of them exists to list.
    assert listed["sources"]["nodes"] == []
    key, _ = await PgApiKeys(pool).create(reader, Role.UI, "files-leak")
    auth = {"Authorization": f"Bearer {key}"}
    unknown = await http.get(f"/files/{uuid.uuid4()}", headers=auth)
    assert unknown.status_code == 404
    downloaded = set()
    for row, file_id in stored.items():
        answer = await http.get(f"/files/{file_id}", headers=auth)
        if answer.status_code == 200:
            assert answer.content.startswith(b"%PDF-")
            downloaded.add(row)
        else:
            assert (answer.status_code, answer.json()) == (404, unknown.json())
    assert downloaded == expected
