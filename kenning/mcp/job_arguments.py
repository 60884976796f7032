"""Arguments of the job tools (``job_tools.py``), with their descriptions."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from kenning.domain.queue.jobs import JobOrder, JobStatus, Lane

JobId = Annotated[str, Field(description="The job id a queueing tool answered (jobId).")]
Statuses = Annotated[
    list[JobStatus] | None, Field(description="Only jobs in these statuses (omit: any).")
]
LaneArg = Annotated[Lane | None, Field(description="Only jobs of this lane.")]
SourceUrn = Annotated[str | None, Field(description="Only jobs of this source.")]
ConnectionId = Annotated[str | None, Field(description="Only jobs of this connection.")]
First = Annotated[int, Field(description="How many jobs, 1..500.")]
After = Annotated[str | None, Field(description="The endCursor of the previous page.")]
OrderBy = Annotated[
    JobOrder,
    Field(description="NEWEST first, or CLAIM_ORDER (QUEUED jobs as workers take them)."),
]
