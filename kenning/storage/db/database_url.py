"""Small conversions of the one database URL the settings hold."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def database_name(url: str) -> str:
    """The database a URL names: ``postgresql://u@h:5433/kenning`` → ``kenning``."""
    path = urlsplit(url).path.lstrip("/")
    return path or "postgres"


def with_database(url: str, name: str) -> str:
    """The same server URL with another database name."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def asyncpg_dsn(url: str) -> str:
    """A DSN asyncpg accepts (drops a SQLAlchemy ``+driver`` suffix)."""
    parts = urlsplit(url)
    scheme = parts.scheme.split("+", 1)[0]
    if scheme == "postgres":
        scheme = "postgresql"
    return urlunsplit((scheme, parts.netloc, parts.path, parts.query, parts.fragment))


def sqlalchemy_url(url: str) -> str:
    """The URL with the asyncpg driver named, for SQLAlchemy and Alembic."""
    parts = urlsplit(asyncpg_dsn(url))
    return urlunsplit(("postgresql+asyncpg", parts.netloc, parts.path, parts.query, parts.fragment))
