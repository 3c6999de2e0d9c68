#!/usr/bin/env python3
"""Review commands on a 200,000-message database, and a 10,000-message import (issue 2's targets).

Run: `.venv/bin/python bench/bench_store.py` (builds its database under bench/out/, reused on later runs).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import report, time_process  # noqa: E402

from opsassist.store import open_store  # noqa: E402

OUT = Path(__file__).resolve().parent / "out" / "store"
WORDS = [
    "gateway",
    "pgbouncer",
    "replica",
    "timeout",
    "pool",
    "latency",
    "checkout",
    "rollback",
    "lock",
    "vacuum",
    "disk",
    "cpu",
    "memory",
    "kubectl",
    "journalctl",
    "upstream",
    "deploy",
    "canary",
    "error",
    "warning",
    "retry",
]


def build_big_db(home: Path, messages: int = 200_000, sessions: int = 400) -> None:
    db = home / "opsassist.db"
    if db.exists():
        return
    rng = random.Random(1)
    store = open_store(db)
    per = messages // sessions
    start = time.perf_counter()
    for s in range(sessions):
        sid = store.create_session(f"incident {s}")
        rows = []
        for i in range(per):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 60)))
            rows.append(
                (
                    "user" if i % 2 == 0 else "assistant",
                    "chat",
                    f"{text} host-{rng.randint(1, 99)}",
                    None,
                    None,
                )
            )
        store.add_messages(sid, rows)
    store.close()
    print(f"built {messages} messages in {sessions} sessions in {time.perf_counter() - start:.1f} s")


def main() -> int:
    home = OUT / "home"
    home.mkdir(parents=True, exist_ok=True)
    build_big_db(home)
    env = {"OPSASSIST_HOME": str(home)}
    ok = True
    ok &= report("opsassist sessions (200k messages, whole process)", *time_process(["sessions"], env), 0.5)
    ok &= report("opsassist sessions --json", *time_process(["sessions", "--json"], env), 0.5)
    ok &= report(
        "opsassist search 'pgbouncer timeout' (whole process)",
        *time_process(["search", "pgbouncer timeout"], env),
        0.5,
    )
    ok &= report("opsassist search rollback --json", *time_process(["search", "rollback", "--json"], env), 0.5)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        rng = random.Random(2)
        with path.open("w") as fh:
            for i in range(10_000):
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 80)))
                fh.write(json.dumps({"role": "user" if i % 2 == 0 else "assistant", "content": text}) + "\n")
        times = []
        for n in range(3):
            import_home = Path(tmp) / f"home{n}"
            start = time.perf_counter()
            time_process(["import", str(path)], {"OPSASSIST_HOME": str(import_home)}, runs=1)
            times.append(time.perf_counter() - start)
        ok &= report("opsassist import (10,000 messages, whole process)", sorted(times)[1], max(times), 2.0)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
