"""Crawl throughput: pages/s of ``crawl`` over ``SafeFetcher`` on a generated loopback site.

Run from the repository root::

    .venv/bin/python -m bench.crawl [--pages 200] [--rounds 3] [--concurrency 4]

A site of ``--pages`` pages (prose, navigation, footer, and links to a few other pages in
the text) is served by uvicorn on 127.0.0.2 in this process. Each round crawls it whole
with the rate limit off (``allow_private=True``, ``min_interval=0``): robots.txt, address
checks, trafilatura extraction and the frontier included. The baseline is plain httpx
GETs of the same pages, as many at once as the crawl's concurrency, with no extraction.
Then (unless ``--no-job``) the whole crawl job as a worker runs it, storing every page in
PostgreSQL (hash embedder), and the unchanged re-crawl (``bench/_crawl_job.py``).
Results go to stdout and ``bench/results/crawl.json``; only loopback is used.
"""

import argparse
import asyncio
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from bench._crawl_job import end_to_end, fresh_database
from kenning.domain.sources.crawl import FetchedPage, crawl, crawl_spec
from kenning.storage.sources.crawl import SafeFetcher
from tests.support.loopback_site import page, serving_site

RESULTS = Path(__file__).resolve().parent / "results" / "crawl.json"
_PROSE = (
    "The ingestion queue orders jobs by lane and priority, and a worker leases each job "
    "with a heartbeat so that a crashed worker's jobs return to the queue. "
)


def generated_site(count: int) -> dict[str, str]:
    """``count`` pages; page i links to i+1, i+2 and i*2 in its text, so BFS reaches all."""
    pages: dict[str, str] = {}
    for i in range(count):
        targets = [j for j in (i + 1, i + 2, i * 2) if j < count and j != i]
        links = " ".join(f"<a href='/p/{j}'>page {j}</a>" for j in targets)
        body = "".join(f"<p>{_PROSE * 3}Section {k} of page {i}.</p>" for k in range(4))
        pages["/" if i == 0 else f"/p/{i}"] = page(f"Page {i}", f"{body}<p>See {links}.</p>")
    return pages


class CountingSink:
    def __init__(self) -> None:
        self.pages = 0
        self.characters = 0

    async def store(self, fetched: FetchedPage, crawled: Mapping[str, str]) -> None:
        self.pages += 1
        self.characters += len(fetched.text)


async def crawl_round(base: str, count: int, concurrency: int) -> tuple[float, int, int]:
    """Seconds, pages stored and characters extracted for one whole crawl."""
    spec = crawl_spec(base + "/", max_depth=20, max_pages=count + 10)
    sink = CountingSink()
    started = time.perf_counter()
    async with SafeFetcher(allow_private=True, min_interval=0) as fetcher:
        await crawl(spec, fetcher, sink, concurrency=concurrency)
    return time.perf_counter() - started, sink.pages, sink.characters


async def baseline_round(base: str, paths: list[str], concurrency: int) -> float:
    """Seconds to GET every path with plain httpx, ``concurrency`` at a time."""
    gate = asyncio.Semaphore(concurrency)
    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=base, trust_env=False) as client:

        async def get(path: str) -> None:
            async with gate:
                (await client.get(path)).raise_for_status()

        await asyncio.gather(*(get(p) for p in paths))
    return time.perf_counter() - started


async def run(count: int, rounds: int, concurrency: int, job: bool = True) -> dict[str, Any]:
    pages = generated_site(count)
    crawls: list[float] = []
    plains: list[float] = []
    async with serving_site(pages) as site:
        for _ in range(rounds):
            seconds, stored, characters = await crawl_round(site.base, count, concurrency)
            if stored != count:
                raise SystemExit(f"the crawl stored {stored} pages of {count}")
            crawls.append(seconds)
            plains.append(await baseline_round(site.base, list(pages), concurrency))
        job_result = await end_to_end(site.base, count, concurrency) if job else {}
    best_crawl, best_plain = min(crawls), min(plains)
    return {
        "pages": count, "rounds": rounds, "concurrency": concurrency,
        "crawl_pages_per_s": round(count / best_crawl, 1),
        "baseline_get_pages_per_s": round(count / best_plain, 1),
        "crawl_vs_baseline": round(best_plain / best_crawl, 3),
        "crawl_seconds": [round(s, 3) for s in crawls],
        "baseline_seconds": [round(s, 3) for s in plains],
        "extracted_characters_per_page": round(characters / count), **job_result,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--no-job", action="store_true", help="skip the end-to-end job phase")
    args = parser.parse_args()
    if not args.no_job:
        fresh_database(args.concurrency)
    result = asyncio.run(run(args.pages, args.rounds, args.concurrency, not args.no_job))
    print(json.dumps(result, indent=2))
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
