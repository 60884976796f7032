"""Router settings, read from ``KENNING_ROUTER_*`` variables (lists and objects as JSON).

Example: ``KENNING_ROUTER_GPU_BACKENDS='[{"name": "gpu0", "url": "http://127.0.0.1:11434",
"vram_budget_mb": 24000}]'`` and ``KENNING_ROUTER_CPU_BACKEND=http://127.0.0.1:11435``.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from kenning.router.scheduling.policy import Priority, PriorityRule


class BackendSpec(BaseModel):
    """One GPU Ollama instance."""

    name: str
    url: str
    vram_budget_mb: int = Field(default=0, ge=0)
    queue_depth: int | None = Field(default=None, ge=1)

    @field_validator("url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")


class PriorityRuleSpec(BaseModel):
    """A model-name glob and the priority it implies.

    Example: ``{"pattern": "*embed*", "priority": 3}``.
    """

    pattern: str
    priority: Priority

    def rule(self) -> PriorityRule:
        return PriorityRule(self.pattern, self.priority)


class RouterSettings(BaseSettings):
    """Everything the router can be told; passed explicitly, never read at import time."""

    model_config = SettingsConfigDict(
        env_prefix="KENNING_ROUTER_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    gpu_backends: list[BackendSpec] = Field(default_factory=list)
    cpu_backend: str | None = None
    cpu_backend_name: str = "cpu"
    priority_rules: list[PriorityRuleSpec] = Field(
        default_factory=lambda: [PriorityRuleSpec(pattern="*embed*", priority=Priority.BACKGROUND)]
    )
    orchestrator_models: list[str] = Field(default_factory=list)
    background_models: list[str] = Field(default_factory=list)
    queue_depth: int = Field(default=4, ge=1)
    auto_release_seconds: float = Field(default=300.0, gt=0)
    health_interval_seconds: float = Field(default=5.0, gt=0)
    health_backoff_max_seconds: float = Field(default=60.0, gt=0)
    breaker_failure_threshold: int = Field(default=3, ge=1)
    breaker_reset_seconds: float = Field(default=10.0, gt=0)
    connect_timeout_seconds: float = Field(default=2.0, gt=0)
    read_timeout_seconds: float | None = Field(default=600.0, gt=0)
    swap_timeout_seconds: float = Field(default=120.0, gt=0)
    preload_keep_alive: str = "30m"
    busy_retries: int = Field(default=3, ge=0)
    busy_retry_delay_seconds: float = Field(default=0.2, ge=0)
    max_attempts: int = Field(default=6, ge=1)
    redis_url: str | None = None
    state_prefix: str = "kenning:router:"
    event_buffer: int = Field(default=256, ge=1)
    # Where `kenning router` listens when run alone (next to Ollama's 11434).
    host: str = "127.0.0.1"
    port: int = Field(default=11430, ge=0, le=65535)

    @field_validator("cpu_backend")
    @classmethod
    def _strip(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else None

    @field_validator("gpu_backends")
    @classmethod
    def _unique_names(cls, value: list[BackendSpec]) -> list[BackendSpec]:
        names = [spec.name for spec in value]
        if len(set(names)) != len(names):
            raise ValueError("gpu backend names must be unique")
        return value

    @property
    def has_backends(self) -> bool:
        """True once a GPU or the CPU backend is set; Kenning mounts the router only then."""
        return bool(self.gpu_backends or self.cpu_backend)

    def rules(self) -> list[PriorityRule]:
        return [spec.rule() for spec in self.priority_rules]
