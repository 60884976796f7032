"""GraphQL types of the ingestion queue: handles, jobs, pages, status and control results.

Read first: ``types.py``.
"""
