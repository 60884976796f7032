"""``json_body.decode`` gives exactly what ``json.loads`` gives, long values cut into slices
at every kind of boundary (escapes, surrogate pairs, multi-byte characters, runs of
backslashes), and fails where ``json.loads`` fails."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kenning import json_body
from tests.support.loop_stall import run_delay


def decode(body: bytes) -> Any:
    """Slices of 16 bytes, so that short texts cross every kind of boundary."""
    return json_body.decode(body, long_string=20, slice_bytes=16)


_TEXT = st.text(
    alphabet=st.sampled_from(["a", " ", '"', "\\", "\n", "\t", "é", "€", "😀", "\x01", "/", "u"]),
    max_size=200,
)


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.booleans(), st.text(max_size=30))
def test_any_document_decodes_as_json_loads_does(content: str, ascii_only: bool, key: str) -> None:
    document = {"query": "mutation { x }", "variables": {key: content, "n": [content, 1]}}
    body = json.dumps(document, ensure_ascii=ascii_only).encode()
    assert decode(body) == json.loads(body)


@pytest.mark.parametrize(
    "content",
    ["\\" * 45, "a\\" * 20, "😀" * 12, "é€😀" * 9, '"' * 30, "a" * 17 + "😀" * 8],
    ids=["backslashes", "escaped-backslashes", "pairs", "multibyte", "quotes", "pair-at-cut"],
)
@pytest.mark.parametrize("ascii_only", [True, False])
def test_slices_never_split_what_belongs_together(content: str, ascii_only: bool) -> None:
    body = json.dumps({"content": content, "tail": content}, ensure_ascii=ascii_only).encode()
    assert decode(body) == {"content": content, "tail": content}


def test_a_long_key_and_a_top_level_string_decode_too() -> None:
    body = json.dumps({"k" * 40: ["v" * 40, {"x": "y" * 40}]}).encode()
    assert decode(body) == json.loads(body)
    assert decode(json.dumps("s" * 50).encode()) == "s" * 50


@pytest.mark.parametrize(
    "body",
    [
        b'{"a": "' + b"x" * 40 + b'"',
        b'{"a": "' + b"x" * 40 + b'\x01"}',
        b'{"a": "x' * 30,
        b'{"a" "' + b"x" * 40 + b'"}',
        b'[\\"' + b"x" * 40 + b'"]',
    ],
    ids=["unclosed-object", "control-character", "unclosed-literal", "no-colon", "backslash"],
)
def test_what_json_loads_refuses_is_refused(body: bytes) -> None:
    with pytest.raises(json.JSONDecodeError):
        json.loads(body)
    with pytest.raises(json.JSONDecodeError):
        decode(body)


def _longest_hold(work: Any) -> tuple[Any, float]:
    """``work()`` in a thread, and the longest this thread waited for the GIL meanwhile:
    a wake-up's lateness less the time this thread stood on the run queue, and at most the
    CPU time this process spent meanwhile (time the machine gave to others is no hold of
    the GIL; ``tests/support/loop_stall.py``)."""
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(work()))
    longest, last, spent, queued = 0.0, time.perf_counter(), time.process_time(), run_delay()
    thread.start()
    while thread.is_alive():
        time.sleep(0.001)
        now, cpu, waited = time.perf_counter(), time.process_time(), run_delay()
        longest = max(longest, min(now - last - 0.001 - (waited - queued), cpu - spent))
        last, spent, queued = now, cpu, waited
    thread.join()
    return result[0], longest


def test_a_25_mb_document_is_decoded_without_holding_the_gil_long() -> None:
    # A document's text as it comes, with tabs, line ends and accents to unescape. (Bare
    # ASCII words json.loads only copies; where page faults are slow, building the fresh
    # 25 MB str then costs it as much as the decoder's own one str does.)
    line = "A line of a document, a tab\tand \u00fcn\u00efc\u00f6d\u00e9 words.\n"
    content = (line * (25 * 1024 * 1024 // len(line) + 1))[: 25 * 1024 * 1024]
    body = json.dumps({"variables": {"input": {"content": content}}}).encode()
    decoded, _ = _longest_hold(lambda: json_body.decode(body))
    assert decoded["variables"]["input"]["content"] == content
    del decoded
    # Best of three each: the first 25 MB str of a run also pays the kernel for fresh pages.
    hold = min(_longest_hold(lambda: json_body.decode(body))[1] for _ in range(3))
    whole = min(_longest_hold(lambda: json.loads(body))[1] for _ in range(3))
    # The one str the decoder must build is its longest hold: a third of json.loads here.
    assert hold < whole / 2 and hold < 0.05, (hold, whole)


def test_a_body_of_very_many_values_is_parsed_whole_and_right() -> None:
    body = json.dumps({"tags": ["t"] * (json_body.MAX_QUOTES // 2), "c": "x" * 100}).encode()
    assert decode(body) == json.loads(body)
