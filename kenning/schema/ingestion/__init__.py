"""GraphQL types of the write mutations (``ingest``, ``ingestGraph``, ``ingestGitCommits``,
aliases, purge).

Read first: ``ingest.py``.
"""
