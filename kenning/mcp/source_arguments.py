"""The arguments of ``ingest_repository`` (``source_tools.py``), as GraphQL's
``IngestRepositoryInput`` names them (snake_case), each with the description an agent reads."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

GitUrl = Annotated[str | None, Field(description="An http(s), ssh or file URL git can clone.")]
Path = Annotated[str | None, Field(description="A local path under the server's repository roots.")]
Branch = Annotated[str | None, Field(description="Default: the current branch.")]
Name = Annotated[
    str | None, Field(description="The name in keys (repo:<name>); default: the last part.")
]
Priority = Annotated[int | None, Field(description="3..9 (bulk lane); default 5.")]
Through = Annotated[
    str | None,
    Field(
        description="A registered connection it comes through: revoking the connection "
        "cancels the job and purges what it stored."
    ),
]
