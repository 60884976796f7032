"""kenning-client: the typed sync and async Python client of Kenning's GraphQL API.

``connect(url, key)`` gives the sync client, ``connect_async(url, key)`` the async one (with
the ``queueStatus`` and ``ingestionProgress`` subscriptions). Each method returns the
operation's pydantic model; a result union's members are typed, errors included
(``ValidationError``, ``ScopeError``, … with ``code``, ``field`` and ``message``), told apart
by ``typename__``. A request the server refuses as a whole raises ``GraphQLClientError``.

Everything under ``generated/`` is written by ``scripts/client_codegen.sh`` from
``schema.graphql`` and ``queries/*.graphql``; never edit it by hand.
"""

from kenning_client.connect import (
    PREFLIGHT,
    async_client_over,
    client_over,
    connect,
    connect_async,
)
from kenning_client.generated import *  # noqa: F403 - the generated models, enums, inputs, errors
from kenning_client.generated import __all__ as _generated
from kenning_client.generated.base_client import BaseClient
from kenning_client.generated.client import KenningClient

__version__ = "0.1.0"

__all__ = [
    *_generated,
    "PREFLIGHT",
    "BaseClient",
    "KenningClient",
    "__version__",
    "async_client_over",
    "client_over",
    "connect",
    "connect_async",
]
