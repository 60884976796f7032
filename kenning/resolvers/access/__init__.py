"""Resolvers of who is calling (``viewer``) and of API key management, and the one place a
request's scope is decided.

Read first: ``scope.py``.
"""
