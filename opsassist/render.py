"""Rich views for the command line: sessions, transcripts, search hits, exports, the context inspector, verdicts.

Everything printed to a terminal passes through `terminal_safe`, and Rich renders content as `Text`, never
as markup, so a pasted log cannot drive the terminal or inject styles. JSON keeps content exactly as stored.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from opsassist.context import CompiledContext
from opsassist.context.compiler import BRIEF_HEADER
from opsassist.store import Message, Pin, SearchHit, SessionSummary, Store
from opsassist.store.models import SNIPPET_CLOSE, SNIPPET_OPEN
from opsassist.textsafe import terminal_safe

if TYPE_CHECKING:  # the guard loads tree-sitter and sqlglot; review commands must not pay for that
    from opsassist.guard import Verdict, Violation
    from opsassist.guard.explain import RuleExplanation

ROLE_STYLE = {"user": "bold cyan", "assistant": "bold green", "system": "bold magenta", "tool": "bold yellow"}
KIND_LABEL = {
    "think": "think (hidden from chat)",
    "nudge": "nudge",
    "tool_call": "tool call",
    "tool_result": "tool result",
    "guard": "guard",
    "approval": "approval",
    "note": "note",
}


def short_time(stamp: str) -> str:
    """`2026-11-29T15:02:11.123+00:00` -> `2026-11-29 15:02:11`."""
    return stamp[:19].replace("T", " ")


# -- documents (the JSON shapes) ------------------------------------------------------------------------


def session_json(summary: SessionSummary) -> dict[str, Any]:
    return asdict(summary)


def message_json(message: Message, pinned: bool) -> dict[str, Any]:
    return {**asdict(message), "pinned": pinned}


def session_document(store: Store, session_id: str) -> dict[str, Any]:
    """Everything recorded for one session, as plain JSON-ready data."""
    pins = store.pins(session_id, active_only=False)
    active = {p.message_id for p in pins if p.active}
    return {
        "session": session_json(store.session(session_id)),
        "pins": [asdict(p) for p in pins],
        "messages": [message_json(m, m.id in active) for m in store.messages(session_id)],
        "events": store.events(session_id),
    }


def hit_json(hit: SearchHit) -> dict[str, Any]:
    data = asdict(hit)
    data["snippet"] = hit.snippet.replace(SNIPPET_OPEN, "«").replace(SNIPPET_CLOSE, "»")
    return data


# -- Rich views -----------------------------------------------------------------------------------------


def sessions_table(sessions: list[SessionSummary]) -> RenderableType:
    if not sessions:
        return Text("No sessions yet. Start one with `opsassist`, or bring one in with `opsassist import FILE.jsonl`.")
    table = Table(title="Sessions (newest activity first, times UTC)", title_justify="left", expand=False)
    table.add_column("id", style="bold", no_wrap=True)
    table.add_column("title", overflow="ellipsis", max_width=60)
    table.add_column("messages", justify="right")
    table.add_column("pins", justify="right")
    table.add_column("started", no_wrap=True)
    table.add_column("last activity", no_wrap=True)
    for s in sessions:
        table.add_row(
            s.id,
            Text(terminal_safe(s.title or "(untitled)")),
            str(s.messages),
            Text(f"📌 {s.pins}", style="bold red") if s.pins else Text("0", style="dim"),
            short_time(s.created_at),
            short_time(s.updated_at),
        )
    return table


def _message_header(message: Message, pin: Pin | None) -> Text:
    header = Text()
    header.append(f"#{message.id} ", style="dim")
    header.append(short_time(message.created_at), style="dim")
    header.append("  ")
    header.append(message.role, style=ROLE_STYLE.get(message.role, "bold"))
    if message.kind != "chat":
        header.append(f"  [{KIND_LABEL.get(message.kind, message.kind)}]", style="italic")
    if pin is not None:
        header.append(f"  📌 PINNED red line (pin {pin.id})", style="bold red")
    return header


def _event_line(event: dict[str, Any]) -> Text:
    payload = event["payload"]
    kind = event["type"]
    style = {"blocked": "bold red", "approval_required": "bold yellow", "approved": "green", "denied": "red"}
    line = Text()
    line.append(f"   ⟡ {short_time(event['created_at'])} ", style="dim")
    line.append(kind, style=style.get(kind, "bold"))
    summary = payload.get("summary") or payload.get("command") or payload.get("tool") or ""
    if summary:
        line.append("  " + terminal_safe(str(summary)))
    return line


def in_time_order(messages: list[tuple[str, Any]], events: list[dict[str, Any]]) -> list[tuple[bool, Any]]:
    """(is_event, item) for stamped messages and events merged by time; a message precedes an event stamped alike."""
    merged = [(stamp, 0, item) for stamp, item in messages] + [(e["created_at"], 1, e) for e in events]
    merged.sort(key=lambda entry: entry[:2])
    return [(bool(is_event), item) for _, is_event, item in merged]


def transcript(store: Store, session_id: str) -> RenderableType:
    summary = store.session(session_id)
    pins = {p.message_id: p for p in store.pins(session_id)}
    messages = store.messages(session_id)
    events = store.events(session_id)
    parts: list[RenderableType] = []
    head = Text()
    head.append(f"Session {summary.id}", style="bold")
    head.append(f"  {terminal_safe(summary.title or '(untitled)')}\n")
    head.append(
        f"started {short_time(summary.created_at)} UTC · last activity {short_time(summary.updated_at)} UTC · "
        f"{summary.messages} messages · {summary.pins} active pins",
        style="dim",
    )
    parts.append(head)
    if pins:
        pin_lines = Text()
        for pin in pins.values():
            text = next((m.content for m in messages if m.id == pin.message_id), "")
            pin_lines.append(f"📌 #{pin.message_id}  ", style="bold red")
            pin_lines.append(terminal_safe(text) + "\n")
            pin_lines.append("   " + pin_rules_line(pin.rules) + "\n", style="dim" if pin.rules else "yellow")
        parts.append(Panel(pin_lines, title="Red lines in force", border_style="red", title_align="left"))
    # Messages and events in time order; a message comes before an event with the same stamp.
    for is_event, item in in_time_order([(m.created_at, m) for m in messages], events):
        if is_event:
            parts.append(_event_line(item))
            continue
        pin = pins.get(item.id)
        body = Text(terminal_safe(item.content), style="dim" if item.kind == "think" else "")
        parts.append(Text(""))
        parts.append(_message_header(item, pin))
        parts.append(Panel(body, border_style="red") if pin else body)
    return Group(*parts)


def pin_rules_line(rules: list[dict[str, Any]]) -> str:
    """`blocks: SQL DROP, SIGKILL (kill -9), restart of core-gateway`, or a warning that nothing is enforced."""
    if not rules:
        return "⚠ yields no enforceable rule (still re-sent to the model with every request)"
    return "blocks: " + ", ".join(str(rule.get("summary") or rule.get("id")) for rule in rules)


def search_table(query: str, hits: list[SearchHit]) -> RenderableType:
    if not hits:
        return Text(f"No messages match {terminal_safe(query)!r}.")
    table = Table(title=f"Search: {terminal_safe(query)} (best first)", title_justify="left")
    table.add_column("session", no_wrap=True, style="bold")
    table.add_column("msg", justify="right", no_wrap=True)
    table.add_column("when (UTC)", no_wrap=True)
    table.add_column("role", no_wrap=True)
    table.add_column("snippet")
    for hit in hits:
        table.add_row(
            hit.session_id,
            f"#{hit.message_id}",
            short_time(hit.created_at),
            Text(hit.role, style=ROLE_STYLE.get(hit.role, "")),
            highlighted_snippet(hit.snippet),
        )
    return table


def highlighted_snippet(snippet: str) -> Text:
    text = Text()
    highlight = False
    for piece in _split_markers(snippet):
        if piece == SNIPPET_OPEN:
            highlight = True
        elif piece == SNIPPET_CLOSE:
            highlight = False
        else:
            text.append(terminal_safe(piece).replace("\n", " ⏎ "), style="bold black on yellow" if highlight else "")
    return text


def _split_markers(snippet: str) -> list[str]:
    out: list[str] = []
    buf = ""
    for ch in snippet:
        if ch in (SNIPPET_OPEN, SNIPPET_CLOSE):
            if buf:
                out.append(buf)
                buf = ""
            out.append(ch)
        else:
            buf += ch
    if buf:
        out.append(buf)
    return out


# -- Markdown export (a post-incident timeline) ---------------------------------------------------------


def _md_block(text: str) -> str:
    """Quote text as a Markdown blockquote so pasted logs keep their lines and cannot break the page."""
    return "\n".join("> " + line if line else ">" for line in terminal_safe(text).split("\n"))


def _md_fence(text: str) -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}\n{terminal_safe(text)}\n{fence}"


def export_markdown(store: Store, session_id: str) -> str:
    doc = session_document(store, session_id)
    session = doc["session"]
    by_id = {m["id"]: m for m in doc["messages"]}
    out: list[str] = []
    out.append(f"# Incident timeline: {terminal_safe(session['title'] or 'untitled session')}")
    out.append("")
    out.append(f"- Session: `{session['id']}`")
    out.append(f"- Started: {short_time(session['created_at'])} UTC")
    out.append(f"- Last activity: {short_time(session['updated_at'])} UTC")
    out.append(f"- Messages: {session['messages']}")
    out.append("")
    out.append("## Red lines (pinned)")
    out.append("")
    pins = doc["pins"]
    if not pins:
        out.append("No message was pinned in this session.")
    for pin in pins:
        text = by_id.get(pin["message_id"], {}).get("content", "")
        state = "in force" if pin["unpinned_at"] is None else f"unpinned {short_time(pin['unpinned_at'])} UTC"
        out.append(
            f"**Pin {pin['id']}** (message #{pin['message_id']}, pinned {short_time(pin['pinned_at'])} UTC, {state})"
        )
        out.append("")
        out.append(_md_block(text))
        out.append("")
        out.append(pin_rules_line(pin["rules"]))
        out.append("")
    blocked = [e for e in doc["events"] if e["type"] == "blocked"]
    approvals = [e for e in doc["events"] if e["type"] in ("approval_required", "approved", "denied", "expired")]
    out.append("## Timeline")
    out.append("")
    for is_event, item in in_time_order([(m["created_at"], m) for m in doc["messages"]], doc["events"]):
        if is_event:
            out.append(
                f"- **{item['type'].replace('_', ' ')}** at {short_time(item['created_at'])} UTC: "
                f"{_event_summary(item)}"
            )
            out.append("")
            continue
        kind = "" if item["kind"] == "chat" else f" ({KIND_LABEL.get(item['kind'], item['kind'])})"
        pin_mark = " — 📌 pinned red line" if item["pinned"] else ""
        out.append(f"### {short_time(item['created_at'])} UTC · {item['role']}{kind}{pin_mark}")
        out.append("")
        out.append(_md_fence(item["content"]) if item["role"] == "tool" else _md_block(item["content"]))
        out.append("")
    if blocked:
        out.append("## Blocked commands")
        out.append("")
        for e in blocked:
            out.append(f"- {short_time(e['created_at'])} UTC: {_event_summary(e)}")
        out.append("")
    if approvals:
        out.append("## Approvals")
        out.append("")
        for e in approvals:
            out.append(f"- {short_time(e['created_at'])} UTC, {e['type'].replace('_', ' ')}: {_event_summary(e)}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _event_summary(event: dict[str, Any]) -> str:
    payload = event["payload"]
    parts = []
    if payload.get("command"):
        parts.append(f"`{terminal_safe(str(payload['command']))}`")
    elif payload.get("tool"):
        parts.append(f"`{terminal_safe(str(payload['tool']))}`")
    if payload.get("summary"):
        parts.append(terminal_safe(str(payload["summary"])))
    return " — ".join(parts) or "(no details)"


def print_renderable(renderable: RenderableType) -> None:
    Console(highlight=False, emoji=False).print(renderable)


# -- the context inspector ------------------------------------------------------------------------------


def weight_bar(weight: float, width: int = 10) -> str:
    filled = round(weight * width)
    return "█" * filled + "░" * (width - filled)


def context_json(session_id: str, token_model: str, compiled: CompiledContext) -> dict[str, Any]:
    return {
        "session_id": session_id,
        "token_model": token_model,
        "raw_tokens": compiled.raw_tokens,
        "compiled_tokens": compiled.compiled_tokens,
        "saving": round(compiled.saving, 4),
        "block_index": compiled.block_index,
        "newest_index": compiled.newest_index,
        "pins": [asdict(p) for p in compiled.pins],
        "payload": [
            {**item, "tokens": tokens} for item, tokens in zip(compiled.payload, compiled.payload_tokens, strict=True)
        ],
        "sources": [
            {
                "id": e.message_id,
                "role": e.role,
                "kind": e.kind,
                "turn": e.turn,
                "weight": round(e.weight, 4),
                "treatment": e.treatment,
                "condensed": e.treatment in ("condensed", "omitted"),
                "raw_tokens": e.raw_tokens,
                "payload_index": e.payload_index,
            }
            for e in compiled.sources
        ],
    }


TREATMENT_STYLE = {
    "verbatim": "green",
    "condensed": "dim",
    "omitted": "dim strike",
    "pinned": "bold red",
    "newest": "bold cyan",
    "current": "cyan",
}


def context_view(session_id: str, token_model: str, compiled: CompiledContext) -> RenderableType:
    table = Table(
        title=f"Sources of the next request for session {session_id}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("msg", justify="right", no_wrap=True)
    table.add_column("turn", justify="right", no_wrap=True)
    table.add_column("role", no_wrap=True, max_width=16, overflow="ellipsis")
    table.add_column("weight", no_wrap=True)
    table.add_column("sent as", no_wrap=True)
    table.add_column("tokens", justify="right", no_wrap=True)
    table.add_column("in", justify="right", no_wrap=True)
    for e in compiled.sources:
        style = TREATMENT_STYLE[e.treatment]
        shown_weight = "1.00 held" if e.treatment == "pinned" else f"{e.weight:.2f} {weight_bar(e.weight, 6)}"
        table.add_row(
            f"#{e.message_id}" if e.message_id else "query",
            str(e.turn),
            e.role if e.kind == "chat" else f"{e.role}/{e.kind}",
            Text(shown_weight, style=style),
            Text(e.treatment, style=style),
            str(e.raw_tokens),
            "" if e.payload_index is None else f"[{e.payload_index}]",
        )
    parts: list[RenderableType] = [table]
    totals = Text()
    totals.append(f"tokens ({token_model}): compiled {compiled.compiled_tokens} of raw {compiled.raw_tokens}")
    if compiled.saving >= 0:
        totals.append(f"  ({compiled.saving:.1%} saved)", style="bold")
    else:
        totals.append(f"  ({-compiled.saving:.1%} more than raw: the pin block is re-sent)", style="bold")
    parts.append(totals)
    parts.append(Text("Payload, in order:", style="bold"))
    for index, (item, tokens) in enumerate(zip(compiled.payload, compiled.payload_tokens, strict=True)):
        if index == compiled.block_index:
            title, border = f"[{index}] pin block (current, highest priority) · {tokens} tokens", "red"
        elif index == compiled.newest_index:
            title, border = f"[{index}] newest user message · {tokens} tokens", "cyan"
        elif item["content"].startswith(BRIEF_HEADER):
            title, border = f"[{index}] history brief · {tokens} tokens", "bright_black"
        else:
            title, border = f"[{index}] {item['role']} · {tokens} tokens", "green"
        parts.append(
            Panel(
                Text(terminal_safe(item["content"] or "")),
                title=title,
                title_align="left",
                border_style=border,
            )
        )
    return Group(*parts)


# -- guard verdicts -------------------------------------------------------------------------------------

DECISION_STYLE = {"allow": "bold green", "approve": "bold yellow", "block": "bold white on red"}


def ruleless_pin_warning(pin_id: int, text: str) -> Text:
    line = Text()
    line.append(f"⚠ pin {pin_id} yields no enforceable rule", style="bold yellow")
    line.append(f" («{terminal_safe(_short(text, 60))}»); it is still re-sent to the model with every request.")
    return line


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def verdict_view(verdict: Verdict) -> RenderableType:
    head = Text()
    head.append(f" {verdict.decision.upper()} ", style=DECISION_STYLE[verdict.decision])
    head.append(f" {verdict.risk:<7} ", style="dim")
    head.append(terminal_safe(verdict.command))
    lines: list[RenderableType] = [head]
    # One entry per pin and sub-command, its specific rules before the catch-all read-only rule.
    grouped: dict[tuple[int, str], list[Violation]] = {}
    for v in sorted(verdict.violations, key=lambda v: v.rule.kind == "read_only"):
        grouped.setdefault((v.pin_id, v.segment), []).append(v)
    for (pin_id, segment), items in grouped.items():
        line = Text("    ✗ ", style="red")
        line.append(f"pin {pin_id} «{terminal_safe(_short(items[0].pin_text, 70))}»", style="bold")
        line.append(" crossed: " + ", ".join(v.rule.summary for v in items))
        line.append("\n      ")
        line.append(terminal_safe(segment), style="bold")
        line.append(": " + "; ".join(dict.fromkeys(terminal_safe(v.reason) for v in items)))
        alternative = next((v.alternative for v in items if v.alternative), None)
        if alternative:
            line.append("\n      instead: ", style="green")
            line.append(terminal_safe(alternative), style="bold green")
        lines.append(line)
    if verdict.decision == "approve":
        for note in verdict.notes[:5]:
            lines.append(Text(f"    needs approval: {terminal_safe(note)}", style="yellow"))
    return Group(*lines)


def explanations_json(text: str, explanations: list[RuleExplanation]) -> dict[str, Any]:
    return {
        "pin": text,
        "rules": [
            {
                "id": e.rule.id,
                "kind": e.rule.kind,
                "summary": e.rule.summary,
                "from": e.rule.source,
                "examples": [
                    {
                        "command": x.command,
                        "expected": "block" if x.expect_block else "not blocked",
                        "decision": x.decision,
                        "holds": x.holds,
                    }
                    for x in e.examples
                ],
            }
            for e in explanations
        ],
    }


def explanations_view(text: str, explanations: list[RuleExplanation]) -> RenderableType:
    parts: list[RenderableType] = [Text(f"Pin: {terminal_safe(text)}", style="bold")]
    if not explanations:
        parts.append(ruleless_pin_warning(0, text))
        return Group(*parts)
    for e in explanations:
        head = Text()
        head.append(f"\n● blocks {e.rule.summary}", style="bold red")
        head.append(f"   (from «{terminal_safe(e.rule.source)}»)", style="dim")
        parts.append(head)
        for x in e.examples:
            line = Text("    ")
            if x.expect_block:
                line.append("blocks  ", style="red")
            else:
                line.append("allows  ", style="green")
            line.append(terminal_safe(x.command))
            if not x.holds:
                line.append(f"   ✗ CHECK FAILED: the guard said {x.decision}", style="bold white on red")
            elif not x.expect_block and x.decision == "approve":
                line.append("   (needs approval: it writes)", style="dim")
            parts.append(line)
    return Group(*parts)


# -- the agent's events, approvals, reminders -----------------------------------------------------------


def time_left(expires_at: str, now: datetime | None = None) -> str:
    seconds = int((datetime.fromisoformat(expires_at) - (now or datetime.now(UTC))).total_seconds())
    if seconds <= 0:
        return "expired"
    return f"{seconds // 60}m{seconds % 60:02d}s left"


def approvals_table(rows: list[dict[str, Any]]) -> RenderableType:
    if not rows:
        return Text("No actions are waiting for approval.")
    table = Table(
        title="Held for approval (approve with `opsassist approve ID`, deny with `opsassist deny ID`)",
        title_justify="left",
    )
    table.add_column("id", style="bold", no_wrap=True)
    table.add_column("session", no_wrap=True)
    table.add_column("tool", no_wrap=True)
    table.add_column("what would run")
    table.add_column("why it is held")
    table.add_column("expires", no_wrap=True)
    for row in rows:
        why = Text(terminal_safe(row.get("why") or ""), style="dim")
        table.add_row(
            row["id"],
            row["session_id"],
            row["tool"],
            Text(terminal_safe(row["summary"])),
            why,
            time_left(row["expires_at"]),
        )
    return table


def approval_result(approval_id: str, summary: str, result: dict[str, Any]) -> RenderableType:
    head = Text()
    head.append(f"approved {approval_id}", style="bold green")
    head.append(f": {terminal_safe(summary)}")
    body = result.get("output") if isinstance(result.get("output"), str) else json.dumps(result, indent=2)
    return Group(head, Text(terminal_safe(str(body))))


def reminders_table(rows: list[dict[str, Any]]) -> RenderableType:
    if not rows:
        return Text("No reminders.")
    table = Table(title="Reminders (times UTC)", title_justify="left")
    for column in ("id", "due", "status", "title", "message", "session"):
        table.add_column(column, no_wrap=column in ("id", "due", "status", "session"))
    for row in rows:
        table.add_row(
            str(row["id"]),
            short_time(row["due_at"]),
            row["status"],
            Text(terminal_safe(row["title"])),
            Text(terminal_safe(row["message"])),
            row["session_id"],
        )
    return table


def print_event(event: Any) -> None:
    """Line-mode rendering of one agent event; text deltas are written as they come."""
    data = event.data
    if event.type == "text":
        sys.stdout.write(terminal_safe(data["delta"]))
        sys.stdout.flush()
        return
    console = Console(highlight=False, emoji=False)
    if event.type == "tool_call":
        console.print(Text(f"\n→ {data['name']} {terminal_safe(data['arguments'])[:200]}", style="dim"))
    elif event.type == "tool_result":
        status = data.get("status", "ok")
        console.print(Text(f"  ← {status}: {terminal_safe(str(data.get('next_step', '')))[:160]}", style="dim"))
    elif event.type == "approval_required":
        console.print(
            Text(
                f"\n⏸ held for approval {data['approval_id']}: {terminal_safe(data['action'])}  "
                f"(opsassist approve {data['approval_id']})",
                style="bold yellow",
            )
        )
    elif event.type == "blocked":
        first = data["violations"][0]
        console.print(
            Text(
                f"\n⛔ blocked: {terminal_safe(data['command'])} — crosses pin {first['pin']['id']} "
                f"«{terminal_safe(first['pin']['text'])}»: {terminal_safe(first['reason'])}",
                style="bold red",
            )
        )
    elif event.type == "think":
        console.print(Text(f"\n(thinking, hidden: {terminal_safe(_short(data['text'], 100))})", style="dim italic"))
    elif event.type == "nudge":
        console.print(Text(f"(nudged the model to act, attempt {data['attempt']})", style="dim italic"))
    elif event.type == "reminder":
        console.print(
            Text(
                f"\n⏰ reminder: {terminal_safe(data['title'])} — {terminal_safe(data['message'])}",
                style="bold magenta",
            )
        )
    elif event.type == "error":
        console.print(Text(f"\n✗ {terminal_safe(data['message'])}", style="bold red"))
    elif event.type == "done":
        if data.get("note"):
            console.print(Text(f"\n(note: {terminal_safe(data['note'])})", style="yellow"))
        else:
            sys.stdout.write("\n")
