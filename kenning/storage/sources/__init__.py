"""Adapters of the sources: file-format readers and OCR (``files``), the safe web fetcher
(``crawl``) and tree-sitter parsing of code (``code``); ``html_nodes`` counts an HTML page's
nodes before either parses it; ``catalog`` lists stored sources and originals and finds the
sources of one crawl or repository branch."""
