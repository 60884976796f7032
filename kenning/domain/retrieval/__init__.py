"""Finding knowledge: hybrid search (vector and keyword arms fused by their scores, or by
reciprocal rank when asked), evidence packs and the deterministic agent context built from
them.

Read first: ``search.py``, then ``fusion.py`` (HYBRID's default) and ``rank_fusion.py``,
``evidence.py`` and ``agent_context.py`` (with its graph layer, ``context_graph.py``, and its
formatter, ``context_format.py``); every face searches through ``search_service.py`` and asks
for evidence through ``evidence_request.py``.
"""
