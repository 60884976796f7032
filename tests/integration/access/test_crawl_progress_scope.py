"""Crawl jobs and their live progress follow the scope rule: a crawl requested at each row
of the scope table, its counts on the progress board, and each reader kind sees exactly the
crawl jobs (and their ``progress``) of the rows it may read, through ``jobs`` and
``ingestionStatus``."""

from __future__ import annotations

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.queue.jobs import IngestionIdentity
from kenning.domain.queue.ports import NewJob
from kenning.domain.sources.code.progress import RepositoryProgress
from kenning.domain.sources.code.repository_request import REPOSITORY_TASK
from kenning.domain.sources.crawl import CrawlProgress
from tests.support.graph_data import scope_input
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import principal
from tests.support.leaks.scope_table import READERS, ROWS

pytestmark = pytest.mark.integration

CRAWL = """mutation($input: CrawlInput!) { crawl(input: $input) {
  __typename ... on IngestionHandle { jobId } ... on Error { code message } } }"""
JOBS = "{ jobs(first: 100) { nodes { sourceId progress { stored } } } }"
ONE = "query($id: ID!) { ingestionStatus(jobId: $id) { sourceId progress { stored } } }"


def url_of(row: str) -> str:
    return "https://docs.example.com/" + "-".join(row.replace(",", "").replace("'", "").split())


@pytest.fixture
async def crawls(api: Api, clean: None) -> dict[str, str]:
    """Row → the id of the crawl job requested at its scope, with progress on the board."""
    jobs = {}
    for index, (row, (scope, _)) in enumerate(ROWS.items()):
        handle = await api(CRAWL, input={"url": url_of(row), "scope": scope_input(scope)})
        assert handle["crawl"]["__typename"] == "IngestionHandle", handle
        job = await api.runtime.queue.jobs.get(handle["crawl"]["jobId"], Scope())
        assert job is not None and job.scope.client_id == scope.client_id
        await api.runtime.crawl_progress.put(job, CrawlProgress(fetched=index, stored=index + 1))
        jobs[row] = job.id
    return jobs


@pytest.mark.parametrize("name", list(READERS))
async def test_each_reader_sees_exactly_the_crawls_and_progress_of_its_rows(
    api: Api, crawls: dict[str, str], name: str
) -> None:
    reader, expected = READERS[name]
    reading = api.as_(principal(reader))
    wanted = {url_of(row): list(ROWS).index(row) + 1 for row in expected}
    listed = (await reading(JOBS))["jobs"]["nodes"]
    assert {job["sourceId"]: job["progress"]["stored"] for job in listed} == wanted
    one = {}
    for job_id in crawls.values():
        found = (await reading(ONE, id=job_id))["ingestionStatus"]
        if found is not None:
            one[found["sourceId"]] = found["progress"]["stored"]
    assert one == wanted


FILES = "{ jobs(first: 100) { nodes { sourceUrn repositoryProgress { planned } } } }"


@pytest.fixture
async def repositories(api: Api, crawls: dict[str, str]) -> None:
    """A repository job queued at each row's scope as its crawl's request settled it (the
    job's own request needs a reachable repository; what is read here is the job), with
    file counts on its board."""
    for index, (row, crawl_id) in enumerate(crawls.items()):
        crawl = await api.runtime.queue.jobs.get(crawl_id, Scope())
        assert crawl is not None
        name = url_of(row).rsplit("/", 1)[-1].lower()
        identity = IngestionIdentity(REPOSITORY_TASK, f"{name}#main", "c1")
        new = NewJob(identity, crawl.scope, 4, f"code:{name}@main", None, {})
        handle = await api.runtime.queue.jobs.enqueue(new)
        job = await api.runtime.queue.jobs.get(handle.job_id, Scope())
        assert job is not None and job.source_kind == REPOSITORY_TASK
        await api.runtime.repository_progress.put(job, RepositoryProgress(planned=index + 1))


@pytest.mark.parametrize("name", list(READERS))
async def test_each_reader_sees_exactly_the_repository_progress_of_its_rows(
    api: Api, repositories: None, name: str
) -> None:
    reader, expected = READERS[name]
    listed = (await api.as_(principal(reader))(FILES))["jobs"]["nodes"]
    found = [job for job in listed if job["sourceUrn"].startswith("code:")]
    seen = sorted(job["repositoryProgress"]["planned"] for job in found)
    assert seen == sorted(list(ROWS).index(row) + 1 for row in expected)
