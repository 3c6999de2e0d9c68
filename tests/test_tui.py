"""The TUI, driven through Textual's Pilot, with the scripted model server behind it."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual import events
from textual.pilot import Pilot
from textual.widgets import Static

from opsassist.config import load_settings
from opsassist.store import Store, open_store
from opsassist.tui.app import OpsAssistApp
from opsassist.tui.screens import InspectorScreen, SessionBrowser
from opsassist.tui.widgets import PAGE, WINDOW, ApprovalCard, Composer, MessageRow, PinsPanel, Transcript
from tests.fake_llm import ScriptedLLM, Step
from tests.guard_pins import EN as RED_LINE

FROZEN = datetime(2026, 11, 29, 3, 30, tzinfo=UTC)


def make_app(session_id: str | None = None, clock: Callable[[], datetime] | None = None) -> OpsAssistApp:
    return OpsAssistApp(load_settings(), session_id, clock=clock or (lambda: datetime.now(UTC)))


async def until(pilot: Pilot[None], condition: Callable[[], bool], timeout: float = 15) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("the app did not get there in time")
        await pilot.pause(0.05)


async def send(pilot: Pilot[None], text: str) -> None:
    composer = pilot.app.query_one(Composer)
    composer.focus()
    composer.text = text
    await pilot.press("enter")


def plain(renderable: Any) -> str:
    """What a renderable shows, as plain text."""
    console = Console(width=100, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def rows(app: OpsAssistApp) -> list[MessageRow]:
    return list(app.query(MessageRow))


def db(home: Path) -> Store:
    return open_store(home / "opsassist.db")


async def test_a_reply_streams_in_and_is_stored(llm: ScriptedLLM, home: Path) -> None:
    llm.add(Step(text="The **pgbouncer-2** pool is saturated: cl_waiting 212 on db-prod-3.", chunk=3))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        seen_live: list[bool] = []
        app.set_interval(0.01, lambda: seen_live.append(bool(app.query("#live"))))
        await send(pilot, "what is wrong with the pool?")
        await until(pilot, lambda: any(r.message.role == "assistant" for r in rows(app)))
        assert any(seen_live), "the reply should stream through the live widget"
        assert not app.query("#live")
        assistant = [r for r in rows(app) if r.message.role == "assistant"][0]
        assert "pgbouncer-2" in assistant.message.content
    messages = db(home).messages(app.session_id or "")
    assert [m.role for m in messages] == ["user", "assistant"]


async def test_pin_with_one_key_reaches_the_next_request(llm: ScriptedLLM, home: Path) -> None:
    llm.add(Step(text="Understood."), Step(text="No: that would be kill -9, which the pin forbids."))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, RED_LINE)
        await until(pilot, lambda: len(rows(app)) == 2)
        await pilot.press("escape")
        assert app.focused is app.query_one(Transcript)
        await pilot.press("k", "p")
        await until(pilot, lambda: bool(app.pins))
        panel = app.query_one(PinsPanel)
        assert "SIGKILL (kill -9)" in plain(panel.render())
        await pilot.press("i")
        assert app.focused is app.query_one(Composer)
        await send(pilot, "can we just kill -9 the gateway?")
        await until(pilot, lambda: len(rows(app)) == 4)
    (pin,) = db(home).pins(app.session_id or "")
    assert pin.message_id == rows_first_id(home, app)
    last = llm.requests[-1]["messages"]
    assert RED_LINE in last[-2]["content"] and last[-1]["content"] == "can we just kill -9 the gateway?"


def rows_first_id(home: Path, app: OpsAssistApp) -> int:
    return db(home).messages(app.session_id or "")[0].id


async def test_weights_change_after_a_new_message(home: Path) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        for i in range(3):
            await send(pilot, f"note {i}: replica lag 4{i}s on db-prod-4")
            await until(pilot, lambda n=i: len(rows(app)) == n + 1)
        first = rows(app)[0]
        before = first.weight.value
        await send(pilot, "note 3: lag recovered")
        await until(pilot, lambda: len(rows(app)) == 4)
        assert first.weight.value < before
        assert "0." in plain(first.render())


async def test_blocked_command_names_the_pin(home: Path) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, RED_LINE)
        await until(pilot, lambda: len(rows(app)) == 1)
        await send(pilot, "/pin")
        await until(pilot, lambda: bool(app.pins))
        await send(pilot, "!kill -9 4821")
        await until(pilot, lambda: any(r.has_class("-blocked") for r in rows(app)))
        blocked = next(r for r in rows(app) if r.has_class("-blocked"))
        shown = plain(blocked.render())
        assert "BLOCKED" in shown and "crosses pin" in shown and "never kill -9" in shown


async def test_approve_and_deny_from_the_card(llm: ScriptedLLM, home: Path) -> None:
    def hold(title: str) -> list[Step]:
        arguments = {"title": title, "message": "check merge status", "schedule_time": "+30m"}
        return [
            Step(tool_calls=[("execute_tool", {"tool_name": "scheduled_jobs", "arguments": arguments})]),
            Step(text="Held for your approval."),
        ]

    llm.add(*hold("approve me"), *hold("deny me"))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "remind me to check the PR")
        await until(pilot, lambda: bool(app.query(ApprovalCard)))
        await pilot.press("ctrl+r")
        assert isinstance(app.focused, ApprovalCard)
        await pilot.press("a")
        await until(pilot, lambda: not app.query(ApprovalCard))
        await until(pilot, lambda: not app.turn_running)
        await send(pilot, "and another one")
        await until(pilot, lambda: bool(app.query(ApprovalCard)))
        await pilot.press("ctrl+r", "escape")
        assert app.query(ApprovalCard), "escape defers: the card stays"
        await pilot.press("ctrl+r", "d")
        await until(pilot, lambda: not app.query(ApprovalCard))
    store = db(home)
    assert [r["title"] for r in store.reminders()] == ["approve me"]
    statuses = sorted(r["status"] for r in store.approvals(app.session_id, status=None))
    assert statuses == ["denied", "executed"]


async def test_open_an_old_session_from_the_browser(home: Path) -> None:
    store = db(home)
    old = store.create_session("INC-4821 checkout 502s")
    for i in range(5):
        store.add_message(old, "user", f"old incident message {i} about pgbouncer-2")
    store.close()
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, SessionBrowser))
        await pilot.press("tab", "enter")
        await until(pilot, lambda: app.session_id == old and len(rows(app)) == 5)
        # Search finds messages across sessions.
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, SessionBrowser))
        for key in "pgbouncer":
            await pilot.press(key)
        await pilot.pause(0.3)
        assert "old incident message" in str(app.screen.query_one("#browser-list").get_option_at_index(0).prompt)


async def test_switching_theme_is_remembered(home: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.theme == "opsassist-dark"
        app.theme = "opsassist-high-contrast"
        await pilot.pause(0.1)
        assert app.theme_variables["pin"].upper() == "#FF00FF"
    assert json.loads((home / "ui-state.json").read_text()) == {"theme": "opsassist-high-contrast"}
    again = make_app()
    async with again.run_test(size=(80, 24)):
        assert again.theme == "opsassist-high-contrast"


async def test_a_broken_user_theme_is_reported_not_fatal(home: Path) -> None:
    (home / "themes").mkdir(parents=True)
    (home / "themes" / "broken.toml").write_text('name = "broken"\nprimary = "not-a-colour"\n')
    app = make_app()
    async with app.run_test(size=(80, 24)):
        assert any("broken.toml" in p for p in app.theme_problems)
        assert "broken" not in app.available_themes


async def test_escape_sequences_are_shown_not_executed(home: Path) -> None:
    store = db(home)
    session = store.create_session("escapes")
    store.add_message(session, "tool", "\x1b]0;pwned\x07\x1b[2J\x1b[31mred", kind="note")
    store.close()
    app = make_app(session)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: len(rows(app)) == 1)
        shown = plain(rows(app)[0].render())
        assert "\x1b" not in shown and "␛[31mred" in shown


async def test_a_10_mb_paste_does_not_freeze_the_composer(home: Path) -> None:
    big = "2026-11-29T03:12:00Z core-gateway ERR_UPSTREAM_TIMEOUT upstream=10.0.4.17\n" * 140_000
    assert len(big) > 10_000_000
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.query_one(Composer)
        composer.focus()
        started = asyncio.get_running_loop().time()
        composer.post_message(events.Paste(big))
        await pilot.pause(0.1)
        assert len(composer.text) < 100, "the paste is held as a placeholder"
        await pilot.press("enter")
        await until(pilot, lambda: len(rows(app)) == 1)
        assert asyncio.get_running_loop().time() - started < 10
    stored = db(home).messages(app.session_id or "")[0]
    assert stored.content == big


async def test_model_error_mid_stream_keeps_what_arrived(llm: ScriptedLLM, home: Path) -> None:
    llm.add(Step(text="The pool is exhausted because of CHG-1193 and", chunk=4, cut_after=6))
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "why?")
        await until(pilot, lambda: any(r.message.meta.get("incomplete") for r in rows(app)))
        partial = next(r for r in rows(app) if r.message.meta.get("incomplete"))
        assert "incomplete" in plain(partial.render())
        assert not app.turn_running


async def test_no_model_banner_and_notes(home: Path) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        assert "No model configured" in str(app.query_one("#banner", Static).content)
        await send(pilot, "03:14 paged: checkout 502s")
        await until(pilot, lambda: len(rows(app)) == 1)
        assert rows(app)[0].message.kind == "note"


async def test_inspector_shows_the_next_request(home: Path) -> None:
    store = db(home)
    session = store.create_session("inspect")
    pinned = store.add_message(session, "user", RED_LINE)
    store.pin(pinned.id)
    store.add_message(session, "user", "what next?")
    store.close()
    app = make_app(session)
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: len(rows(app)) == 2)
        await pilot.press("ctrl+t")
        await until(pilot, lambda: isinstance(app.screen, InspectorScreen), timeout=30)
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        body = plain(screen.view)
        assert "pin block" in body and "compiled" in body


async def test_keys_are_remappable(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSASSIST_KEYS", '{"app.open_session": "f5"}')
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f5")
        await until(pilot, lambda: isinstance(app.screen, SessionBrowser))


async def test_session_of_5000_messages_mounts_a_window(home: Path) -> None:
    store = db(home)
    session = store.create_session("long")
    store.add_messages(
        session, [("user" if i % 2 == 0 else "assistant", "chat", f"message {i}", None, None) for i in range(5000)]
    )
    store.close()
    app = make_app(session)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: len(rows(app)) > 0, timeout=10)
        assert len(rows(app)) == WINDOW and len(app.messages) == 5000
        transcript = app.query_one(Transcript)
        transcript.focus()
        transcript.selected = 0
        await pilot.press("up")
        await until(pilot, lambda: len(rows(app)) == WINDOW + PAGE)
        assert rows(app)[0].message.content == f"message {5000 - WINDOW - PAGE}"
