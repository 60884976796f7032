"""Thin resolvers: the caller's scope and arguments in, a domain call, GraphQL types out.

One sub-package per feature (as in domain/); ``context.py`` (the per-request context),
``errors.py`` (domain errors to union members, in one place) and ``loaders/`` are shared.
"""
