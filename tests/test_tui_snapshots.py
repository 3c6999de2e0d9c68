"""SVG snapshots of the TUI at 80x24, from a fixed incident record and a frozen clock.

Regenerate after an intended change with `python3 tasks.py test tests/test_tui_snapshots.py --snapshot-update`
and look at the SVGs before committing them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from textual.pilot import Pilot

from opsassist.config import load_settings
from opsassist.store import open_store
from opsassist.tui.app import OpsAssistApp
from opsassist.tui.screens import InspectorScreen
from opsassist.tui.widgets import ApprovalCard, Composer, MessageRow, Transcript
from tests.guard_pins import EN as RED_LINE

SESSION = "5e55100dbeef"
FROZEN = datetime(2026, 11, 29, 3, 40, tzinfo=UTC)


def seed(home: Path, with_approval: bool = False) -> None:
    store = open_store(home / "opsassist.db")
    store.db.execute(
        "INSERT INTO sessions (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
        [SESSION, "INC-4821 checkout 502s", "2026-11-29T03:14:00.000+00:00", "2026-11-29T03:30:00.000+00:00"],
    )
    rows = [
        ("user", "chat", "Paged for INC-4821: checkout 502s since 03:12 UTC via core-gateway and pgbouncer-2."),
        ("assistant", "chat", "Let's scope it: check **pgbouncer-2** pool stats and the gateway's upstream errors."),
        ("user", "chat", RED_LINE),
        ("assistant", "chat", "Understood: production is read-only for this incident."),
        ("user", "chat", "SHOW POOLS says cl_waiting is 212 on the checkout pool."),
        ("assistant", "chat", "The pool is exhausted: 50 of 50 server connections busy, 212 clients waiting."),
        ("user", "chat", "Could killing the gateway process be the fastest fix?"),
    ]
    stamps = [f"2026-11-29T03:{14 + 2 * i:02d}:00.000+00:00" for i in range(len(rows))]
    added = store.add_messages(SESSION, [(r, k, c, t, None) for (r, k, c), t in zip(rows, stamps, strict=True)])
    store.pin(
        added[2].id,
        rules=[
            {"summary": s}
            for s in ("any write (read-only)", "SQL DROP", "SQL DELETE", "SIGKILL (kill -9)", "restart of core-gateway")
        ],
    )
    if with_approval:
        store.add_approval(
            {
                "id": "ap-0123456789",
                "session_id": SESSION,
                "tool": "run_shell",
                "arguments": '{"command":"kubectl -n edge rollout restart deploy/checkout-api"}',
                "pin_set": "x",
                "created_at": "2026-11-29T03:38:00.000+00:00",
                "expires_at": "2026-11-29T03:43:00.000+00:00",
                "signature": "x",
                "summary": "kubectl -n edge rollout restart deploy/checkout-api",
                "why": "kubectl rollout restart: restarts the checkout-api pods",
            }
        )
    store.close()


def app() -> OpsAssistApp:
    return OpsAssistApp(load_settings(), SESSION, clock=lambda: FROZEN)


async def settle(pilot: Pilot[None], rows: int = 7) -> None:
    for _ in range(200):
        if len(pilot.app.query(MessageRow)) == rows:
            break
        await pilot.pause(0.05)
    pilot.app.query_one(Composer).cursor_blink = False
    await pilot.pause(0.2)
    # Pin the scroll position: rows settle their heights over a few frames after mounting.
    pilot.app.query_one(Transcript).scroll_end(animate=False, immediate=True)
    await pilot.pause(0.2)


def test_main_screen(snap_compare, home: Path) -> None:  # type: ignore[no-untyped-def]
    """The pinned red line with its rules at the top, messages with their live weights (older ones lower), the
    no-model banner, the composer and the footer with every key."""
    seed(home)
    assert snap_compare(app(), terminal_size=(80, 24), run_before=settle)


def test_approval_card(snap_compare, home: Path) -> None:  # type: ignore[no-untyped-def]
    """A held `kubectl rollout restart`: what will run, why it is held, 3m00s left, focused for a/d/esc."""
    seed(home, with_approval=True)

    async def focus_card(pilot: Pilot[None]) -> None:
        await settle(pilot)
        for _ in range(100):
            if pilot.app.query(ApprovalCard):
                break
            await pilot.pause(0.05)
        await pilot.press("ctrl+r")
        await pilot.pause(0.2)

    assert snap_compare(app(), terminal_size=(80, 24), run_before=focus_card)


def test_context_inspector(snap_compare, home: Path) -> None:  # type: ignore[no-untyped-def]
    """The next request's sources: the pin held at 1.00 in the block, the newest message, token counts."""
    seed(home)

    async def inspect(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await pilot.press("ctrl+t")
        for _ in range(400):
            if isinstance(pilot.app.screen, InspectorScreen):
                break
            await pilot.pause(0.05)
        await pilot.pause(0.3)

    assert snap_compare(app(), terminal_size=(80, 24), run_before=inspect)
