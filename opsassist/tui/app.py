"""The opsassist TUI: chat, one-key pinning, live decay weights, approvals and blocks in view.

The app decides; widgets render; the record is reached only off the UI thread (service.StoreThread for quick
work, thread workers with their own connection for agent turns and approved commands). The agent's events
arrive as Textual messages posted from its worker thread. litellm is imported after the first screen is up,
in a thread, never on the UI thread.

| Key | Action |
| --- | --- |
| enter | send (`!cmd` runs a shell command through the guard; `/pin [N]`, `/unpin N`) |
| escape | from the composer, select messages in the transcript |
| ctrl+r | review the newest held action (`a` approve, `d` deny, `escape` later) |
| ctrl+t | context inspector: exactly what the model receives next |
| ctrl+n | new session |
| ctrl+o | open a past session (with search) |
| ctrl+p | command palette (themes, every action) |
| f1 | keys and help |
| ctrl+q | quit |
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import partial
from typing import Any, ClassVar

from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message as TextualMessage
from textual.screen import Screen
from textual.widgets import Footer, Header, Markdown, Static

from opsassist.agent.loop import Event
from opsassist.agent.session_context import decay_policy
from opsassist.config import LoadedSettings
from opsassist.guard.rules import derive_rules_for_store
from opsassist.store import Message, Pin, Store, open_store
from opsassist.textsafe import terminal_safe
from opsassist.tui.screens import InspectorScreen, SessionBrowser
from opsassist.tui.service import StoreThread
from opsassist.tui.themes import DEFAULT_THEME, FALLBACK_VARIABLES, load_themes
from opsassist.tui.widgets import (
    PAGE,
    WINDOW,
    ApprovalCard,
    Composer,
    MessageRow,
    PinsPanel,
    Transcript,
    Weight,
)

STREAM_FLUSH_SECONDS = 0.08  # at most ~12 screen updates a second while a reply streams
REMINDER_POLL_SECONDS = 20.0
NO_MODEL = "No model configured: notes, pins, the guard and !cmd work. Set OPSASSIST_MODEL to chat (see README)."


class AgentEvent(TextualMessage):
    """An event of the agent loop, posted from the turn's worker thread."""

    def __init__(self, event: Event) -> None:
        super().__init__()
        self.event = event


class ShellDone(TextualMessage):
    """A `!cmd` finished: ran, was held for approval, or was blocked."""

    def __init__(self, status: str) -> None:
        super().__init__()
        self.status = status


