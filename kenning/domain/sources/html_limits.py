"""The bound every HTML page is parsed within, wherever it comes from: a crawled page, an
HTML file, an e-mail's HTML body or attachment (``KENNING_MAX_HTML_NODES``).

Extracting a page costs about 2 KB of memory a node (libxml2's tree and trafilatura's copies
of it), whatever its size in bytes: 5 MB of ``<li>x`` are a million elements and took 1.8 GB.
So a page is refused when it has more elements and attributes than any real page has: the
309 largest HTML pages on the machine this was measured on (the Rust, Cargo and Node.js
manuals, rustdoc's source views) have at most 207,000 up to the crawl's 5 MiB page cap (the
Rust Reference on one page: 185,000 in 4.4 MB) and 61,000 per MB at the densest. At the
bound, the hostile shapes measured took 230 to 750 MiB to extract (elements that each carry
two runs of text cost the most, ~3 KB), the real pages near it 360 to 480 MiB.

It bounds memory, not time: trafilatura has paths superlinear in nodes (an XPath over the
text of every paragraph, a code block's line breaks joined one by one), and a page of 1.5 MB
within the bound held the worker thread for 7.7 minutes.
"""

from __future__ import annotations

from typing import Final

MAX_HTML_NODES: Final = 250_000
