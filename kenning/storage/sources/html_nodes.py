"""How many nodes lxml would build from an HTML page, counted on its text before it is parsed.

Why count first: the cost of extracting a page grows with its nodes, not its bytes. libxml2's
tree takes about 250 bytes a node and trafilatura copies it five or six times while it finds
the main content: 1 to 3 KB a node, measured. Five bytes of ``<li>x`` are an element, so
a 5 MB page of them (7 KB gzipped) took 1.8 GB and 33 s to extract; an attribute costs what
an element does, and the attributes of one element take time quadratic in their number
(20,000 of them took 4 s to extract, 200,000 over 5 minutes). A page over the budget is
refused before any tree exists; one within it costs what a real page of that many nodes does.

What is counted: each start tag (an element) and each of its attributes, each comment,
doctype and bogus comment (``<?...>``, ``<![CDATA[...]>``, ``</1>``); the elements lxml adds
by itself (html, head, body) are not. Where markup starts and ends follows the HTML5
tokenizer as libxml2 2.14 implements it: a quoted attribute value hides markup, in end tags
too; ``<!-->`` is a whole comment and ``--!>`` ends one; the text of the raw-text elements
(script, with its ``<!--`` escapes, style, title, textarea, ...) ends only at the matching
end tag; ``<plaintext>`` makes the rest of the page text. An approximation would not do:
markup the scan takes for text (or for a quoted value) while lxml parses it would never be
counted, and any page could hide its elements that way. The count may be a little over what
lxml builds (an end tag with attributes counts as an element, a duplicate attribute twice),
never under: ``tests/unit/sources/test_html_nodes.py`` holds it to lxml on adversarial text.

Example: ``markup_excess("<ul>" + "<li>x" * 9, 5)`` -> ``"more than 5 HTML elements and
attributes"``.
"""

from __future__ import annotations

import re
from typing import Final

# No real element comes near it (11 at most on the 309 largest pages measured); 1,000 keeps
# libxml2's per-element work, quadratic in it, well under a millisecond.
MAX_ATTRIBUTES: Final = 1_000

_WS: Final = "\t\n\f\r "  # HTML whitespace; a vertical tab is part of a name
_NAME = re.compile(rf"[^{_WS}/>]*")
# One attribute and the separators before it: a name runs to whitespace, "/", ">" or "=" (its
# first character may be "="), a value is quoted (to the end of the page if the quote is
# never closed) or runs to whitespace or ">". Group 1 is None once the tag has no more.
_ATTRIBUTE = re.compile(
    rf"""[{_WS}/]*+([^{_WS}/>][^{_WS}/>=]*+"""
    rf"""(?:[{_WS}]*+=[{_WS}]*+(?:"[^"]*+"?|'[^']*+'?|[^{_WS}>]*+))?)?"""
)
_ASCII_LETTERS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
# Text, a "<" that starts no markup, and end tags with no attributes: no node, skipped at C
# speed (a page of a million "</b>" costs the scan no turn of its loop).
_TEXT = re.compile(rf"(?:[^<]++|<(?![A-Za-z/!?])|</(?:[A-Za-z][^{_WS}/>]*+[{_WS}]*+)?>)*+")
_COMMENT_END = re.compile(r"--!?>")
# Elements whose text holds no markup (libxml2 2.14's list; checked in the tests).
_RAW_TEXT: Final = frozenset(
    {"iframe", "noembed", "noframes", "plaintext", "script", "style", "textarea", "title", "xmp"}
)
_END_DELIMITER: Final = rf"(?=[{_WS}/>])"  # and a character must follow the name
_FLAGS: Final = re.IGNORECASE | re.ASCII  # libxml2 folds ASCII letters only
_RAW_TEXT_END: Final = {
    name: re.compile(rf"</{name}{_END_DELIMITER}", _FLAGS) for name in _RAW_TEXT
}
# Script text (HTML5 "script data" and its escaped states): "<!--" escapes it, inside which
# "<script" escapes it twice, and "</script" ends the text only when escaped once or less.
_SCRIPT = re.compile(rf"(<!--)|(</script{_END_DELIMITER})", _FLAGS)
_SCRIPT_ESCAPED = re.compile(rf"(-->)|(</script{_END_DELIMITER})|(<script{_END_DELIMITER})", _FLAGS)
_SCRIPT_TWICE = re.compile(rf"(-->)|(</script{_END_DELIMITER})", _FLAGS)


