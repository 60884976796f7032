"""GraphQL types of knowledge a model structures: ``structureKnowledge`` (free text to
pieces and graph), its check-ins (``checkIns``), and the errors of a model call.

Read first: ``structure.py``.
"""
