"""Every priority Kenning gives work, in one place.

Two scales share these numbers. The job queue's, 0 (first) to ``MAX_PRIORITY``: 0 to
``PRIORITY_LANE_MAX`` is the priority lane (agents and the orchestrator wait on it), 3 and
above the bulk lane (sources, background memory). The model router's, for each model call a
job or a request makes: 0 critical (a user waiting in a chat), 1 interactive (an agent's own
call, a search's query embedding), 2 vision, 3 and above background; interactive work takes the
GPU and preempts background work, which falls back to CPU.
"""

from __future__ import annotations

from typing import Final

# The queue's bounds.
PRIORITY_LANE_MAX: Final = 2
MAX_PRIORITY: Final = 9

# The priority lane, ahead of every agent write: an erasure must not wait behind them.
ERASURE_PRIORITY: Final = 0
# ``ingest`` and memory writes are what agents call and wait for.
INGEST_PRIORITY: Final = 1
# A query's embedding is interactive, so it goes before bulk work (3); it is not 0, which
# is kept for a user waiting in a chat.
QUERY_PRIORITY: Final = 1

# The bulk lane. Embeddings are background work unless the caller says otherwise.
BACKGROUND_PRIORITY: Final = 3
# Queued documents (requestIngestion(s)) and extraction-only jobs: behind nothing an agent
# waits for.
QUEUED_PRIORITY: Final = 3
EXTRACTION_PRIORITY: Final = 3
# A connection's summary document.
SUMMARY_PRIORITY: Final = 3
# An uploaded file, unless the caller gives another.
FILE_PRIORITY: Final = 3
# Remembering a task or promoting a session entry must never delay an agent's own writes.
TASK_OUTCOME_PRIORITY: Final = 4
PROMOTION_PRIORITY: Final = 4
# A repository ingest and a crawl, unless the caller gives another: the longest bulk work.
REPOSITORY_PRIORITY: Final = 5
CRAWL_PRIORITY: Final = 6
