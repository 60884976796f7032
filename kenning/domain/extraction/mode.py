"""Whether an ingest asks a model for the graph of its chunks."""

from __future__ import annotations

from enum import StrEnum


class ExtractionMode(StrEnum):
    """NONE stores only what the writer gave; LLM also extracts entities and relations
    from every chunk in the background lane (an EXTRACTING stage after STORING)."""

    NONE = "NONE"
    LLM = "LLM"
