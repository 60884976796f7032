"""The ingestion queue: requests become jobs in priority lanes, workers claim them in order,
run them with backoff on operational failures, and every change is published as a status feed.

Read first: ``jobs.py`` (the job model), ``requests.py`` (enqueueing), ``runner.py`` and
``worker.py`` (running), ``ports.py`` (what storage implements), ``status_feed.py``. The
entries GraphQL and MCP share: ``ingestion_request.py`` (queueing a document) and
``job_reads.py`` (jobs, pages of them and the live subscriptions).
"""
