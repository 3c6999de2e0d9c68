"""Named, ordered schema migrations (sqlite-utils `Migrations`).

Never edit a migration that has shipped: add a new one. Opening an older database applies whatever is
pending, each in its own transaction, so an upgrade never loses data.
"""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("opsassist")


@migrations(name="m001_wal", transactional=False)
def m001_wal(db: Database) -> None:
    # WAL cannot be switched on inside a transaction. It is persistent: set once, kept by the file.
    db.execute("PRAGMA journal_mode=WAL")


@migrations(name="m002_core")
def m002_core(db: Database) -> None:
    db.executescript(
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            title TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            meta TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            turn INTEGER NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
            kind TEXT NOT NULL CHECK (kind IN ('chat', 'think', 'nudge', 'tool_call', 'tool_result',
                                               'guard', 'approval', 'note')),
            content TEXT NOT NULL,
            created_at TEXT NOT NULL,
            tokens INTEGER,
            token_model TEXT,
            meta TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX messages_by_session ON messages(session_id, id);
        CREATE TABLE pins (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            message_id INTEGER NOT NULL REFERENCES messages(id),
            pinned_at TEXT NOT NULL,
            unpinned_at TEXT,
            rules TEXT NOT NULL DEFAULT '[]',
            patterns TEXT NOT NULL DEFAULT '[]'
        );
        CREATE INDEX pins_by_session ON pins(session_id, id);
        CREATE TABLE approvals (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            tool TEXT NOT NULL,
            arguments TEXT NOT NULL,
            pin_set TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired', 'executed')),
            reason TEXT,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL,
            decided_at TEXT,
            result TEXT
        );
        CREATE INDEX approvals_by_session ON approvals(session_id, status);
        CREATE TABLE events (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            message_id INTEGER REFERENCES messages(id),
            type TEXT NOT NULL,
            payload TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL
        );
        CREATE INDEX events_by_session ON events(session_id, id);
        """
    )


@migrations(name="m003_fts")
def m003_fts(db: Database) -> None:
    # Triggers keep the index in step with every insert, update and delete; rows that existed before this
    # migration are indexed by enable_fts itself.
    db["messages"].enable_fts(["content"], fts_version="FTS5", tokenize="unicode61", create_triggers=True)


@migrations(name="m004_challenges_and_reminders")
def m004_challenges_and_reminders(db: Database) -> None:
    # Approvals carry the HMAC signature of what they bind, and the command or action they hold, so a person
    # sees exactly what will run. Reminders are what the scheduled_jobs tool creates.
    db.executescript(
        """
        ALTER TABLE approvals ADD COLUMN signature TEXT NOT NULL DEFAULT '';
        ALTER TABLE approvals ADD COLUMN summary TEXT NOT NULL DEFAULT '';
        CREATE TABLE reminders (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id),
            title TEXT NOT NULL,
            message TEXT NOT NULL,
            due_at TEXT NOT NULL,
            created_at TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('pending', 'shown', 'dismissed')) DEFAULT 'pending',
            meta TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX reminders_due ON reminders(status, due_at);
        """
    )


@migrations(name="m005_approval_why")
def m005_approval_why(db: Database) -> None:
    # Why an action was held (the guard's notes), shown on the approval card next to what will run.
    db.execute("ALTER TABLE approvals ADD COLUMN why TEXT NOT NULL DEFAULT ''")
