"""Kenning's embedded Ollama router: priority lanes, GPU preemption with CPU fallback,
model sets, announce/release. See `create_router_app` and `RouterClient`.

Four rooms, none importing a room above it (an import-linter contract):
``http`` (the Ollama-compatible API and ``/router/*``) over ``scheduling`` (placement,
queues, slots, preemption, model-set swaps: its docstring tells the preemption story) over
``upstream`` (calls to one backend) and ``state`` (shared state, slot leases, events,
metrics). On top of them: `router` (the `Router` that composes them), `relay` (one model
request through the scheduler), `client`, `config`, `errors` and `tasks`; ``demo`` holds the
fake backends.

The names below are imported when first used, so that reading ``kenning.router.config``
(as ``kenning.settings`` does at every start of a command) loads neither the HTTP app nor
the scheduler and its Redis client.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_LAZY: dict[str, str] = {
    "Access": "kenning.router.http.access",
    "AccessDenied": "kenning.router.errors",
    "BackendFailure": "kenning.router.errors",
    "BackendSpec": "kenning.router.config",
    "BodyTooLarge": "kenning.router.errors",
    "EventKind": "kenning.router.state.events",
    "Gate": "kenning.router.http.access",
    "InvalidPriority": "kenning.router.errors",
    "InvalidRequest": "kenning.router.errors",
    "ModelSet": "kenning.router.scheduling.policy",
    "NoBackendAvailable": "kenning.router.errors",
    "OPEN": "kenning.router.http.access",
    "Preempted": "kenning.router.errors",
    "Priority": "kenning.router.scheduling.policy",
    "PriorityRuleSpec": "kenning.router.config",
    "Router": "kenning.router.router",
    "RouterClient": "kenning.router.client",
    "RouterError": "kenning.router.errors",
    "RouterEvent": "kenning.router.state.events",
    "RouterSettings": "kenning.router.config",
    "SessionOwner": "kenning.router.scheduling.sessions",
    "TooManySessions": "kenning.router.errors",
    "UpstreamError": "kenning.router.errors",
    "control_routes": "kenning.router.http.control",
    "create_router_app": "kenning.router.http.app",
    "ollama_routes": "kenning.router.http.proxy",
    "open_gate": "kenning.router.http.access",
    "router_lifespan": "kenning.router.http.app",
    "router_of": "kenning.router.http.app",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kenning.router' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
