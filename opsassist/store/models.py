"""Plain rows the store hands out. No SQLite types leak past the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

ROLES = ("user", "assistant", "system", "tool")
KINDS = ("chat", "think", "nudge", "tool_call", "tool_result", "guard", "approval", "note")


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def normalise_timestamp(value: str) -> str:
    """Parse an ISO-8601 timestamp and return it in UTC; naive times are taken as UTC. Raises ValueError."""
    parsed = datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Message:
    id: int
    session_id: str
    turn: int
    role: str
    kind: str
    content: str
    created_at: str
    tokens: int | None = None
    token_model: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Pin:
    id: int
    session_id: str
    message_id: int
    pinned_at: str
    unpinned_at: str | None
    rules: list[dict[str, Any]]
    patterns: list[str]

    @property
    def active(self) -> bool:
        return self.unpinned_at is None


@dataclass(frozen=True)
class SessionSummary:
    id: str
    title: str | None
    created_at: str
    updated_at: str
    messages: int
    pins: int


@dataclass(frozen=True)
class SearchHit:
    session_id: str
    session_title: str | None
    message_id: int
    role: str
    kind: str
    created_at: str
    snippet: str
    """Matched terms are wrapped in SNIPPET_OPEN / SNIPPET_CLOSE."""
    rank: float


SNIPPET_OPEN = "\ue000"
SNIPPET_CLOSE = "\ue001"
