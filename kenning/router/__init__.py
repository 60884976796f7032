"""Kenning's embedded Ollama router: priority lanes, GPU preemption with CPU fallback,
model sets, announce/release. See `create_router_app` and `RouterClient`.

Four rooms, none importing a room above it (an import-linter contract):
``http`` (the Ollama-compatible API and ``/router/*``) over ``scheduling`` (placement,
queues, slots, preemption, model-set swaps: its docstring tells the preemption story) over
``upstream`` (calls to one backend) and ``state`` (shared state, slot leases, events,
metrics). On top of them: `router` (the `Router` that composes them), `relay` (one model
request through the scheduler), `client`, `config`, `errors` and `tasks`; ``demo`` holds the
fake backends.
"""

from kenning.router.client import RouterClient
from kenning.router.config import BackendSpec, PriorityRuleSpec, RouterSettings
from kenning.router.errors import (
    AccessDenied,
    BackendFailure,
    BodyTooLarge,
    InvalidPriority,
    InvalidRequest,
    NoBackendAvailable,
    Preempted,
    RouterError,
    TooManySessions,
    UpstreamError,
)
from kenning.router.http.access import OPEN, Access, Gate, open_gate
from kenning.router.http.app import create_router_app, router_lifespan, router_of
from kenning.router.http.control import control_routes
from kenning.router.http.proxy import ollama_routes
from kenning.router.router import Router
from kenning.router.scheduling.policy import ModelSet, Priority
from kenning.router.scheduling.sessions import SessionOwner
from kenning.router.state.events import EventKind, RouterEvent

__all__ = [
    "OPEN",
    "Access",
    "AccessDenied",
    "BackendFailure",
    "BackendSpec",
    "BodyTooLarge",
    "EventKind",
    "Gate",
    "InvalidPriority",
    "InvalidRequest",
    "ModelSet",
    "NoBackendAvailable",
    "Preempted",
    "Priority",
    "PriorityRuleSpec",
    "Router",
    "RouterClient",
    "RouterError",
    "RouterEvent",
    "RouterSettings",
    "SessionOwner",
    "TooManySessions",
    "UpstreamError",
    "control_routes",
    "create_router_app",
    "ollama_routes",
    "open_gate",
    "router_lifespan",
    "router_of",
]
