"""The design's example knowledge file (003 §Path B), as tests load it."""

from __future__ import annotations

from typing import Any

# 003-knowledge-integration.md, Path B, as the design writes it.
DESIGN_EXAMPLE: dict[str, Any] = {
    "metadata": {
        "user:alice": {
            "entity_type": "user",
            "properties": {"specialization": "turbomachinery", "team": "aero"},
        }
    },
    "pieces": [
        {
            "piece_id": "les-rans-init",
            "content": "Initialize transient LES from converged RANS -- cuts spin-up by ~40%",
            "knowledge_type": "procedure",
            "info_type": "instructions",
            "tags": ["les", "initialization", "rans"],
            "entity_id": "user:alice",
            "embedding_text": "LES RANS initialization spin-up transient",
        }
    ],
    "graph": {
        "nodes": [
            {"node_id": "user:alice", "node_type": "user", "label": "Alice"},
            {"node_id": "technique:les", "node_type": "technique", "label": "LES"},
        ],
        "edges": [
            {
                "source_id": "user:alice",
                "target_id": "technique:les",
                "edge_type": "SPECIALIZES_IN",
                "properties": {"piece_id": "les-rans-init"},
            }
        ],
    },
}
