"""Resolvers of the ingestion queue: requests, listing and control of jobs, and the live
``queueStatus`` and ``ingestionProgress`` subscriptions.

Read first: ``jobs.py``, then ``subscriptions.py``.
"""
