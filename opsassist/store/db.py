"""Opening the database safely, and every read and write the rest of opsassist makes.

Connections are bound to the thread that opened them (sqlite3's default); front ends keep the store on one
worker thread. Writes take the write lock up front (`BEGIN IMMEDIATE`) and wait on the busy timeout, so two
processes sharing the file (the TUI and `opsassist search`) never fail with "database is locked".
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlite_utils import Database

from opsassist.errors import OpsassistError
from opsassist.store.migrations import migrations
from opsassist.store.models import (
    SNIPPET_CLOSE,
    SNIPPET_OPEN,
    Message,
    Pin,
    SearchHit,
    SessionSummary,
    utc_now,
)

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 15_000
SESSION_ID_BYTES = 6  # 12 hex characters; people type unique prefixes of it


class StoreError(OpsassistError):
    """A problem a person must act on (bad file, unknown session); the message is one line."""


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _check_file(path: Path) -> None:
    """Refuse, without writing a byte, a file that is not SQLite or whose schema cannot be read."""
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        with path.open("rb") as fh:
            header = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StoreError(f"{path}: cannot read database: {exc.strerror or exc}") from None
    if header != SQLITE_HEADER:
        raise StoreError(f"{path}: not an SQLite database; the file was left untouched")
    try:
        probe = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_MS / 1000)
        try:
            probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            probe.close()
    except sqlite3.DatabaseError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return
        raise StoreError(f"{path}: database is unreadable or corrupt ({exc}); the file was left untouched") from None


def open_store(path: Path | str) -> Store:
    """Open (creating if needed) and upgrade the database at `path`."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"{path.parent}: cannot create data folder: {exc.strerror or exc}") from None
    _check_file(path)
    try:
        conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open database: {exc}") from None
    store = Store(conn, path)
    try:
        store._prepare()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"{path}: cannot use database: {exc}") from None
    return store


def fts_query(text: str) -> str:
    """Turn what a person typed into an FTS5 query: every word must appear, no operator syntax."""
    words = [w for w in re.split(r"\s+", text.strip()) if w]
    return " ".join('"' + w.replace('"', '""') + '"' for w in words)


