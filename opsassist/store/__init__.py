"""The incident record: every session, message, pin, verdict, approval and event in one SQLite file."""

from __future__ import annotations

from opsassist.store.db import Store, StoreError, open_store
from opsassist.store.models import KINDS, ROLES, Message, Pin, SearchHit, SessionSummary

__all__ = [
    "KINDS",
    "ROLES",
    "Message",
    "Pin",
    "SearchHit",
    "SessionSummary",
    "Store",
    "StoreError",
    "open_store",
]
