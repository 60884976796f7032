"""JSON request bodies decoded in steps that each hold the GIL briefly.

``json.loads`` is one C call over the whole body: a 25 MB document in a variable holds the
GIL for 30-50 ms, a 64 MB body (``KENNING_MAX_REQUEST_BYTES``) for 100-200 ms, and in a
worker thread as on the event loop that stalls every other request. ``decode`` gives what
``json.loads`` gives, but every string value longer than ``LONG_STRING`` bytes is cut out
of the body and decoded a slice at a time; what is left (names, numbers, short strings) is
parsed in one call. Run it in a worker thread: between the steps the loop gets the GIL.

A body of very many short values has no long one to cut out and is parsed in one call.

Example: ``decode(b'{"query": "{ a }", "variables": {"content": "..."}}')``.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import Any

LONG_STRING = 64 * 1024
SLICE = 1024 * 1024
# Past this many quotes, finding the literals costs more than the one call it would split.
MAX_QUOTES = 200_000

_BACKSLASH = 0x5C
_KEY_COLON = re.compile(rb"[ \t\r\n]*:")
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][0-9a-fA-F]{3}")


def decode(body: bytes, *, long_string: int = LONG_STRING, slice_bytes: int = SLICE) -> Any:
    """``json.loads(body)``, string values over ``long_string`` bytes decoded in slices of
    ``slice_bytes``.

    Raises what ``json.loads`` raises for a body that is not JSON (the positions in the
    message may differ).
    """
    spans = _long_values(body, long_string) if json.detect_encoding(body) == "utf-8" else []
    if not spans:
        return json.loads(body)
    nonce = secrets.token_hex(8)
    pieces: list[bytes] = []
    strings: dict[str, str] = {}
    position = 0
    for index, (start, end) in enumerate(spans):
        placeholder = f"\x00{nonce}:{index}"
        strings[placeholder] = _literal(body, start + 1, end - 1, slice_bytes)
        pieces += [body[position:start], json.dumps(placeholder).encode()]
        position = end
    pieces.append(body[position:])
    return _restored(json.loads(b"".join(pieces)), strings)


def _long_values(body: bytes, long_string: int) -> list[tuple[int, int]]:
    """The ``[start, end)`` of each string value longer than ``long_string`` bytes, quotes
    included (keys stay); [] when a literal is not closed (``json.loads`` says where) or
    the body has over ``MAX_QUOTES`` quotes."""
    spans: list[tuple[int, int]] = []
    quotes = 0
    opening = body.find(b'"')
    while opening >= 0:
        closing = body.find(b'"', opening + 1)
        quotes += 2
        while closing >= 0 and _run_before(body, closing) % 2 and quotes <= MAX_QUOTES:
            closing, quotes = body.find(b'"', closing + 1), quotes + 1
        if closing < 0 or quotes > MAX_QUOTES:
            return []
        if closing - opening > long_string and not _KEY_COLON.match(body, closing + 1):
            spans.append((opening, closing + 1))
        opening = body.find(b'"', closing + 1)
    return spans


def _run_before(body: bytes, position: int) -> int:
    """How many backslashes come right before ``position``."""
    run = 0
    while body[position - 1 - run] == _BACKSLASH:
        run += 1
    return run


def _literal(body: bytes, start: int, end: int, slice_bytes: int) -> str:
    """The string a literal's inner bytes ``body[start:end]`` spell, a slice at a time."""
    parts: list[str] = []
    while start < end:
        cut = end if end - start <= slice_bytes else _cut(body, start, start + slice_bytes)
        cut = cut or end
        parts.append(json.loads(b'"' + body[start:cut] + b'"'))
        start = cut
    return "".join(parts)


def _cut(body: bytes, start: int, target: int) -> int | None:
    """A position in ``(start, target]`` that splits no escape, surrogate pair or UTF-8
    character of a literal's inner bytes from ``start`` (itself such a position); None
    when there is none."""
    backslash = body.rfind(b"\\", max(start, target - 12), target)
    if backslash < 0:  # no escape (at most 12 bytes: a surrogate pair) reaches the target
        cut = target
        while cut > target - 4 and 0x80 <= body[cut] < 0xC0:
            cut -= 1  # a UTF-8 character's continuation byte
        return cut
    run_start = max(start, backslash - _run_before(body, backslash))
    if run_start == start:  # backslashes from the start: pairs of them end on a boundary
        cut = start + (backslash - start) // 2 * 2
    else:  # the first backslash of a run starts an escape
        cut = run_start
        if _inside_surrogate_pair(body, start, cut):
            cut -= 6
    return cut if cut > start else None


def _inside_surrogate_pair(body: bytes, start: int, cut: int) -> bool:
    """Whether the escape at ``cut`` is a low surrogate right after a high surrogate one."""
    low = _SURROGATE_ESCAPE.fullmatch(body, cut, cut + 6)
    high = _SURROGATE_ESCAPE.fullmatch(body, cut - 6, cut) if cut - 6 >= start else None
    if low is None or high is None:
        return False
    if int(low.group()[2:], 16) < 0xDC00 or not 0xD800 <= int(high.group()[2:], 16) < 0xDC00:
        return False
    # "\\uD83D" is a backslash and text, not an escape: the run before "u" must be odd.
    return (_run_before(body, cut - 5) % 2) == 1


def _restored(value: Any, strings: dict[str, str]) -> Any:
    """``value`` with every placeholder replaced by its string."""
    if isinstance(value, str):
        return strings.get(value, value)
    pending = [value]
    while pending:  # iterative: the rest of the body may nest as deep as the parser went
        item = pending.pop()
        pairs = item.items() if isinstance(item, dict) else enumerate(item)
        for key, inner in list(pairs):
            if isinstance(inner, str):
                if inner in strings:
                    item[key] = strings[inner]
            elif isinstance(inner, dict | list):
                pending.append(inner)
    return value