class OpsAssistApp(App[None]):
    TITLE = "opsassist"
    CSS = """
    Screen { layout: vertical; }
    #banner { padding: 0 1; background: $warning 20%; color: $foreground; height: auto; }
    #status { height: 1; padding: 0 1; color: $text-muted; }
    #cards { height: auto; max-height: 12; }
    #live-box { height: 40%; padding: 0 1; border-top: dashed $primary 40%; display: none; }
    #live-box.-streaming { display: block; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+r",
            "review_approval",
            "Approvals",
            id="app.approvals",
            tooltip="Review the newest action held for approval",
        ),
        Binding(
            "ctrl+t",
            "inspector",
            "Context",
            id="app.inspector",
            tooltip="Show exactly what the model receives next, with weights and tokens",
        ),
        Binding("ctrl+n", "new_session", "New", id="app.new_session", tooltip="Start a new session"),
        Binding("ctrl+o", "open_session", "Sessions", id="app.open_session", tooltip="Browse and search past sessions"),
        Binding("f1", "help", "Keys", id="app.help", tooltip="Show every key"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", tooltip="Quit opsassist", priority=True),
    ]

    def __init__(
        self,
        loaded: LoadedSettings,
        session_id: str | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        super().__init__()
        self.loaded = loaded
        self.settings = loaded.settings
        self.session_id = session_id
        self.clock = clock
        self.store_thread = StoreThread(loaded.paths.database)
        self.messages: list[Message] = []
        self.pins: dict[int, Pin] = {}
        self.first_mounted = 0
        self.turn_running = False
        self._pending_text: list[str] = []
        self._live: Markdown | None = None
        self._live_stream: Any = None
        self.theme_problems: list[str] = []

    # -- layout ---------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        if not self.settings.model:
            yield Static(NO_MODEL, id="banner")
        yield PinsPanel(self.palette)
        yield Transcript(id="transcript")
        # The live reply streams outside the transcript, so its growth never reflows the rows above it.
        yield VerticalScroll(id="live-box")
        yield Vertical(id="cards")
        yield Static("", id="status")
        yield Composer()
        yield Footer()

    def on_mount(self) -> None:
        self._register_themes()
        if self.settings.keys:
            self.set_keymap(self.settings.keys)
        self.query_one(PinsPanel).show([])
        self.query_one(Composer).focus()
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        self.set_interval(REMINDER_POLL_SECONDS, self._poll_reminders)
        self.set_interval(STREAM_FLUSH_SECONDS, self._flush_stream)
        self._warm_model_client()
        if self.session_id:
            self.open_session(self.session_id)
        else:
            self._set_status("new session: type a message, or ctrl+o to open a past one")

    async def on_unmount(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.store_thread.close)

    # -- themes ---------------------------------------------------------------------------------------

    def _register_themes(self) -> None:
        loaded = load_themes(self.loaded.paths.themes_dir)
        for theme in loaded.themes:
            self.register_theme(theme)
        self.theme_problems = loaded.problems
        for problem in loaded.problems:
            self.notify(problem, title="theme skipped", severity="warning", timeout=10)
        wanted = self.settings.theme or self._remembered_theme() or DEFAULT_THEME
        if wanted not in self.available_themes:
            self.notify(f"theme {wanted!r} is not installed; using {DEFAULT_THEME}", severity="warning")
            wanted = DEFAULT_THEME
        self.theme = wanted

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Textual's own themes (also selectable) lack opsassist's variables: fall back to the default theme's.
        return dict(FALLBACK_VARIABLES)

    def _remembered_theme(self) -> str | None:
        try:
            return json.loads(self.loaded.paths.ui_state.read_text()).get("theme")
        except (OSError, ValueError, AttributeError):
            return None

    def _theme_changed(self, theme: Any) -> None:
        try:
            self.loaded.paths.ui_state.parent.mkdir(parents=True, exist_ok=True)
            self.loaded.paths.ui_state.write_text(json.dumps({"theme": theme.name}))
        except OSError as exc:
            self.notify(f"could not remember the theme: {exc}", severity="warning")
        for row in self.query(MessageRow):
            row.refresh()
        self.query_one(PinsPanel).refresh()

    def palette(self) -> dict[str, str]:
        """The theme's colours by name, for Rich renderables (which cannot read TCSS variables)."""
        variables = self.theme_variables
        return {
            k: variables.get(k, "")
            for k in (
                "pin",
                "blocked",
                "approval",
                "weight-high",
                "weight-mid",
                "weight-low",
                "think",
                "tool",
                "warning",
            )
        }

    # -- sessions -------------------------------------------------------------------------------------

    @work(exclusive=True, group="session")
    async def open_session(self, session_id: str) -> None:
        def load(store: Store) -> tuple[Any, list[Message], list[Pin], list[dict[str, Any]]]:
            return (
                store.session(session_id),
                store.messages(session_id),
                store.pins(session_id),
                store.approvals(session_id),
            )

        summary, messages, pins, approvals = await self.store_thread.run(load)
        self.session_id = session_id
        self.messages = messages
        self.pins = {p.message_id: p for p in pins}
        transcript = self.query_one(Transcript)
        await transcript.remove_children()
        await self.query_one("#cards").remove_children()
        self.first_mounted = max(0, len(messages) - WINDOW)
        await transcript.mount_all(MessageRow(m, self.palette) for m in messages[self.first_mounted :])
        if self.first_mounted:
            await transcript.mount(
                Static(f"▲ {self.first_mounted} older messages (select up to load)", id="older"), before=0
            )
        self._refresh_weights()
        transcript.scroll_end(animate=False)
        for row in approvals:
            await self._show_card(row)
        self.sub_title = f"{summary.title or 'untitled'} · {session_id}"
        self._set_status(f"opened session {session_id}: {len(messages)} messages")

    async def _ensure_session(self, first_text: str) -> str:
        if self.session_id is None:
            title = " ".join(first_text.split())[:60]
            self.session_id = await self.store_thread.run(lambda s: s.create_session(title))
            self.sub_title = f"{title} · {self.session_id}"
        return self.session_id

    async def sync_messages(self) -> None:
        """Mount the messages the record has that the screen does not, and recompute every weight."""
        if self.session_id is None:
            return
        session_id = self.session_id
        after = self.messages[-1].id if self.messages else 0
        fresh = await self.store_thread.run(lambda s: s.messages_after(session_id, after))
        if not fresh:
            return
        self.messages.extend(fresh)
        transcript = self.query_one(Transcript)
        at_end = transcript.is_vertical_scroll_end
        await transcript.mount_all(MessageRow(m, self.palette) for m in fresh)
        await self._trim_window()
        self._refresh_weights()
        if at_end or self.turn_running:
            transcript.scroll_end(animate=False)

    async def _trim_window(self) -> None:
        rows = self.query_one(Transcript).rows()
        extra = len(rows) - WINDOW - PAGE
        if extra > 0:
            for row in rows[:extra]:
                await row.remove()
            self.first_mounted += extra

    async def load_older(self) -> None:
        if self.first_mounted == 0:
            return
        start = max(0, self.first_mounted - PAGE)
        transcript = self.query_one(Transcript)
        rows = [MessageRow(m, self.palette) for m in self.messages[start : self.first_mounted]]
        first = transcript.rows()[0] if transcript.rows() else None
        await transcript.mount_all(rows, before=first)
        self.first_mounted = start
        older = transcript.query("#older")
        if start == 0:
            await older.remove()
        else:
            older.first(Static).update(f"▲ {start} older messages (select up to load)")
        self._refresh_weights()
        transcript.selected = len(rows) - 1

    def _refresh_weights(self) -> None:
        """Each message's live weight and how it goes out in the next request (pinned: held at 1)."""
        policy = decay_policy(self.settings)
        newest = next(
            (
                i
                for i in range(len(self.messages) - 1, -1, -1)
                if self.messages[i].role == "user" and self.messages[i].kind == "chat"
            ),
            None,
        )
        # Without a user chat message (notes only, no model), messages age relative to the newest one.
        anchor = newest if newest is not None else len(self.messages) - 1
        current_turn = self.messages[anchor].turn if self.messages else 0
        now = self.clock()
        weights: dict[int, Weight] = {}
        for index, m in enumerate(self.messages[self.first_mounted :], start=self.first_mounted):
            w = policy.weight(turn=m.turn, current_turn=current_turn, created_at=m.created_at, now=now)
            if index >= anchor:
                treatment, w = ("newest" if index == newest else "current"), 1.0
            else:
                treatment = "verbatim" if policy.verbatim(w) else "condensed"
            weights[m.id] = Weight(w, treatment)
        for row in self.query(MessageRow):
            row.set_state(weights.get(row.message.id, Weight(1.0, "current")), self.pins.get(row.message.id))
        self._show_pins()

    def _show_pins(self) -> None:
        by_id = {m.id: m.content for m in self.messages}
        self.query_one(PinsPanel).show([(p, by_id.get(p.message_id, "")) for p in self.pins.values()])

    # -- sending ----------------------------------------------------------------------------------------

    async def on_composer_submitted(self, event: Composer.Submitted) -> None:
        text = event.text
        command = text.strip()
        if command.startswith("/pin") or command.startswith("/unpin"):
            await self._slash_pin(command)
            return
        if command.startswith("!"):
            if len(command) == 1:
                self.notify("type a command after !, e.g. !kubectl get pods", severity="warning")
                return
            session_id = await self._ensure_session(command)
            self.run_shell_command(session_id, command[1:].strip())
            return
        if self.turn_running:
            self.notify("a reply is still coming; wait for it, then send", severity="warning")
            return
        session_id = await self._ensure_session(text)
        if not self.settings.model:
            await self.store_thread.run(lambda s: s.add_message(session_id, "user", text, kind="note"))
            await self.sync_messages()
            self._set_status("saved as a note (no model configured)")
            return
        self.turn_running = True
        self._set_status("waiting for the model…")
        recorded = await self.store_thread.run(lambda s: s.add_message(session_id, "user", text))
        await self.sync_messages()
        self.run_turn(session_id, text, recorded)

    async def _slash_pin(self, command: str) -> None:
        parts = command.split()
        pin = parts[0] == "/pin"
        if len(parts) == 1 and pin:
            target = self.messages[-1] if self.messages else None
        elif len(parts) == 2 and parts[1].lstrip("#").isdigit():
            wanted = int(parts[1].lstrip("#"))
            target = next((m for m in self.messages if m.id == wanted), None)
        else:
            self.notify("usage: /pin, /pin N or /unpin N (N is the message number, #N)", severity="warning")
            return
        if target is None:
            self.notify("no such message in this session", severity="warning")
            return
        if pin == (target.id in self.pins):
            self.notify(f"message #{target.id} is {'already' if pin else 'not'} pinned")
            return
        await self.toggle_pin(target)

    async def on_transcript_pin_toggled(self, event: Transcript.PinToggled) -> None:
        await self.toggle_pin(event.message)

    async def toggle_pin(self, message: Message) -> None:
        if message.id in self.pins:
            await self.store_thread.run(lambda s: s.unpin(message.id))
            del self.pins[message.id]
            self.notify(f"unpinned #{message.id}")
        else:
            rules, patterns = derive_rules_for_store(message.content)
            pin = await self.store_thread.run(lambda s: s.pin(message.id, rules=rules, patterns=patterns))
            self.pins[message.id] = pin
            if rules:
                self.notify(f"pinned #{message.id}: blocks " + ", ".join(r["summary"] for r in rules))
            else:
                self.notify(
                    f"pinned #{message.id}: it yields no enforceable rule, but is re-sent with every request",
                    severity="warning",
                )
        self._refresh_weights()

    @work(thread=True, exclusive=True, group="turn")
    def run_turn(self, session_id: str, text: str, recorded: Message) -> None:
        from opsassist.agent.llm import token_counter
        from opsassist.agent.loop import AgentLoop
        from opsassist.agent.model import ModelConfig, ModelError
        from opsassist.gateway import open_gateway

        store = open_store(self.loaded.paths.database)
        try:
            try:
                model = ModelConfig.from_settings(self.settings)
            except ModelError as exc:
                self.post_message(AgentEvent(Event("error", {"message": str(exc), "fatal": True})))
                self.post_message(AgentEvent(Event("done", {})))
                return
            loop = AgentLoop(
                store,
                session_id,
                self.settings,
                open_gateway(store, session_id, self.loaded),
                model,
                token_counter(model.model),
                model.model,
            )

            async def consume() -> None:
                async for event in loop.run_turn(text, recorded):
                    self.post_message(AgentEvent(event))

            asyncio.run(consume())
        except Exception as exc:  # noqa: BLE001 - the UI must hear about any failure of the turn
            self.post_message(AgentEvent(Event("error", {"message": f"the turn failed: {exc}", "fatal": True})))
            self.post_message(AgentEvent(Event("done", {})))
        finally:
            store.close()

    @work(thread=True, group="shell")
    def run_shell_command(self, session_id: str, command: str) -> None:
        """`!cmd`: the same guard and approval path as the model's run_shell; output goes to the record."""
        from opsassist.gateway import open_gateway, record_event

        store = open_store(self.loaded.paths.database)
        try:
            store.add_message(session_id, "user", f"!{command}", kind="note")
            self.call_from_thread(self._set_status, f"running !{command[:60]} …")
            gateway = open_gateway(store, session_id, self.loaded)
            answer = gateway.execute("run_shell", {"command": command})
            status = answer["status"]
            if status == "ok":
                result = answer["result"]
                body = f"[!cmd] {command}\nexit {result.get('exit_code')}"
                if result.get("timed_out"):
                    body += f" ({result['timed_out']})"
                body += f"\n{result.get('output', '')}"
                store.add_message(session_id, "user", body, kind="note", meta={"shell": result})
            else:
                store.add_message(
                    session_id, "tool", json.dumps(answer, ensure_ascii=False), kind="guard", meta={"command": command}
                )
                record_event(
                    store,
                    session_id,
                    "blocked" if status == "blocked" else "approval_required",
                    {"command": command, "summary": answer.get("next_step", "")[:200]},
                )
            self.post_message(ShellDone(status))
        finally:
            store.close()

    # -- agent events -----------------------------------------------------------------------------------

    async def on_agent_event(self, message: AgentEvent) -> None:
        event = message.event
        data = event.data
        if event.type == "text":
            await self._ensure_live()
            self._pending_text.append(terminal_safe(data["delta"]))
            return
        if event.type == "reminder":
            self.notify(f"{data['title']}: {data['message']}", title="⏰ reminder", timeout=30)
            return
        if event.type == "error":
            self.notify(data["message"], title="error", severity="error", timeout=15)
            self._set_status(f"error: {data['message'][:120]}")
        if event.type in ("approval_required",):
            await self._load_cards()
        if event.type == "done":
            await self._end_live()
            if data.get("note"):
                self.notify(data["note"], severity="warning", timeout=15)
            if not data.get("incomplete"):
                self._set_status("ready")
        await self.sync_messages()
        if event.type == "done":
            self.turn_running = False
            transcript = self.query_one(Transcript)
            self.call_after_refresh(transcript.scroll_end, animate=False)

    async def on_shell_done(self, message: ShellDone) -> None:
        if message.status in ("approval_required", "expired"):
            await self._load_cards()
            self._set_status("!cmd is held for approval: ctrl+r to review")
        elif message.status == "blocked":
            self._set_status("!cmd blocked: it crosses a pinned red line")
        else:
            self._set_status("ready")
        await self.sync_messages()

    async def _ensure_live(self) -> None:
        if self._live is None:
            box = self.query_one("#live-box", VerticalScroll)
            self._live = Markdown("", id="live")
            await box.mount(self._live)
            box.add_class("-streaming")
            self._live_stream = Markdown.get_stream(self._live)
            self._set_status("streaming…")

    async def _flush_stream(self) -> None:
        if self._live_stream is not None and self._pending_text:
            chunk = "".join(self._pending_text)
            self._pending_text.clear()
            await self._live_stream.write(chunk)
            self.query_one("#live-box", VerticalScroll).scroll_end(animate=False)

    async def _end_live(self) -> None:
        if self._live is None:
            return
        await self._flush_stream()
        await self._live_stream.stop()
        await self._live.remove()
        self.query_one("#live-box").remove_class("-streaming")
        self._live = None
        self._live_stream = None

    # -- approvals --------------------------------------------------------------------------------------

    async def _load_cards(self) -> None:
        if self.session_id is None:
            return
        session_id = self.session_id
        rows = await self.store_thread.run(lambda s: s.approvals(session_id))
        for row in rows:
            await self._show_card(row)

    async def _show_card(self, row: dict[str, Any]) -> None:
        cards = self.query_one("#cards")
        if not cards.query(f"#card-{row['id']}"):
            await cards.mount(ApprovalCard(row, self.clock))

    def action_review_approval(self) -> None:
        cards = list(self.query(ApprovalCard))
        if not cards:
            self.notify("nothing is waiting for approval")
            return
        cards[-1].focus()

    async def on_approval_card_deferred(self) -> None:
        self.query_one(Composer).focus()

    async def on_approval_card_decided(self, event: ApprovalCard.Decided) -> None:
        self._set_status(f"{'approving' if event.approve else 'denying'} {event.approval_id}…")
        self.decide(event.approval_id, event.approve)

    @work(thread=True, group="decide")
    def decide(self, approval_id: str, approve: bool) -> None:
        from opsassist.gateway import ApprovalError, open_gateway

        store = open_store(self.loaded.paths.database)
        try:
            row = store.approval(approval_id)
            if row is None:
                return
            gateway = open_gateway(store, row["session_id"], self.loaded)
            try:
                if approve:
                    result = gateway.approve(approval_id)
                    summary = f"approved {approval_id}: ran, exit {result.get('exit_code', 0)}"
                else:
                    gateway.deny(approval_id)
                    summary = f"denied {approval_id}"
                self.call_from_thread(self.notify, summary)
            except ApprovalError as exc:
                summary = f"refused: {exc}"
                self.call_from_thread(self.notify, str(exc), title="refused", severity="error", timeout=15)
            self.call_from_thread(self._card_done, approval_id, summary)
        finally:
            store.close()

    async def _card_done(self, approval_id: str, summary: str) -> None:
        await self.query(f"#card-{approval_id}").remove()
        self.query_one(Composer).focus()
        self._set_status(summary)
        await self.sync_messages()

    # -- reminders, inspector, browser, help ------------------------------------------------------------

    async def _poll_reminders(self) -> None:
        now = self.clock().isoformat(timespec="seconds")
        due = await self.store_thread.run(lambda s: s.take_due_reminders(now))
        for reminder in due:
            self.notify(f"{reminder['title']}: {reminder['message']}", title="⏰ reminder", timeout=30)

    def action_inspector(self) -> None:
        if self.session_id is None:
            self.notify("nothing to inspect yet: send a message first")
            return
        self._set_status("compiling the next request…")
        self.inspect(self.session_id)

    @work(thread=True, exclusive=True, group="inspect")
    def inspect(self, session_id: str) -> None:
        from opsassist.agent.llm import FALLBACK_TOKEN_MODEL, token_counter
        from opsassist.agent.session_context import compile_session
        from opsassist.context import ContextError
        from opsassist.render import context_view

        store = open_store(self.loaded.paths.database)
        try:
            token_model = self.settings.model or FALLBACK_TOKEN_MODEL
            compiled = compile_session(
                store, session_id, self.settings, token_counter(token_model), token_model=token_model
            )
            view = context_view(session_id, token_model, compiled)
            self.call_from_thread(self.push_screen, InspectorScreen(view))
            self.call_from_thread(self._set_status, "ready")
        except ContextError as exc:
            self.call_from_thread(self.notify, str(exc), severity="warning")
        finally:
            store.close()

    async def action_open_session(self) -> None:
        sessions = await self.store_thread.run(lambda s: s.list_sessions(limit=500))

        async def search(text: str) -> Any:
            return await self.store_thread.run(lambda s: s.search(text, limit=50) if text.split() else [])

        def chosen(session_id: str | None) -> None:
            if session_id:
                self.open_session(session_id)

        self.push_screen(SessionBrowser(sessions, search), chosen)

    async def action_new_session(self) -> None:
        self.session_id = None
        self.messages = []
        self.pins = {}
        self.first_mounted = 0
        await self.query_one(Transcript).remove_children()
        await self.query_one("#cards").remove_children()
        self._show_pins()
        self.sub_title = "new session"
        self._set_status("new session: type a message")
        self.query_one(Composer).focus()

    def action_help(self) -> None:
        if self.screen.query("KeyPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("session: new", "Start a new session", self.action_new_session)
        yield SystemCommand("session: open", "Browse and search past sessions", self.action_open_session)
        yield SystemCommand("context: inspect", "What the model receives next", self.action_inspector)
        yield SystemCommand("approvals: review", "Focus the newest held action", self.action_review_approval)
        yield SystemCommand("pins: pin the latest message", "Pin the newest message", partial(self._slash_pin, "/pin"))
        yield SystemCommand("keys: show", "Every key and what it does", self.action_help)

    # -- focus and status -------------------------------------------------------------------------------

    def on_composer_transcript_requested(self) -> None:
        transcript = self.query_one(Transcript)
        transcript.focus()
        transcript.select_last()

    def on_transcript_compose_requested(self) -> None:
        transcript = self.query_one(Transcript)
        transcript.selected = -1
        self.query_one(Composer).focus()

    async def on_transcript_older_requested(self) -> None:
        await self.load_older()

    def _set_status(self, text: str) -> None:
        self.query_one("#status", Static).update(terminal_safe(text))

    @work(thread=True)
    def _warm_model_client(self) -> None:
        """Import litellm in the background once the screen is up, so the first reply is not slow."""
        if self.settings.model:
            from opsassist.agent.llm import load_litellm

            load_litellm()