def markup_excess(text: str, max_nodes: int) -> str | None:
    """What puts ``text`` over ``max_nodes`` elements and attributes (or gives one element
    more than ``MAX_ATTRIBUTES``), or None when it is within them."""
    nodes, at = 0, 0
    while (at := _skip_text(text, at)) < len(text):
        kind, after = text[at + 1], text[at + 2 : at + 3]
        if kind in _ASCII_LETTERS or (kind == "/" and after in _ASCII_LETTERS):
            # An element, or an end tag with attributes (parsed, then dropped): counted as
            # if it were one, so that every turn of this loop counts something.
            at, attributes, raw_text = _tag(text, at + (1 if kind != "/" else 2))
            if attributes > MAX_ATTRIBUTES:
                return f"an element with more than {MAX_ATTRIBUTES} attributes"
            nodes += 1 + attributes
            if raw_text is not None and kind != "/":
                at = _raw_text_end(text, at, raw_text)
        elif kind == "!" and text.startswith("--", at + 2):
            at, nodes = _comment_end(text, at + 4), nodes + 1
        else:  # a doctype or a bogus comment ("<?", "<!", "</" and no letter): to ">"
            at, nodes = _after(text, ">", at), nodes + 1
        if nodes > max_nodes:
            return f"more than {max_nodes} HTML elements and attributes"
    return None


def _skip_text(text: str, at: int) -> int:
    """Where the next markup from ``at`` starts (a "<" that opens something), or the end."""
    skipped = _TEXT.match(text, at)
    assert skipped is not None  # it matches the empty string
    return skipped.end()


def _tag(text: str, at: int) -> tuple[int, int, str | None]:
    """The tag whose name starts at ``at``: where it ends, its attributes (counted up to one
    past ``MAX_ATTRIBUTES``), and its lower-case name when raw text follows it (it ends in
    ">", not "/>" nor the end of the page), else None."""
    name = _NAME.match(text, at)
    assert name is not None  # it matches the empty string
    at, attributes = name.end(), 0
    while attributes <= MAX_ATTRIBUTES:
        attribute = _ATTRIBUTE.match(text, at)
        assert attribute is not None
        if attribute.group(1) is None:
            # Only separators are left: "/" right before ">" closes the tag "self-closing".
            closing = text.startswith(">", attribute.end())
            self_closing = closing and attribute.end() > at and text[attribute.end() - 1] == "/"
            at = attribute.end() + int(closing)
            lower = name.group().lower() if name.group().isascii() else ""
            raw = closing and not self_closing and lower in _RAW_TEXT
            return at, attributes, lower if raw else None
        at = attribute.end()
        attributes += 1
    return at, attributes, None


def _raw_text_end(text: str, at: int, name: str) -> int:
    """Where the raw text from ``at`` of the element ``name`` ends: at its end tag (its "<"),
    or at the end of the page."""
    if name == "plaintext":
        return len(text)
    if name != "script":
        end = _RAW_TEXT_END[name].search(text, at)
        return end.start() if end else len(text)
    state = _SCRIPT
    while (found := state.search(text, at)) is not None:
        if found.group(2) and state is not _SCRIPT_TWICE:
            return found.start()
        if found.group(1):  # "<!--" escapes, "-->" ends any escape
            state = _SCRIPT_ESCAPED if state is _SCRIPT else _SCRIPT
        elif state is _SCRIPT_ESCAPED:  # "<script" inside an escape
            state = _SCRIPT_TWICE
        else:  # "</script" escaped twice: escaped once again
            state = _SCRIPT_ESCAPED
        at = found.start() + 1
    return len(text)


def _comment_end(text: str, at: int) -> int:
    """Where the comment whose text begins at ``at`` ends: ``<!-->`` and ``<!--->`` are
    whole, else the first ``-->`` or ``--!>``, else the end of the page."""
    for opener_end in (">", "->"):
        if text.startswith(opener_end, at):
            return at + len(opener_end)
    found = _COMMENT_END.search(text, at)
    return found.end() if found else len(text)


def _after(text: str, mark: str, at: int) -> int:
    found = text.find(mark, at)
    return found + len(mark) if found >= 0 else len(text)
