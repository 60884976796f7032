"""Resolvers of the sources feature: files (``ingestFile``), web crawls and code
repositories, each queued as one job that a registered task runner runs.

One module per source: ``files.py``, ``crawl.py``, ``code.py``.
"""
