"""The bound every HTML page is parsed within, wherever it comes from: a crawled page, an
HTML file, an e-mail's HTML body or attachment (``KENNING_MAX_HTML_NODES``).

Extracting a page costs about 2 KB of memory a node (libxml2's tree and trafilatura's copies
of it), whatever its size in bytes: 5 MB of ``<li>x`` are a million elements and took 1.8 GB.
So a page is refused when it has more elements and attributes than no real page has: the
309 largest HTML pages on the machine this was measured on (the Rust, Cargo and Node.js
manuals, rustdoc's source views) have at most 207,000 up to the crawl's 5 MiB page cap (the
Rust Reference on one page: 185,000 in 4.4 MB) and 61,000 per MB at the densest. Within it,
extraction took at most 550 MiB and 8 s for a single page of one shape (a 42 s worst case
for a code block of 250,000 lines, trafilatura's own quadratic path).
"""

from __future__ import annotations

from typing import Final

MAX_HTML_NODES: Final = 250_000
