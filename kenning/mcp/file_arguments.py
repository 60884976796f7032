"""The arguments of ``ingest_file`` (``file_tools.py``), as GraphQL's ``ingestFile`` names
them (snake_case), each with the description an agent reads."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from kenning.domain.sources.files.extracted import OcrMode

Content = Annotated[str, Field(description="The file's bytes, base64-encoded.")]
Filename = Annotated[str, Field(description="Its name, e.g. 'report.pdf'.")]
SourceUrn = Annotated[str | None, Field(description="Defaults to 'file:<filename>'.")]
Kind = Annotated[str, Field(description="The chunks' kind.")]
Tags = Annotated[list[str] | None, Field(description="Tags of every chunk.")]
Ocr = Annotated[OcrMode, Field(description="AUTO, ALWAYS or NEVER.")]
Priority = Annotated[int, Field(description="Queue priority 0..9.")]
ObservedAt = Annotated[
    str | None,
    Field(
        description="When the file's content was true (ISO 8601 with a time zone); "
        "default: the file's own date (e-mail Date, PDF/Office dates), else now."
    ),
]
Through = Annotated[
    str | None,
    Field(
        description="A registered connection it comes through: revoking the connection "
        "cancels the job and purges what it stored."
    ),
]
