"""The formatter of agent context (003 §Formatting): blocks, delimiters, tags and scores,
bullets for the memory sections, the same text for the same lines."""

from __future__ import annotations

import pytest

from kenning.domain.errors import ValidationError
from kenning.domain.retrieval.agent_context import AgentContext, ContextLine, ContextSection, fit
from kenning.domain.retrieval.context_format import Block, ContextFormat, section_text

PROFILE = (
    ContextLine("specialization: turbomachinery", block=Block.METADATA),
    ContextLine("team: aero", block=Block.METADATA),
    ContextLine("organization: NASA", block=Block.GLOBAL_METADATA),
    ContextLine(
        "[procedure] Initialize transient LES from converged RANS",
        ("c1",),
        0.85,
        Block.KNOWLEDGE,
        ("les", "initialization", "rans"),
    ),
    ContextLine("[fact] Smagorinsky constant of 0.1", ("c2",), 0.5, Block.KNOWLEDGE),
    ContextLine("SPECIALIZES_IN → Technique:les (LES)", ("c1",), block=Block.RELATIONSHIPS),
)


def test_an_info_type_section_reads_as_the_design_shows() -> None:
    assert section_text("user_profile", PROFILE) == (
        "## user_profile\n"
        "[Metadata]\nspecialization: turbomachinery\nteam: aero\n\n"
        "[Global Metadata]\norganization: NASA\n\n"
        "[Knowledge]\n[procedure] Initialize transient LES from converged RANS\n"
        "  Tags: les, initialization, rans\n---\n[fact] Smagorinsky constant of 0.1\n\n"
        "[Relationships]\nSPECIALIZES_IN → Technique:les (LES)"
    )


def test_the_options_change_delimiters_tags_and_scores() -> None:
    fmt = ContextFormat(" | ", " ; ", include_tags=False, include_scores=True)
    text = section_text("user_profile", PROFILE[2:5], fmt=fmt)
    assert text == (
        "## user_profile\n[Global Metadata]\norganization: NASA | [Knowledge]\n"
        "[procedure] Initialize transient LES from converged RANS\n  Score: 0.850 ; "
        "[fact] Smagorinsky constant of 0.1\n  Score: 0.500"
    )
    context = AgentContext(None, (ContextSection("a", PROFILE[:1], fmt=fmt),) * 2, fmt)
    assert context.text.count(" | ") == 1


def test_memory_sections_stay_bullets_and_a_cut_says_so() -> None:
    lines = [ContextLine(f"rule {i}: {'x' * 30}") for i in range(5)]
    assert section_text("rules", lines[:2]) == f"## rules\n- {lines[0].text}\n- {lines[1].text}"
    cut = fit("session", lines, 100)
    assert len(cut.text) <= 100 and cut.omitted == 5 - len(cut.lines) > 0
    assert cut.text.endswith(f"- [{cut.omitted} lower-ranked items cut to fit 100 characters]")
    knowledge = fit("context", list(PROFILE), 120)
    assert knowledge.lines == PROFILE[: len(knowledge.lines)] and len(knowledge.text) <= 120


def test_the_same_lines_give_the_same_text() -> None:
    fmt = ContextFormat(include_scores=True)
    texts = {section_text("user_profile", list(PROFILE), fmt=fmt) for _ in range(3)}
    assert len(texts) == 1


@pytest.mark.parametrize(
    ("section", "item", "field"),
    [
        ("", "\n", "textFormat.sectionDelimiter"),
        ("\n", "", "textFormat.itemDelimiter"),
        ("x" * 21, "\n", "textFormat.sectionDelimiter"),
    ],
)
def test_a_bad_delimiter_names_its_field(section: str, item: str, field: str) -> None:
    with pytest.raises(ValidationError) as raised:
        ContextFormat(section, item)
    assert raised.value.field == field
