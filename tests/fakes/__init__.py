"""One fake per port, shared by every test: import them from here, never from a test module.

Each module is named by the port it fakes (``embedder``, ``knowledge_store``, ``chunk_index``,
``work_queue``, ``event_source``, ``job_reader``, ``queue_reader``, ``graph_reader``, ...).
"""
