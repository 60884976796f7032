"""ingestRepository through the API and the bulk lane's jobs run in process: what the
repository tests ask and how they run what was queued."""

from __future__ import annotations

from typing import Any

from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.runtime import Runtime
from tests.support.graphql_api import Api

INGEST_REPO = """mutation R($input: IngestRepositoryInput!) { ingestRepository(input: $input) {
  __typename ... on IngestionHandle { jobId status } ... on Error { code field message } } }"""


async def ingest_repo(api: Api, **input: Any) -> dict[str, Any]:
    """``ingestRepository``'s result for ``input``."""
    result: dict[str, Any] = (await api(INGEST_REPO, input=input))["ingestRepository"]
    return result


async def run_queue(runtime: Runtime) -> list[JobStatus | None]:
    """Run every due bulk job once, as a worker of the bulk lane would."""
    ran = []
    while (claimed := await runtime.queue.work.claim(Lane.BULK, "test/repo", 60)) is not None:
        ran.append(await run_job(claimed, runtime.queue.work, runtime.job_deps()))
    return ran
