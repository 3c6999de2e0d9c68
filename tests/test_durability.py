"""Crash safety and concurrent access, with real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from opsassist.store import open_store

pytestmark = pytest.mark.slow

WRITER = textwrap.dedent(
    """
    import sys
    from opsassist.store import open_store
    store = open_store(sys.argv[1])
    session = store.create_session("writer")
    print("session", session, flush=True)
    i = 0
    while True:
        i += 1
        body = f"message {i} " + "log line ERR_UPSTREAM_TIMEOUT\\n" * (i % 50) * 200
        m = store.add_message(session, "user", body)
        print(m.id, flush=True)  # printed only after the commit returned
    """
)


def test_sigkill_mid_write_loses_nothing_committed(home: Path) -> None:
    db = home / "opsassist.db"
    open_store(db).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    assert proc.stdout is not None
    session = proc.stdout.readline().split()[1]
    committed: list[int] = []
    deadline = time.monotonic() + 30
    while len(committed) < 300 and time.monotonic() < deadline:
        committed.append(int(proc.stdout.readline()))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = open_store(db)
    assert store.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = {m.id for m in store.messages(session)}
    assert set(committed) <= stored
    assert len(committed) >= 300
    # The full-text index is consistent with the table after the crash.
    store.db.execute("INSERT INTO messages_fts(messages_fts) VALUES('integrity-check')")  # raises if not


CONTENDER = textwrap.dedent(
    """
    import sys
    from opsassist.store import open_store
    store = open_store(sys.argv[1])
    session = store.create_session(sys.argv[2])
    for i in range(int(sys.argv[3])):
        store.add_message(session, "user", f"{sys.argv[2]} message {i} pgbouncer")
        if i % 10 == 0:
            store.search("pgbouncer", limit=5)
            store.list_sessions()
    print("done", flush=True)
    """
)


def test_two_writers_and_readers_never_see_database_locked(home: Path) -> None:
    db = home / "opsassist.db"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CONTENDER, str(db), f"w{n}", "400"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(3)
    ]
    searches = []
    for _ in range(5):
        searches.append(
            subprocess.run(
                [sys.executable, "-m", "opsassist", "search", "pgbouncer", "--json"],
                capture_output=True,
                text=True,
                timeout=60,
            )
        )
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert out.strip() == "done"
    for result in searches:
        assert result.returncode == 0, result.stderr
        assert "locked" not in result.stderr
    store = open_store(db)
    assert sum(s.messages for s in store.list_sessions()) == 1200
