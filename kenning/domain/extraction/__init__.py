"""Knowledge a model structures: free text turned into pieces and graph
(``structureKnowledge``, with a check-in record for audit), and entities and relations
extracted from ingested chunks, every edge citing its chunk as evidence.

Read first: ``mode.py`` (NONE or LLM per request), then the use cases beside it.
"""
