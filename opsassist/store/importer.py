"""`opsassist import FILE.jsonl`: a transcript from elsewhere becomes a session, all or nothing.

Format (DESIGN.md): one JSON object a line, `{"role": "user"|"assistant"|"system"|"tool", "content": str,
"pinned": bool (optional), "created_at": ISO-8601 (optional)}`. Blank lines are skipped. The whole file is
checked before anything is written, and written in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opsassist.store.db import Store, StoreError
from opsassist.store.models import ROLES, normalise_timestamp

ALLOWED_KEYS = {"role", "content", "pinned", "created_at"}


@dataclass(frozen=True)
class ImportRecord:
    role: str
    content: str
    pinned: bool
    created_at: str | None


class ImportFileError(StoreError):
    """The file cannot be imported; the message names the line."""


def parse_jsonl(path: Path) -> list[ImportRecord]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ImportFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise ImportFileError(f"{path}:{line}: not UTF-8 text") from None
    records: list[ImportRecord] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        records.append(_parse_line(path, number, line))
    if not records:
        raise ImportFileError(f"{path}: no messages in file (expected one JSON object per line)")
    return records


def _parse_line(path: Path, number: int, line: str) -> ImportRecord:
    where = f"{path}:{number}"
    try:
        obj: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ImportFileError(f"{where}: malformed JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(obj, dict):
        raise ImportFileError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    unknown = sorted(set(obj) - ALLOWED_KEYS)
    if unknown:
        raise ImportFileError(
            f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(ALLOWED_KEYS))}"
        )
    role = obj.get("role")
    if role not in ROLES:
        raise ImportFileError(f"{where}: unknown role {role!r}; expected one of {', '.join(ROLES)}")
    if "content" not in obj:
        raise ImportFileError(f"{where}: missing 'content'")
    content = obj["content"]
    if not isinstance(content, str):
        raise ImportFileError(f"{where}: 'content' must be a string, got {type(content).__name__}")
    pinned = obj.get("pinned", False)
    if not isinstance(pinned, bool):
        raise ImportFileError(f"{where}: 'pinned' must be true or false")
    created_at = obj.get("created_at")
    if created_at is not None:
        if not isinstance(created_at, str):
            raise ImportFileError(f"{where}: 'created_at' must be an ISO-8601 string")
        try:
            created_at = normalise_timestamp(created_at)
        except ValueError:
            raise ImportFileError(f"{where}: 'created_at' is not an ISO-8601 timestamp: {created_at!r}") from None
    return ImportRecord(role=role, content=content, pinned=pinned, created_at=created_at)


RuleDeriver = Callable[[str], tuple[list[dict[str, Any]], list[str]]]


def import_records(
    store: Store, records: list[ImportRecord], title: str | None, derive_rules: RuleDeriver | None = None
) -> str:
    """Write the records as a new session in one transaction; return its id."""
    with store.writing():
        session_id = store.create_session(title=title, meta={"imported": True})
        added = store.add_messages(session_id, [(r.role, "chat", r.content, r.created_at, None) for r in records])
        # The session spans its messages' own times, not the moment of the import.
        store.db.execute(
            "UPDATE sessions SET created_at = ?, updated_at = ? WHERE id = ?",
            [min(m.created_at for m in added), max(m.created_at for m in added), session_id],
        )
        for record, message in zip(records, added, strict=True):
            if record.pinned:
                rules, patterns = derive_rules(message.content) if derive_rules else ([], [])
                store.pin(message.id, rules=rules, patterns=patterns, pinned_at=message.created_at)
    return session_id
