"""HTML pages for the extraction-bound tests: hostile ones, a few MB that cost gigabytes to
parse (each node costs about 2 KB once trafilatura has copied the tree), and a realistic long
article under the bound.

Every hostile page here was measured extracting before the bound (crawl path, one process):
``tiny_elements(1_000_000)`` 5 MB, 1.8 GB, 33 s; ``distinct_links(200_000)`` 3.8 MB, about
900 MB, 14 s; ``dense_attributes(22_727)`` (250,000 nodes in 0.6 MB) 406 MB; ``comments``
230 MB for 250,000; ``one_element_attributes(200_000)`` over 5 minutes of parsing.
"""

from __future__ import annotations

HEAD = "<!doctype html><html><head><title>{title}</title></head><body>"


def tiny_elements(count: int) -> str:
    """The security re-probe's page: ``<li>x`` ``count`` times, five bytes an element."""
    return "<html><body><ul>" + "<li>x" * count


def distinct_links(count: int) -> str:
    """``count`` links to distinct pages, 19 bytes each."""
    return "<html><body>" + "".join(f"<a href={n:x}>x</a>" for n in range(count))


def dense_attributes(count: int) -> str:
    """``count`` elements of ten one-letter attributes: eleven nodes in 27 bytes."""
    return "<html><body>" + "<i a b c d e f g h j k>x</i>" * count


def comments(count: int) -> str:
    """``count`` empty comments, seven bytes each."""
    return "<html><body><p>text" + "<!---->" * count


def one_element_attributes(count: int) -> str:
    """One element with ``count`` distinct attributes (libxml2: quadratic in them)."""
    return "<html><body><p " + " ".join(f"a{n:x}" for n in range(count)) + ">text</p>"


def hidden_in_a_script(count: int) -> str:
    """``count`` elements a count that ends the script at its first "</script>" would take for
    a quoted attribute value: "<!--<script>" escapes the script twice, so libxml2 ends it
    only at the second "</script>", and parses the elements after it."""
    script = '<script><!--<script></script><p a="</script>'
    return "<html><body>" + script + "<li>x" * count + '">'


def link_index(count: int) -> str:
    """An index article: ``count`` one-line paragraphs, each linking to its entry."""
    entries = "".join(
        f'<p>Entry {n}: see <a href="/wiki/Entry_{n}">entry {n}</a>.</p>' for n in range(count)
    )
    intro = "<p>An index of every entry, with what each one covers in this encyclopedia.</p>"
    return HEAD.format(title="Index") + f"<main><article><h1>Index</h1>{intro}{entries}"


def long_article(sections: int) -> str:
    """A long encyclopedia-like article: per section a heading, five paragraphs with inline
    links to other articles, a list and a small table, under navigation and a footer."""
    nav = "".join(f'<li><a href="/wiki/Topic_{n}">Topic {n}</a></li>' for n in range(60))
    parts = [HEAD.format(title="A long article"), f"<header><nav><ul>{nav}</ul></nav></header>"]
    parts.append('<main><article><h1 id="top">A long article</h1>')
    for s in range(sections):
        parts.append(f'<h2 id="s{s}">Section {s}</h2>')
        for p in range(5):
            parts.append(
                f"<p>Paragraph {p} of section {s} describes how the indexer keeps chunks and "
                f'a graph; see <a href="/wiki/Related_{s}_{p}">related article {s}.{p}</a> '
                f"and <b>bold</b> or <i>italic</i> words, with a citation<sup>[{p}]</sup>.</p>"
            )
        items = "".join(f"<li>Point {i} of section {s}</li>" for i in range(4))
        parts.append(f"<ul>{items}</ul>")
        rows = "".join(f"<tr><td>row {r}</td><td>{r * s}</td></tr>" for r in range(3))
        parts.append(f'<table class="wikitable"><tr><th>Name</th><th>Value</th></tr>{rows}</table>')
    parts.append(f"<p>The end of the article, after {sections} sections.</p></article></main>")
    parts.append("<footer>Text is available under a licence. Privacy policy.</footer>")
    return "".join(parts) + "</body></html>"
