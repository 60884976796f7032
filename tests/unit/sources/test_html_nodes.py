"""The node count an HTML page is refused by before it is parsed: it is what lxml builds
(never fewer: a node the count misses is memory nobody bounded), for the tricky corners of
HTML5 tokenizing, for random markup soup, for the text trafilatura parses of an HTML file,
and for a realistic page; and it is cheap on pages built to cost gigabytes."""

from __future__ import annotations

import random
import time

import lxml.html  # type: ignore[import-untyped]
import pytest
from lxml import etree
from lxml.html import defs
from trafilatura.utils import load_html, repair_faulty_html

from kenning.storage.sources.html_nodes import MAX_ATTRIBUTES, markup_excess
from tests.support import html_pages

# lxml adds these around a fragment by itself, and the count leaves them out; the fragments
# here never write them.
IMPLIED = frozenset({"html", "head", "body"})


def counted(text: str) -> int:
    """The fewest ``max_nodes`` ``text`` is within, by bisection of ``markup_excess``."""
    low, high = 0, 1
    while markup_excess(text, high) is not None:
        low, high = high, high * 2
    while low < high:
        middle = (low + high) // 2
        if markup_excess(text, middle) is None:
            high = middle
        else:
            low = middle + 1
    return low


def nodes_of(tree: etree._Element | None) -> int:
    """Elements, their attributes and comments of a parsed tree, the implied elements aside."""
    if tree is None:
        return 0
    nodes = (n for n in tree.iter() if n.tag not in IMPLIED)
    return sum(1 + (len(n.attrib) if isinstance(n.tag, str) else 0) for n in nodes)


def built(text: str) -> int:
    """What the crawl's parse builds of ``text`` (lxml.html, comments kept)."""
    try:
        return nodes_of(lxml.html.document_fromstring(text))
    except (etree.ParserError, ValueError):
        return 0


# (markup, nodes lxml builds besides the implied html, head and body)
CORNERS = {
    "elements": ("<ul><li>x<li>y</ul>", 3),
    "attributes, bare and quoted": ("<p a b='1' c=\"2\" d=4>x", 5),
    "a quoted value hides markup": ('<p a="<b><i>">x', 2),
    "one in an end tag too": ("</p a='><b>'><i>x", 1 + 2),  # counted as if an element
    "no space between attributes": ("<p a=\"1\"b='2'c=3>x", 4),
    "a name may start with =": ("<p =a b>x", 3),
    "slashes separate attributes": ("<p/a/b/c>x", 4),
    "a vertical tab is part of a name": ("<p\x0ba b>x", 2),
    "a form feed is whitespace": ("<p\x0ca b>x", 3),
    "an abrupt comment": ("<!--><b>x", 2),
    "another abrupt comment": ("<!---><b>x", 2),
    "a comment ended by --!>": ("<!-- a --!><b>x", 2),
    "a comment not ended by -- >": ("<!-- a -- ><b>x-->", 1),
    "a bogus comment to >": ("<?php <b> ?><i>x", 2),
    "cdata is a bogus comment": ("<![CDATA[<b>]]><i>x", 2),
    "a nameless end tag is one": ("</1 <b>><i>x", 2),
    "</> is nothing": ("</><b>x", 1),
    "a doctype to its first >": ("<!doctype x <b>><i>x", 1 + 1),  # not built, counted
    "script text": ("<script><b>x</b></script><i>x", 2),
    "script ended by a delimiter only": ("<script>a</scriptx><b>y</script><i>", 2),
    "script escaped twice": ('<script><!--<script></script><p a="</script><b><i>">x', 3),
    "a self-closing script has no text": ("<script/><b>x</b>", 2),
    "a value's slash is no self-closing": ("<script a=b/><b>x</b></script><i>", 3),
    "title text": ("<title><b>x</b></title><i>x", 2),
    "textarea text": ("<textarea><b>x</b></TEXTAREA\t><i>x", 2),
    "xmp, iframe, noembed, noframes": (
        "".join(f"<{n}><b>x</b></{n}>" for n in ("xmp", "iframe", "noembed", "noframes")),
        4,
    ),
    "noscript holds markup": ("<noscript><b>x</b></noscript>", 2),
    "plaintext to the end": ("<plaintext><b>x</b></plaintext><i>", 1),
    "a long s is no s": ("<\u017fcript><b>x", 1),  # and no tag either: not ASCII
    "a non-ASCII letter opens no tag": ("<p>x<\u00e9 a='<b>'>", 2),
    "no tag after < and a space": ("< b><i>x", 1),
}


