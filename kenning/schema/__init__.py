"""Strawberry types and the schema factory (``build.py``: ``build_schema()``, read first).

One sub-package per feature (as in domain/), with ``errors.py`` (the union members every
feature shares), the root types (``query.py``, ``mutation.py``, ``subscription.py``) and
``execution/`` (how a document is checked and run). The package imports nothing on import, so
a resolver module can import its types without pulling in the whole schema.
"""
