"""The MCP crawl tools in process on the real stack: ``crawl`` queues the job GraphQL's
``crawl`` queues (the same job for the same spec), refuses a bad spec naming the field,
``crawl_status`` answers the counts after a run and nothing to another client."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from kenning.domain.access.principal import Principal
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.mcp.auth import CALLER, Caller
from kenning.mcp.crawl_tools import crawl_status_tool, crawl_tool
from kenning.mcp.server import TOOLS
from kenning.runtime import Runtime
from tests.support.graphql_api import Api
from tests.support.loopback_site import serving_site
from tests.support.queue_api import agent

pytestmark = pytest.mark.integration

CRAWL = """mutation C($input: CrawlInput!) { crawl(input: $input) {
  __typename ... on IngestionHandle { jobId status } } }"""


def ctx(runtime: Runtime, principal: Principal) -> Any:
    """The tool context the MCP transport hands a tool, with the admitted caller."""
    request = SimpleNamespace(scope={CALLER: Caller(runtime, principal)})
    return SimpleNamespace(request_context=SimpleNamespace(request=request))


async def test_crawl_tools_queue_the_graphql_job_and_report_its_counts(runtime: Runtime) -> None:
    assert {"crawl", "crawl_status"} <= {tool.name for tool in TOOLS}
    acme, globex = ctx(runtime, agent("acme")), ctx(runtime, agent("globex"))
    async with serving_site() as site:
        queued = await crawl_tool(acme, url=site.base + "/", max_depth=1)
        assert queued["status"] == "QUEUED" and queued["position"] == 1
        spec = {"url": site.base + "/", "maxDepth": 1}
        same = (await Api(runtime, agent("acme"))(CRAWL, input=spec))["crawl"]
        assert (same["__typename"], same["jobId"]) == ("IngestionHandle", queued["jobId"])
        claimed = await runtime.queue.work.claim(Lane.BULK, "test/tools", 60)
        assert claimed is not None
        # The test runtime refuses private addresses: the start page on loopback fails.
        assert await run_job(claimed, runtime.queue.work, runtime.job_deps()) is JobStatus.FAILED
    status = await crawl_status_tool(acme, job_id=queued["jobId"])
    assert status["status"] == "FAILED" and status["url"] == site.base + "/"
    assert "KENNING_CRAWL_ALLOW_PRIVATE" in status["lastError"]
    with pytest.raises(ToolError, match="NOT_FOUND"):
        await crawl_status_tool(globex, job_id=queued["jobId"])


async def test_a_bad_spec_is_a_tool_error_naming_the_field(runtime: Runtime) -> None:
    acme = ctx(runtime, agent("acme"))
    with pytest.raises(ToolError, match="maxDepth"):
        await crawl_tool(acme, url="https://docs.example.com/", max_depth=50)
    with pytest.raises(ToolError, match="priority"):
        await crawl_tool(acme, url="https://docs.example.com/", priority=0)
    assert await runtime.pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 0
