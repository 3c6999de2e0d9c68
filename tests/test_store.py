"""The incident record: schema, migrations, FTS, exact storage, session ids."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from opsassist.store import Store, StoreError, open_store
from opsassist.store.migrations import migrations


def test_new_database_is_wal_with_every_migration(store: Store) -> None:
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert store.db.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert not migrations.pending(store.db)
    assert {"sessions", "messages", "pins", "approvals", "events", "messages_fts"} <= set(store.db.table_names())


def test_older_database_is_upgraded_without_loss(home: Path) -> None:
    path = home / "old.db"
    path.parent.mkdir(parents=True)
    db = Database(path)
    migrations.apply(db, stop_before="m003_fts")  # a database from before full-text search
    db.execute("INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('abc123abc123', 'old', 't', 't')")
    db.execute(
        "INSERT INTO messages (session_id, turn, role, kind, content, created_at)"
        " VALUES ('abc123abc123', 1, 'user', 'chat', 'pgbouncer pool exhausted on db-prod-3', 't')"
    )
    db.close()

    store = open_store(path)
    assert not migrations.pending(store.db)
    assert [m.content for m in store.messages("abc123abc123")] == ["pgbouncer pool exhausted on db-prod-3"]
    hits = store.search("pgbouncer")  # rows written before the FTS migration are indexed by it
    assert [h.session_id for h in hits] == ["abc123abc123"]


def test_content_is_stored_exactly(store: Store) -> None:
    session = store.create_session("exact")
    samples = [
        "本次演练处于生产只读模式，任何情况下严禁执行 DROP、DELETE 或重启核心网关",
        "emoji 🔥 and combining é and RTL \u202egnp.exe",
        "\x1b[2J\x1b]0;owned\x07 escape sequences, NUL \x00 and CR\r",
        "x" * 200_000,  # one very long line
        "".join(f"line {i}: 2026-11-29T03:12:00Z core-gateway ERR_UPSTREAM_TIMEOUT\n" for i in range(160_000)),
    ]
    assert len(samples[-1]) > 10_000_000
    ids = [store.add_message(session, "user", s).id for s in samples]
    assert [store.message(i).content for i in ids] == samples


def test_turns_continue_within_a_session(store: Store) -> None:
    a = store.create_session()
    b = store.create_session()
    store.add_message(a, "user", "one")
    store.add_message(b, "user", "other session")
    store.add_message(a, "assistant", "two")
    assert [m.turn for m in store.messages(a)] == [1, 2]
    assert [m.turn for m in store.messages(b)] == [1]


def test_search_ranks_and_takes_any_text(store: Store) -> None:
    s = store.create_session("search")
    store.add_message(s, "user", "kill -9 on the gateway would drop requests")
    dense = store.add_message(s, "user", "gateway gateway gateway latency")
    store.add_message(s, "assistant", "nothing relevant here")
    store.add_message(s, "user", "回滚 CHG-1193 之后连接池恢复")
    assert [h.message_id for h in store.search("gateway")][0] == dense.id
    assert len(store.search('kill -9 "gateway')) == 1  # operators and quotes are plain words
    assert len(store.search("CHG-1193")) == 1
    with pytest.raises(StoreError):
        store.search("   ")


def test_search_index_follows_updates_and_deletes(store: Store) -> None:
    s = store.create_session()
    m = store.add_message(s, "user", "alpha")
    store.db.execute("UPDATE messages SET content = 'beta' WHERE id = ?", [m.id])
    assert store.search("alpha") == []
    assert len(store.search("beta")) == 1


def test_session_ids_resolve_from_unique_prefixes(store: Store) -> None:
    for sid in ("ab12cd34ef56", "ab12ff000000", "cd0000000000"):
        store.db.execute("INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, 't', 'x', 'x')", [sid])
    assert store.resolve_session("cd") == "cd0000000000"
    assert store.resolve_session("AB12C") == "ab12cd34ef56"
    with pytest.raises(StoreError, match="ambiguous"):
        store.resolve_session("ab12")
    with pytest.raises(StoreError, match="no session"):
        store.resolve_session("ee")
    with pytest.raises(StoreError, match="not a session id"):
        store.resolve_session("xyz; DROP TABLE")


def test_pins_are_recorded_with_rules_and_can_be_unpinned(store: Store) -> None:
    s = store.create_session()
    m = store.add_message(s, "user", "never DROP anything")
    pin = store.pin(m.id, rules=[{"id": "sql:DROP"}], patterns=["DROP"])
    assert store.pin(m.id).id == pin.id  # pinning twice keeps one pin
    assert [p.rules for p in store.pins(s)] == [[{"id": "sql:DROP"}]]
    store.unpin(m.id)
    assert store.pins(s) == []
    assert len(store.pins(s, active_only=False)) == 1


def test_not_sqlite_file_is_refused_untouched(home: Path) -> None:
    path = home / "opsassist.db"
    path.parent.mkdir(parents=True)
    path.write_text("this is my shell history, not a database\n")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not an SQLite database"):
        open_store(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in home.iterdir()) == ["opsassist.db"]


def test_corrupt_database_is_refused_untouched(home: Path) -> None:
    path = home / "opsassist.db"
    store = open_store(path)
    s = store.create_session("to be corrupted")
    store.add_message(s, "user", "x" * 50_000)
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # wreck the schema page, keep the header
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError, match="corrupt|malformed|unreadable"):
        open_store(path)
    assert path.read_bytes() == bytes(data)


def test_memory_and_file_stores_refuse_bad_roles(store: Store) -> None:
    s = store.create_session()
    with pytest.raises(sqlite3.IntegrityError):
        store.add_message(s, "hacker", "x")
    assert store.messages(s) == []  # the failed write left nothing behind
