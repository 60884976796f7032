"""The erasure's storage: one transaction that finds and removes or rewrites every row of a
client naming a subject (``erasure_unit.py``), the rows it rewrites column by column
(``redacted_columns.py``), the graph's part (``graph_erasure_sql.py``), and the receipts and
tombstones tables (``receipts.py``)."""
