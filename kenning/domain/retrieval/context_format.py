"""How agent context reads as text: the formatter of the knowledge-integration design
(003 §Formatting and Determinism), pure, so the same lines always give the same text.

An info-type section (``user_profile``, ``instructions``, ``context``, ``skills``, any other)
is its header then its blocks, each only when it has lines, separated by the section
delimiter::

    ## user_profile
    [Metadata]
    specialization: turbomachinery

    [Global Metadata]
    organization: NASA

    [Knowledge]
    [procedure] Initialize transient LES from converged RANS
      Tags: les, rans
    ---
    [fact] Smagorinsky constant of 0.1 works better than default 0.17

    [Relationships]
    SPECIALIZES_IN → Technique:les (LES)

Knowledge items are separated by the item delimiter, each with a ``Tags:`` line
(``include_tags``) and a ``Score:`` line (``include_scores``) when it has them. Lines of no
block (rules, session, procedures, history) stay bullets: ``- <line>``. A budget's cut
notice is the section's last line, a bullet too. Sections are joined by the section delimiter too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from kenning.domain.errors import ValidationError

if TYPE_CHECKING:
    from kenning.domain.retrieval.agent_context import ContextLine

MAX_DELIMITER: Final = 20


class Block(StrEnum):
    """The blocks of an info-type section, in the order they are shown."""

    METADATA = "Metadata"
    GLOBAL_METADATA = "Global Metadata"
    KNOWLEDGE = "Knowledge"
    RELATIONSHIPS = "Relationships"


@dataclass(frozen=True, slots=True)
class ContextFormat:
    """The formatter's options (003's ``section_delimiter``, ``item_delimiter``,
    ``include_tags``, ``include_scores``), with the design's defaults."""

    section_delimiter: str = "\n\n"
    item_delimiter: str = "\n---\n"
    include_tags: bool = True
    include_scores: bool = False

    def __post_init__(self) -> None:
        for name, value in (
            ("sectionDelimiter", self.section_delimiter),
            ("itemDelimiter", self.item_delimiter),
        ):
            if not value or len(value) > MAX_DELIMITER:
                raise ValidationError(
                    f"{name} must be 1..{MAX_DELIMITER} characters", field=f"textFormat.{name}"
                )


DEFAULT_FORMAT: Final = ContextFormat()


def item_text(line: ContextLine, fmt: ContextFormat) -> str:
    """One line as shown: a knowledge item with its tags and score lines when asked."""
    if line.block is not Block.KNOWLEDGE:
        return line.text
    parts = [line.text]
    if fmt.include_tags and line.tags:
        parts.append(f"  Tags: {', '.join(line.tags)}")
    if fmt.include_scores and line.score is not None:
        parts.append(f"  Score: {line.score:.3f}")
    return "\n".join(parts)


def _groups(lines: Sequence[ContextLine]) -> list[tuple[Block | None, list[ContextLine]]]:
    """Consecutive lines of the same block, in order."""
    groups: list[tuple[Block | None, list[ContextLine]]] = []
    for line in lines:
        if groups and groups[-1][0] == line.block:
            groups[-1][1].append(line)
        else:
            groups.append((line.block, [line]))
    return groups


def _block_text(block: Block | None, lines: Sequence[ContextLine], fmt: ContextFormat) -> str:
    if block is None:
        return "\n".join(f"- {line.text}" for line in lines)
    joint = fmt.item_delimiter if block is Block.KNOWLEDGE else "\n"
    return f"[{block.value}]\n" + joint.join(item_text(line, fmt) for line in lines)


def section_text(
    name: str,
    lines: Sequence[ContextLine],
    omitted: int = 0,
    budget: int | None = None,
    fmt: ContextFormat = DEFAULT_FORMAT,
) -> str:
    """``## name`` and its blocks (bullets when of no block), then the cut notice."""
    groups = _groups(lines)
    body = fmt.section_delimiter.join(_block_text(b, members, fmt) for b, members in groups)
    if omitted:
        plural = "s" if omitted != 1 else ""
        notice = f"- [{omitted} lower-ranked item{plural} cut to fit {budget} characters]"
        body = f"{body}\n{notice}" if body else notice
    return f"## {name}\n{body}"
