"""Resolvers of knowledge a model structures: ``structureKnowledge`` and ``checkIns``, and
the union members of a model call's errors.

Read first: ``structure.py``.
"""
