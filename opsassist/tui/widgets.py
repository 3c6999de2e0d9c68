"""The TUI's widgets. Widgets render and post messages; the app decides and talks to the record.

Finished messages render cheaply (a `Static` holding a Rich renderable); only the live reply is a Textual
`Markdown` fed through a `MarkdownStream`. The transcript keeps a window of recent rows mounted and pages
older ones in on demand, because every reflow costs O(mounted widgets).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.markdown import Markdown as RichMarkdown
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message as TextualMessage
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static, TextArea

from opsassist.render import pin_rules_line, time_left, weight_bar
from opsassist.store import Message, Pin
from opsassist.textsafe import terminal_safe

BODY_PREVIEW_CHARS = 3_000
BODY_EXPANDED_CHARS = 200_000
PASTE_INLINE_LIMIT = 100_000
WINDOW = 100
PAGE = 80


@dataclass(frozen=True)
class Weight:
    value: float
    treatment: str
    """verbatim, condensed, pinned, newest or current: how the message goes out in the next request."""


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clock(stamp: str) -> str:
    return stamp[11:16]


class MessageRow(Static):
    """One stored message: a header with role, time and live decay weight, then a compact body."""

    DEFAULT_CSS = """
    MessageRow {
        padding: 0 1;
        margin: 0 0 1 0;
        &.-selected { background: $boost; border-left: thick $accent; }
        &.-pinned { border-left: thick $pin; }
        &.-condensed { color: $text-muted; }
        &.-kind-think, &.-kind-nudge { color: $think; margin: 0; }
        &.-kind-tool_call, &.-kind-tool_result { color: $tool; margin: 0; }
        &.-blocked { background: $blocked 15%; border-left: thick $blocked; color: $foreground; }
    }
    """

    expanded: reactive[bool] = reactive(False)
    """Show the whole body (long messages, think rows, tool rows)."""

    def __init__(self, message: Message, palette: Callable[[], dict[str, str]]) -> None:
        super().__init__()
        self.message = message
        self.weight = Weight(1.0, "current")
        self.pin: Pin | None = None
        self._palette = palette
        self.add_class(f"-kind-{message.kind}")
        if message.kind in ("tool_result", "guard") and _status(message) == "blocked":
            self.add_class("-blocked")

    def set_state(self, weight: Weight, pin: Pin | None) -> None:
        self.weight = weight
        self.pin = pin
        self.set_class(pin is not None, "-pinned")
        self.set_class(weight.treatment == "condensed", "-condensed")
        self.refresh()

    def watch_expanded(self) -> None:
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        colours = self._palette()
        return Group(self._header(colours), self._body(colours))

    def _header(self, colours: dict[str, str]) -> Text:
        m = self.message
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append(f"{_clock(m.created_at)} ", style="dim")
        label = m.role if m.kind == "chat" else f"{m.role} · {m.kind.replace('_', ' ')}"
        head.append(label, style="bold")
        head.append(f"  #{m.id}", style="dim")
        if m.meta.get("incomplete"):
            head.append("  ⚠ incomplete", style=f"bold {colours.get('warning', 'yellow')}")
        if self.pin is not None:
            head.append("  📌 pinned · held 1.00", style=f"bold {colours.get('pin', 'red')}")
        else:
            w = self.weight
            tone = "weight-high" if w.value > 0.7 else "weight-mid" if w.value > 0.4 else "weight-low"
            mark = "  condensed" if w.treatment == "condensed" else ""
            head.append(f"  {w.value:.2f} {weight_bar(w.value, 8)}{mark}", style=colours.get(tone, ""))
        return head

    def _body(self, colours: dict[str, str]) -> RenderableType:
        m = self.message
        if m.kind == "think":
            if not self.expanded:
                return Text(f"▸ thinking, hidden from the chat: {_short(m.content, 70)}", style="italic")
            return Text(terminal_safe(m.content), style="italic")
        if m.kind == "nudge":
            return Text("↻ nudged the model to act instead of asking", style="italic")
        if m.kind == "tool_call":
            return _tool_call_body(m, self.expanded)
        if m.kind in ("tool_result", "guard"):
            return _tool_result_body(m, self.expanded, colours)
        limit = BODY_EXPANDED_CHARS if self.expanded else BODY_PREVIEW_CHARS
        content = m.content
        more = ""
        if len(content) > limit:
            rest = content[limit:].count("\n")
            more = f"\n… {len(content) - limit:,} more characters ({rest:,} lines); enter expands"
            content = content[:limit]
        safe = terminal_safe(content)
        if m.meta.get("note"):
            safe += f"\n(note: {m.meta['note']})"
        if m.meta.get("incomplete"):
            safe += f"\n({m.meta.get('error', 'the reply was cut off')})"
        if m.role == "assistant" and m.kind == "chat":
            return Group(RichMarkdown(safe), Text(more, style="dim")) if more else RichMarkdown(safe)
        return Text(safe + more)


def _status(message: Message) -> str:
    try:
        return str(json.loads(message.content).get("status", "ok"))
    except (ValueError, AttributeError):
        return "ok"


def _tool_call_body(m: Message, expanded: bool) -> Text:
    calls = m.meta.get("tool_calls", [])
    lines = []
    for call in calls:
        function = call.get("function", {})
        arguments = function.get("arguments", "")
        shown = arguments if expanded else _short(arguments, 100)
        lines.append(f"→ {function.get('name', '?')} {terminal_safe(shown)}")
    if m.content:
        lines.insert(0, terminal_safe(_short(m.content, 200) if not expanded else m.content))
    return Text("\n".join(lines))


def _tool_result_body(m: Message, expanded: bool, colours: dict[str, str]) -> Text:
    try:
        answer: dict[str, Any] = json.loads(m.content)
    except ValueError:
        return Text(terminal_safe(_short(m.content, 200)))
    status = answer.get("status", "ok")
    if expanded:
        return Text(terminal_safe(json.dumps(answer, indent=2, ensure_ascii=False)[:BODY_EXPANDED_CHARS]))
    if status == "blocked":
        first = answer["violations"][0]
        text = Text()
        text.append("⛔ BLOCKED ", style=f"bold {colours.get('blocked', 'red')}")
        text.append(terminal_safe(_short(answer.get("command", ""), 80)))
        text.append(f"\n   crosses pin {first['pin']['id']} «{terminal_safe(_short(first['pin']['text'], 70))}»")
        text.append(f"\n   {terminal_safe(first['reason'])}")
        return text
    if status in ("approval_required", "expired"):
        return Text(
            f"⏸ held for approval {answer.get('approval_id')}: {terminal_safe(_short(answer.get('action', ''), 90))}",
            style=colours.get("approval", ""),
        )
    if status == "error":
        return Text(f"← error: {terminal_safe(_short(str(answer.get('error')), 120))}")
    result = answer.get("result")
    if isinstance(result, dict) and "output" in result:
        output = str(result.get("output", ""))
        return Text(
            f"← ok · exit {result.get('exit_code')} · {output.count(chr(10))} lines: "
            f"{terminal_safe(_short(output, 90))}"
        )
    if "tools" in answer:
        return Text("← found: " + ", ".join(t["name"] for t in answer["tools"]))
    if "disclosed" in answer:
        return Text("← schema: " + ", ".join(d["name"] for d in answer["disclosed"]))
    return Text(f"← {status}: {terminal_safe(_short(json.dumps(result, ensure_ascii=False), 100))}")


class Transcript(VerticalScroll, can_focus=True):
    """The conversation. Keys move a selection; `p` pins; `enter` expands; `i`/`escape` return to typing.

    | Key | Action |
    | --- | --- |
    | up / k | previous message |
    | down / j | next message |
    | p | pin or unpin the selected message |
    | enter | expand or collapse it |
    | i / escape | back to the composer |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Prev", id="transcript.up", tooltip="Select the previous message"),
        Binding("down,j", "move(1)", "Next", id="transcript.down", tooltip="Select the next message"),
        Binding(
            "p",
            "pin",
            "Pin/unpin",
            id="transcript.pin",
            tooltip="Pin the selected message as a hard constraint, or unpin it",
        ),
        Binding("enter", "expand", "Expand", id="transcript.expand", tooltip="Expand or collapse the message"),
        Binding("i,escape", "compose", "Type", id="transcript.compose", tooltip="Back to the composer"),
    ]
    DEFAULT_CSS = """
    Transcript { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    Transcript:focus { border-left: tall $accent; }
    Transcript #older { color: $text-muted; text-align: center; }
    """

    selected: reactive[int] = reactive(-1, init=False)
    """Index into the mounted rows; -1 when nothing is selected."""

    class PinToggled(TextualMessage):
        def __init__(self, message: Message) -> None:
            super().__init__()
            self.message = message

    class ComposeRequested(TextualMessage):
        pass

    class OlderRequested(TextualMessage):
        pass

    def rows(self) -> list[MessageRow]:
        return list(self.query(MessageRow))

    def watch_selected(self, old: int, new: int) -> None:
        rows = self.rows()
        if 0 <= old < len(rows):
            rows[old].remove_class("-selected")
        if 0 <= new < len(rows):
            rows[new].add_class("-selected")
            self.scroll_to_widget(rows[new], animate=False)

    def select_last(self) -> None:
        rows = self.rows()
        self.selected = len(rows) - 1

    def action_move(self, step: int) -> None:
        rows = self.rows()
        if not rows:
            return
        target = self.selected + step if self.selected >= 0 else len(rows) - 1
        if target < 0:
            self.post_message(self.OlderRequested())
            return
        self.selected = max(0, min(len(rows) - 1, target))

    def action_pin(self) -> None:
        rows = self.rows()
        if 0 <= self.selected < len(rows):
            self.post_message(self.PinToggled(rows[self.selected].message))

    def action_expand(self) -> None:
        rows = self.rows()
        if 0 <= self.selected < len(rows):
            rows[self.selected].expanded = not rows[self.selected].expanded

    def action_compose(self) -> None:
        self.post_message(self.ComposeRequested())


