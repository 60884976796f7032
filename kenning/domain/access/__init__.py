"""Who is calling and what they may see: the principal an API key resolves to, the
hierarchical scope rule (client, project, group; project groups), and API key management.

Read first: ``scope.py`` (``Scope.can_see``, ``narrows_to``, ``owns``), then ``principal.py``.
"""
