"""Local embedder throughput: cold load time, then paragraphs/s at batch 1, 16 and 32.

Run: ``.venv/bin/python bench/embed_local.py [corpus.jsonl] [--count 200]``; the corpus is
BEIR-style JSON lines with a ``text`` field (default: shared/data/scifact/corpus.jsonl).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from kenning.storage.embedders.local import LocalEmbedder, load_minilm

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared/data/scifact/corpus.jsonl"
BATCH_SIZES = (1, 16, 32)


def paragraphs(corpus: Path, count: int) -> list[str]:
    """The first ``count`` non-empty ``text`` fields of the corpus."""
    texts: list[str] = []
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            text = str(json.loads(line).get("text", "")).strip()
            if text:
                texts.append(text)
            if len(texts) == count:
                break
    return texts


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args()
    texts = paragraphs(args.corpus, args.count)
    mean_chars = sum(map(len, texts)) / len(texts)
    print(f"{len(texts)} paragraphs from {args.corpus}, {mean_chars:.0f} characters on average")

    started = time.perf_counter()
    load_minilm()  # imports torch and sentence-transformers, loads the weights, one probe
    print(f"cold load: {time.perf_counter() - started:.2f} s")

    await LocalEmbedder().embed(texts[:8])  # first forward passes allocate; keep them out
    for size in BATCH_SIZES:
        embedder = LocalEmbedder(batch_size=size)
        started, cpu_started = time.perf_counter(), time.process_time()
        vectors = await embedder.embed(texts)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
        assert len(vectors) == len(texts)
        # CPU seconds per wall second below the core count means other work took the cores.
        print(
            f"batch {size:>2}: {len(texts) / elapsed:6.1f} paragraphs/s"
            f" ({elapsed:.2f} s wall, {cpu / elapsed:.2f} cores busy)"
        )


if __name__ == "__main__":
    asyncio.run(main())
