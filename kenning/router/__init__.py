"""Kenning's embedded Ollama router: priority lanes, GPU preemption with CPU fallback,
model sets, announce/release. See `create_router_app` and `RouterClient`."""

from .access import OPEN, Access, Gate, open_gate
from .app import create_router_app, router_lifespan, router_of
from .client import RouterClient
from .config import BackendSpec, PriorityRuleSpec, RouterSettings
from .control import control_routes
from .errors import (
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
from .events import EventKind, RouterEvent
from .policy import ModelSet, Priority
from .proxy import ollama_routes
from .router import Router
from .sessions import SessionOwner

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
