"""Reading the AGE graph and the chunks behind it, scoped by the visibility SQL.

Read first: ``reader.py`` (``PgGraphReader``), then ``read_sql.py``, ``find_sql.py`` and
``chunk_reads.py``.
"""
