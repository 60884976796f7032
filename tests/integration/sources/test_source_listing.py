"""``sources`` and ``storedFiles`` on the real stack: each reader lists exactly the sources
its key may see (narrowed or not), page by page without gaps or repeats, filtered by kind,
source kind, connection and URN prefix (another client's connection lists nothing); every
bad argument is refused naming its field, through variables; an uploaded file appears with
its original, a file sent through a connection carries it, and a connection the uploader
may not name stores nothing."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.file_uploads import Uploads
from tests.support.graphql_api import Api
from tests.support.source_listing import SOURCES, every_source, ingest, register, urns

pytestmark = pytest.mark.integration

FILES = """query F($first: Int!, $after: String) { storedFiles(first: $first, after: $after) {
  nodes { id sourceUrn filename scope { clientId } } endCursor hasNextPage } }"""
FILE_SOURCES = """{ sources(filter: {urnPrefix: "file:"}) { nodes { sourceUrn sourceKind
  connectionId storedFile { id filename } } } }"""


def key(client: str, project: str = "") -> Principal:
    return Principal(key_id=f"k-{client}-{project}", scope=Scope(client, project), role=Role.AGENT)


ACME, ACME_P1, GLOBEX = key("acme"), key("acme", "p1"), key("globex")


@pytest.fixture
async def stored(api: Api) -> Api:
    """Sources of two clients at three scopes, one through acme's connection ``wiki``."""
    await register(api.as_(ACME), "wiki")
    for urn, scope, kind in (
        ("doc:a", {"clientId": "acme"}, "note"),
        ("doc:b", {"clientId": "acme", "projectId": "p1"}, "spec"),
        ("doc:c", {"clientId": "acme", "projectId": "p2"}, "note"),
        ("web:d", {"clientId": "acme"}, "note"),
        ("doc:g", {"clientId": "globex"}, "note"),
    ):
        await ingest(api, urn, f"The text of {urn}.", kind, scope=scope)
    await ingest(
        api.as_(ACME), "doc:w", "From the wiki.", "page", connectionId="wiki", sourceKind="page"
    )
    return api


async def test_each_key_lists_exactly_what_it_may_see_page_by_page(stored: Api) -> None:
    acme, p1, globex = stored.as_(ACME), stored.as_(ACME_P1), stored.as_(GLOBEX)
    everything = ["doc:a", "doc:b", "doc:c", "doc:w", "web:d"]
    assert await urns(acme, urnPrefix="doc:") == everything[:4]
    assert await urns(p1, urnPrefix="doc:") == ["doc:a", "doc:b", "doc:w"]
    assert await urns(globex, urnPrefix="doc:") == ["doc:g"]
    one_by_one = [s["sourceUrn"] for s in await every_source(acme, first=1, urnPrefix="doc:")]
    assert one_by_one == everything[:4]
    narrowed = await acme(SOURCES, first=50, scope={"clientId": "acme", "projectId": "p1"})
    assert [s["sourceUrn"] for s in narrowed["sources"]["nodes"]] == [
        "doc:a",
        "doc:b",
        "doc:w",
        "web:d",
    ]
    b = (await every_source(acme, urnPrefix="doc:b"))[0]
    assert (b["kind"], b["chunkCount"], b["scope"]) == (
        "spec",
        1,
        {"clientId": "acme", "projectId": "p1", "groupId": ""},
    )
    assert b["indexedAt"] and b["storedFile"] is None


async def test_filters_narrow_and_another_clients_connection_lists_nothing(stored: Api) -> None:
    acme, globex = stored.as_(ACME), stored.as_(GLOBEX)
    assert await urns(acme, kinds=["spec", "page"]) == ["doc:b", "doc:w"]
    wiki = await every_source(acme, connectionIds=["wiki"])
    assert [(s["sourceUrn"], s["sourceKind"], s["connectionId"]) for s in wiki] == [
        ("doc:w", "page", "wiki")
    ]
    assert await urns(acme, sourceKinds=["page"]) == ["doc:w"]
    assert await urns(acme, urnPrefix="web:") == ["web:d"]
    assert await urns(acme, kinds=[]) == []
    assert await every_source(globex, connectionIds=["wiki"]) == []
    assert await every_source(globex, connectionIds=["nothing-here"]) == []


@pytest.mark.parametrize(
    ("variables", "field"),
    [
        ({"first": 0}, "first"),
        ({"first": 201}, "first"),
        ({"after": "not a cursor"}, "after"),
        ({"filter": {"urnPrefix": ""}}, "urnPrefix"),
        ({"filter": {"kinds": [str(i) for i in range(101)]}}, "kinds"),
        ({"filter": {"connectionIds": ["ok", "x" * 2049]}}, "connectionIds"),
    ],
)
async def test_a_bad_argument_is_refused_naming_its_field(
    stored: Api, variables: dict[str, Any], field: str
) -> None:
    result = await stored.as_(ACME).execute(SOURCES, **{"first": 10, **variables})
    assert result.errors is not None and result.data is None
    extensions = result.errors[0].extensions or {}
    assert (extensions.get("code"), extensions.get("field")) == ("BAD_USER_INPUT", field)


async def test_a_cursor_of_another_listing_is_refused(stored: Api) -> None:
    acme = stored.as_(ACME)
    page = (await acme(SOURCES, first=1))["sources"]
    result = await acme.execute(FILES, first=1, after=page["endCursor"])
    assert result.errors is not None
    assert (result.errors[0].extensions or {}).get("field") == "after"


async def test_an_upload_is_listed_with_its_original_and_through_its_connection(
    uploads: Uploads, pool: asyncpg.Pool
) -> None:
    sent = await uploads.upload("notes.txt", b"Plain notes about the billing service.\n")
    assert (await uploads.finished(sent["job"]["jobId"]))["status"] == "INDEXED"
    register = """mutation { registerConnection(input: {connectionId: "drive",
        authority: "custom", label: "Drive", allowedSourceKinds: ["file"]}) { __typename } }"""
    assert (await uploads.graphql(register))["registerConnection"]["__typename"] == (
        "RegisterConnectionSuccess"
    )
    through = await uploads.upload("drive.txt", b"A file from the drive.\n", connectionId="drive")
    assert (await uploads.finished(through["job"]["jobId"]))["status"] == "INDEXED"
    foreign = await uploads.upload("x.txt", b"Not theirs.\n", "globex", connectionId="drive")
    assert (foreign["__typename"], foreign["field"]) == ("ValidationError", "connectionId")

    listed = (await uploads.graphql(FILE_SOURCES))["sources"]["nodes"]
    assert [(s["sourceUrn"], s["sourceKind"], s["connectionId"]) for s in listed] == [
        ("file:drive.txt", "file", "drive"),
        ("file:notes.txt", None, None),
    ]
    assert [s["storedFile"]["id"] for s in listed] == [through["file"]["id"], sent["file"]["id"]]
    files = (await uploads.graphql(FILES, first=1))["storedFiles"]
    assert [f["filename"] for f in files["nodes"]] == ["drive.txt"] and files["hasNextPage"]
    rest = (await uploads.graphql(FILES, first=1, after=files["endCursor"]))["storedFiles"]
    assert [f["filename"] for f in rest["nodes"]] == ["notes.txt"] and not rest["hasNextPage"]
    assert (await uploads.graphql(FILES, "globex", first=50))["storedFiles"]["nodes"] == []
    assert await pool.fetchval("SELECT count(*) FROM source_files WHERE client_id = 'globex'") == 0
