"""Resolvers of the write mutations: ``ingest``, ``ingestGraph``, ``ingestGitCommits``,
aliases and purging.

Read first: ``ingest.py``.
"""