class Store:
    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.path = path
        self.db = Database(conn, execute_plugins=False)

    def _prepare(self) -> None:
        conn = self.db.conn
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        if migrations.pending(self.db):
            with self._migration_lock():
                migrations.apply(self.db)

    @contextmanager
    def _migration_lock(self) -> Iterator[None]:
        # Two processes opening a new file at once must not both apply the same migration; an exclusive
        # lock on a side file serialises them (the migrations themselves commit one by one).
        import fcntl

        if self.path == Path(":memory:"):
            yield
            return
        lock_path = self.path.with_name(self.path.name + ".migrate-lock")
        with lock_path.open("a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def writing(self) -> Iterator[Database]:
        """One write transaction. Takes the write lock at once so reads inside it cannot go stale."""
        conn = self.db.conn
        if conn.in_transaction:
            with self.db.atomic():
                yield self.db
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            with self.db.atomic():
                yield self.db
        except BaseException:
            if conn.in_transaction:
                conn.rollback()
            raise
        conn.commit()

    # -- sessions -------------------------------------------------------------------------------------

    def create_session(self, title: str | None = None, meta: dict[str, Any] | None = None) -> str:
        now = utc_now()
        with self.writing() as db:
            while True:
                session_id = secrets.token_hex(SESSION_ID_BYTES)
                if not list(db.query("SELECT 1 FROM sessions WHERE id = ?", [session_id])):
                    break
            db.execute(
                "INSERT INTO sessions (id, title, created_at, updated_at, meta) VALUES (?, ?, ?, ?, ?)",
                [session_id, title, now, now, _json(meta or {})],
            )
        return session_id

    def resolve_session(self, prefix: str) -> str:
        """Return the full id of the one session whose id starts with `prefix`."""
        prefix = prefix.strip().lower()
        if not prefix or not re.fullmatch(r"[0-9a-f]+", prefix):
            raise StoreError(f"'{prefix}' is not a session id (session ids are hexadecimal)")
        rows = list(
            self.db.query(
                "SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 6",
                [prefix, prefix + "g"],
            )
        )
        if not rows:
            raise StoreError(f"no session with id '{prefix}' (see 'opsassist sessions')")
        if len(rows) > 1:
            shown = ", ".join(r["id"] for r in rows[:5])
            raise StoreError(f"session id '{prefix}' is ambiguous: matches {shown}; type more of it")
        return str(rows[0]["id"])

    def session(self, session_id: str) -> SessionSummary:
        rows = self._session_rows("WHERE s.id = ?", [session_id])
        if not rows:
            raise StoreError(f"no session with id '{session_id}'")
        return rows[0]

    def list_sessions(self, limit: int | None = None) -> list[SessionSummary]:
        tail = "ORDER BY s.updated_at DESC, s.id"
        if limit is not None:
            tail += f" LIMIT {int(limit)}"
        return self._session_rows(tail, [])

    def _session_rows(self, tail: str, params: Sequence[Any]) -> list[SessionSummary]:
        sql = f"""
            SELECT s.id, s.title, s.created_at, s.updated_at,
                   (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS n_messages,
                   (SELECT count(*) FROM pins p WHERE p.session_id = s.id AND p.unpinned_at IS NULL) AS n_pins
            FROM sessions s {tail}
        """
        return [
            SessionSummary(
                id=r["id"],
                title=r["title"],
                created_at=r["created_at"],
                updated_at=r["updated_at"],
                messages=r["n_messages"],
                pins=r["n_pins"],
            )
            for r in self.db.query(sql, params)
        ]

    def set_title(self, session_id: str, title: str) -> None:
        with self.writing() as db:
            db.execute("UPDATE sessions SET title = ? WHERE id = ?", [title, session_id])

    # -- messages -------------------------------------------------------------------------------------

    def add_message(
        self,
        session_id: str,
        role: str,
        content: str,
        *,
        kind: str = "chat",
        created_at: str | None = None,
        meta: dict[str, Any] | None = None,
    ) -> Message:
        return self.add_messages(session_id, [(role, kind, content, created_at, meta)])[0]

    def add_messages(
        self,
        session_id: str,
        rows: Iterable[tuple[str, str, str, str | None, dict[str, Any] | None]],
    ) -> list[Message]:
        """Append (role, kind, content, created_at, meta) rows in one transaction; turns continue the session."""
        added: list[Message] = []
        now = utc_now()
        with self.writing() as db:
            (last,) = db.execute(
                "SELECT coalesce(max(turn), 0) FROM messages WHERE session_id = ?", [session_id]
            ).fetchone()
            cursor = db.conn.cursor()
            for offset, (role, kind, content, created_at, meta) in enumerate(rows, start=1):
                stamp = created_at or now
                meta = meta or {}
                cursor.execute(
                    "INSERT INTO messages (session_id, turn, role, kind, content, created_at, meta)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [session_id, last + offset, role, kind, content, stamp, _json(meta)],
                )
                added.append(
                    Message(
                        id=int(cursor.lastrowid or 0),
                        session_id=session_id,
                        turn=last + offset,
                        role=role,
                        kind=kind,
                        content=content,
                        created_at=stamp,
                        meta=meta,
                    )
                )
            if added:
                db.execute(
                    "UPDATE sessions SET updated_at = max(updated_at, ?) WHERE id = ?",
                    [max(m.created_at for m in added), session_id],
                )
        return added

    def messages(self, session_id: str) -> list[Message]:
        return [
            self._message(r)
            for r in self.db.query("SELECT * FROM messages WHERE session_id = ? ORDER BY id", [session_id])
        ]

    def messages_after(self, session_id: str, after_id: int) -> list[Message]:
        """Messages added since `after_id`: what a front end has not shown yet."""
        rows = self.db.query(
            "SELECT * FROM messages WHERE session_id = ? AND id > ? ORDER BY id", [session_id, after_id]
        )
        return [self._message(r) for r in rows]

    def message(self, message_id: int) -> Message:
        rows = list(self.db.query("SELECT * FROM messages WHERE id = ?", [message_id]))
        if not rows:
            raise StoreError(f"no message with id {message_id}")
        return self._message(rows[0])

    @staticmethod
    def _message(r: dict[str, Any]) -> Message:
        return Message(
            id=r["id"],
            session_id=r["session_id"],
            turn=r["turn"],
            role=r["role"],
            kind=r["kind"],
            content=r["content"],
            created_at=r["created_at"],
            tokens=r["tokens"],
            token_model=r["token_model"],
            meta=json.loads(r["meta"]),
        )

    def set_token_counts(self, model: str, counts: dict[int, int]) -> None:
        """Cache token counts (per message, for one model) so the context compiler counts each text once."""
        if not counts:
            return
        with self.writing() as db:
            db.conn.executemany(
                "UPDATE messages SET tokens = ?, token_model = ? WHERE id = ?",
                [(n, model, mid) for mid, n in counts.items()],
            )

    # -- pins -----------------------------------------------------------------------------------------

    def pin(
        self,
        message_id: int,
        rules: list[dict[str, Any]] | None = None,
        patterns: list[str] | None = None,
        pinned_at: str | None = None,
    ) -> Pin:
        """Pin a message (a no-op returning the active pin if it is pinned already)."""
        message = self.message(message_id)
        with self.writing() as db:
            current = self._active_pin_row(message_id)
            if current is not None:
                return self._pin(current)
            cursor = db.execute(
                "INSERT INTO pins (session_id, message_id, pinned_at, rules, patterns) VALUES (?, ?, ?, ?, ?)",
                [
                    message.session_id,
                    message_id,
                    pinned_at or utc_now(),
                    _json(rules or []),
                    _json(patterns or []),
                ],
            )
            row = next(db.query("SELECT * FROM pins WHERE id = ?", [cursor.lastrowid]))
        return self._pin(row)

    def unpin(self, message_id: int) -> Pin | None:
        with self.writing() as db:
            current = self._active_pin_row(message_id)
            if current is None:
                return None
            db.execute("UPDATE pins SET unpinned_at = ? WHERE id = ?", [utc_now(), current["id"]])
            row = next(db.query("SELECT * FROM pins WHERE id = ?", [current["id"]]))
        return self._pin(row)

    def _active_pin_row(self, message_id: int) -> dict[str, Any] | None:
        rows = list(self.db.query("SELECT * FROM pins WHERE message_id = ? AND unpinned_at IS NULL", [message_id]))
        return rows[0] if rows else None

    def pins(self, session_id: str, *, active_only: bool = True) -> list[Pin]:
        where = "AND unpinned_at IS NULL" if active_only else ""
        rows = self.db.query(f"SELECT * FROM pins WHERE session_id = ? {where} ORDER BY id", [session_id])
        return [self._pin(r) for r in rows]

    @staticmethod
    def _pin(r: dict[str, Any]) -> Pin:
        return Pin(
            id=r["id"],
            session_id=r["session_id"],
            message_id=r["message_id"],
            pinned_at=r["pinned_at"],
            unpinned_at=r["unpinned_at"],
            rules=json.loads(r["rules"]),
            patterns=json.loads(r["patterns"]),
        )

    # -- events ---------------------------------------------------------------------------------------

    def add_event(self, session_id: str, type_: str, payload: dict[str, Any], message_id: int | None = None) -> int:
        with self.writing() as db:
            cursor = db.execute(
                "INSERT INTO events (session_id, message_id, type, payload, created_at) VALUES (?, ?, ?, ?, ?)",
                [session_id, message_id, type_, _json(payload), utc_now()],
            )
        return int(cursor.lastrowid or 0)

    def events(self, session_id: str) -> list[dict[str, Any]]:
        rows = self.db.query("SELECT * FROM events WHERE session_id = ? ORDER BY id", [session_id])
        return [{**r, "payload": json.loads(r["payload"])} for r in rows]

    # -- approvals ------------------------------------------------------------------------------------

    def add_approval(self, row: dict[str, Any]) -> None:
        with self.writing() as db:
            db.execute(
                "INSERT INTO approvals (id, session_id, tool, arguments, pin_set, status, created_at, expires_at,"
                " signature, summary, why) VALUES (:id, :session_id, :tool, :arguments, :pin_set, 'pending',"
                " :created_at, :expires_at, :signature, :summary, :why)",
                row,
            )

    def approval(self, approval_id: str) -> dict[str, Any] | None:
        rows = list(self.db.query("SELECT * FROM approvals WHERE id = ?", [approval_id]))
        return rows[0] if rows else None

    def approvals(self, session_id: str | None = None, status: str | None = "pending") -> list[dict[str, Any]]:
        where, params = [], []
        if session_id:
            where.append("session_id = ?")
            params.append(session_id)
        if status:
            where.append("status = ?")
            params.append(status)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        return list(self.db.query(f"SELECT * FROM approvals {clause} ORDER BY created_at", params))

    def decide_approval(self, approval_id: str, status: str, reason: str, result: Any = None) -> bool:
        """Move a pending challenge to `status`; False if it was not pending (single use: a replay loses)."""
        with self.writing() as db:
            cursor = db.execute(
                "UPDATE approvals SET status = ?, reason = ?, decided_at = ?, result = ?"
                " WHERE id = ? AND status = 'pending'",
                [status, reason, utc_now(), None if result is None else _json(result), approval_id],
            )
        return cursor.rowcount == 1

    def record_approval_result(self, approval_id: str, result: Any) -> None:
        with self.writing() as db:
            db.execute(
                "UPDATE approvals SET status = 'executed', result = ? WHERE id = ? AND status = 'approved'",
                [_json(result), approval_id],
            )

    # -- reminders ------------------------------------------------------------------------------------

    def add_reminder(self, session_id: str, title: str, message: str, due_at: str, meta: dict[str, Any]) -> int:
        with self.writing() as db:
            cursor = db.execute(
                "INSERT INTO reminders (session_id, title, message, due_at, created_at, meta)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [session_id, title, message, due_at, utc_now(), _json(meta)],
            )
        return int(cursor.lastrowid or 0)

    def reminders(self, status: str | None = None) -> list[dict[str, Any]]:
        clause = "WHERE status = ?" if status else ""
        return list(self.db.query(f"SELECT * FROM reminders {clause} ORDER BY due_at", [status] if status else []))

    def take_due_reminders(self, now: str) -> list[dict[str, Any]]:
        """Reminders whose time has come, marked shown so each surfaces once."""
        with self.writing() as db:
            due = list(
                db.query("SELECT * FROM reminders WHERE status = 'pending' AND due_at <= ? ORDER BY due_at", [now])
            )
            for row in due:
                db.execute("UPDATE reminders SET status = 'shown' WHERE id = ?", [row["id"]])
        return due

    # -- search ---------------------------------------------------------------------------------------

    def search(self, text: str, limit: int = 20) -> list[SearchHit]:
        query = fts_query(text)
        if not query:
            raise StoreError("search needs at least one word")
        sql = f"""
            SELECT m.id, m.session_id, m.role, m.kind, m.created_at, s.title,
                   snippet(messages_fts, 0, '{SNIPPET_OPEN}', '{SNIPPET_CLOSE}', '…', 16) AS snippet,
                   bm25(messages_fts) AS rank
            FROM messages_fts
            JOIN messages m ON m.id = messages_fts.rowid
            JOIN sessions s ON s.id = m.session_id
            WHERE messages_fts MATCH ?
            ORDER BY rank
            LIMIT ?
        """
        return [
            SearchHit(
                session_id=r["session_id"],
                session_title=r["title"],
                message_id=r["id"],
                role=r["role"],
                kind=r["kind"],
                created_at=r["created_at"],
                snippet=r["snippet"],
                rank=r["rank"],
            )
            for r in self.db.query(sql, [query, limit])
        ]