class Composer(TextArea):
    """Multi-line input. Enter sends; alt+enter or ctrl+j adds a line; escape goes to the transcript.

    A paste larger than 100 kB is kept whole but shown as one placeholder line, so a 10 MB log does not
    freeze the editor; it is sent in full.
    """

    DEFAULT_CSS = """
    Composer { height: auto; min-height: 3; max-height: 10; border: round $primary 50%; }
    Composer:focus { border: round $primary; }
    """

    class Submitted(TextualMessage):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class TranscriptRequested(TextualMessage):
        pass

    def __init__(self) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", id="composer")
        self.attachments: dict[str, str] = {}

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self._submit()
            return
        if event.key in ("alt+enter", "ctrl+j", "shift+enter"):
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self.post_message(self.TranscriptRequested())
            return
        await super()._on_key(event)

    async def _on_paste(self, event: events.Paste) -> None:
        if len(event.text) <= PASTE_INLINE_LIMIT:
            await super()._on_paste(event)
            return
        event.stop()
        event.prevent_default()
        size, lines = len(event.text) / 1_048_576, event.text.count("\n") + 1
        tag = f"[pasted {size:.1f} MB, {lines:,} lines #{len(self.attachments) + 1}]"
        self.attachments[tag] = event.text
        self.insert(tag)

    def _submit(self) -> None:
        text = self.text
        for tag, content in self.attachments.items():
            text = text.replace(tag, content)
        if not text.strip():
            return
        self.attachments = {}
        self.clear()
        self.post_message(self.Submitted(text))


