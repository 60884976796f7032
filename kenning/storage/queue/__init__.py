"""The ingestion queue in PostgreSQL and Redis: jobs claimed with ``SKIP LOCKED`` under leases,
wake-ups and status events over Redis, the queue snapshot and the worker registry.

Read first: ``job_queue.py``, then ``job_leases.py`` and ``event_bus.py``.
"""