@pytest.mark.parametrize("name", list(CORNERS))
def test_tricky_markup_is_counted_as_lxml_builds_it(name: str) -> None:
    text, expected = CORNERS[name]
    assert counted(text) == expected
    # What lxml builds: the same, or fewer where the count is conservative on purpose.
    assert built(text) <= expected


PIECES = (
    "<", ">", "</", "<!--", "-->", "--!>", "<!-->", "<!", "<?", "/", "=", '"', "'", " ", "\t",
    "\n", "\r", "\x0c", "\x0b", "\x00", "-", "!", "a", "b", "p", "li", "script", "SCRIPT",
    "style", "title", "textarea", "xmp", "plaintext", "\u017fcript", "!DOCTYPE", "[CDATA[",
    "]]>", "x=", "y='", 'z="', "\u00e9", "&amp;", "<b>", "<i a b c>", "</script>", "</script ",
    "<script>", "<style>", "</style>", "<title>", "</scriptx>", "<p/", "/>", "<a href=x>",
    "<html/>", "<!--<script>", "</p a='>'>", "<script/>", "\x01", "<\x01b>",
)  # fmt: skip


def soup(seed: int) -> list[str]:
    """Markup soup, the pieces HTML5 tokenizing turns on, in random orders."""
    chance = random.Random(seed)
    return [
        "".join(chance.choice(PIECES) for _ in range(chance.randint(1, 60))) for _ in range(1500)
    ]


@pytest.mark.parametrize("seed", [1, 2])
def test_no_soup_hides_a_node_from_the_count(seed: int) -> None:
    missed = [text for text in soup(seed) if counted(text) < built(text)]
    assert not missed, missed[:3]


def test_a_file_is_counted_as_trafilatura_repairs_and_parses_it() -> None:
    # load_html drops control characters first: "<\x01b>" is text, then an element.
    for text in [*soup(3), "<html><body>" + "<\x01b>x" * 20, "<html><!-- a --/>\n<b><b>"]:
        parsed = repair_faulty_html(text, text[:50].lower())
        # lxml.html.fromstring returns a fragment's body renamed div or span: one more.
        assert counted(parsed) + 1 >= nodes_of(load_html(text)), repr(text)


def test_the_raw_text_elements_are_libxml2s() -> None:
    """A libxml2 that parses one more element's text as raw (or one less) fails here."""
    names = (set(defs.tags) | {"xmp", "plaintext", "noembed", "noframes"}) - {"html", "head"}
    for name in sorted(names - {"body"}):
        text = f"<{name}><b>x</b></{name}><i>x"
        assert counted(text) == built(text), name


def test_a_realistic_page_is_counted_as_built() -> None:
    page = html_pages.long_article(200)
    # Its own doctype, html, head and body are counted too.
    assert counted(page) == built(page) + 4


@pytest.mark.parametrize(
    ("page", "excess"),
    [
        (html_pages.tiny_elements(1_000_000), "more than 250000 HTML elements and attributes"),
        (html_pages.distinct_links(200_000), "more than 250000 HTML elements and attributes"),
        (html_pages.comments(700_000), "more than 250000 HTML elements and attributes"),
        (html_pages.hidden_in_a_script(300_000), "more than 250000 HTML elements and attributes"),
        (html_pages.one_element_attributes(200_000), "an element with more than 1000 attributes"),
        ("<p>" + "</b>" * 1_250_000, None),  # 5 MB of end tags: no node
    ],
)
def test_a_hostile_page_is_judged_in_well_under_a_second(page: str, excess: str | None) -> None:
    start = time.perf_counter()
    assert markup_excess(page, 250_000) == excess
    # Measured 0.08-0.36 s on 2 cores; parsing the first one took 33 s (1.8 GB).
    assert time.perf_counter() - start < 2.0


def test_attributes_are_counted_per_element_up_to_the_limit() -> None:
    within = html_pages.one_element_attributes(MAX_ATTRIBUTES)
    assert markup_excess(within, 10_000) is None
    assert markup_excess(within, MAX_ATTRIBUTES) is not None  # the element is one more