class PinsPanel(Static):
    """Every active pin with the guard rules it yields, or a warning that it yields none."""

    DEFAULT_CSS = """
    PinsPanel { height: auto; max-height: 6; padding: 0 1; border-bottom: solid $pin 50%; overflow-y: auto; }
    PinsPanel.-empty { display: none; }
    """

    def __init__(self, palette: Callable[[], dict[str, str]]) -> None:
        super().__init__(id="pins")
        self._palette = palette
        self.pins: list[tuple[Pin, str]] = []

    def show(self, pins: list[tuple[Pin, str]]) -> None:
        self.pins = pins
        self.set_class(not pins, "-empty")
        self.refresh(layout=True)

    def render(self) -> RenderableType:
        colours = self._palette()
        text = Text()
        for index, (pin, body) in enumerate(self.pins):
            if index:
                text.append("\n")
            text.append(f"📌 #{pin.message_id} ", style=f"bold {colours.get('pin', 'red')}")
            text.append(terminal_safe(_short(body, 140)))
            style = "dim" if pin.rules else f"bold {colours.get('warning', 'yellow')}"
            text.append("\n   " + pin_rules_line(pin.rules), style=style)
        return text


class ApprovalCard(Widget, can_focus=True):
    """A held action: what will run, why, time left. `a` approves, `d` denies, `escape` defers.

    | Key | Action |
    | --- | --- |
    | a | approve: it runs now |
    | d | deny |
    | escape | decide later (the card stays) |
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "decide(True)", "Approve", id="approval.approve", tooltip="Approve: the action runs now"),
        Binding("d", "decide(False)", "Deny", id="approval.deny", tooltip="Deny the held action"),
        Binding("escape", "defer", "Later", id="approval.defer", tooltip="Decide later; the card stays"),
    ]
    DEFAULT_CSS = """
    ApprovalCard { height: auto; padding: 0 1; border: round $approval; margin: 0 0 0 0; }
    ApprovalCard:focus { border: double $approval; background: $approval 10%; }
    """

    class Decided(TextualMessage):
        def __init__(self, approval_id: str, approve: bool) -> None:
            super().__init__()
            self.approval_id = approval_id
            self.approve = approve

    class Deferred(TextualMessage):
        pass

    def __init__(self, row: dict[str, Any], clock: Callable[[], datetime]) -> None:
        super().__init__(id=f"card-{row['id']}")
        self.row = row
        self._clock = clock

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh)

    def render(self) -> RenderableType:
        row = self.row
        text = Text()
        text.append("⏸ HELD FOR APPROVAL ", style="bold")
        text.append(f"{row['id']} · {row['tool']} · {time_left(row['expires_at'], self._clock())}")
        text.append("\n  " + terminal_safe(_short(row["summary"], 300)), style="bold")
        if row.get("why"):
            text.append(f"\n  why: {terminal_safe(_short(row['why'], 200))}", style="dim")
        keys = "a approve · d deny · esc later" if self.has_focus else "ctrl+r to review"
        text.append(f"\n  {keys}", style="dim")
        return text

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def action_decide(self, approve: bool) -> None:
        self.post_message(self.Decided(self.row["id"], approve))

    def action_defer(self) -> None:
        self.post_message(self.Deferred())
