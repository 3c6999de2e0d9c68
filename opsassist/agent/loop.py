"""The agent loop: one user turn, as a stream of typed events the front ends consume.

Each round compiles the session (pins refreshed before the newest user message, history decayed), streams the
model's reply, and hands tool calls to the gateway. Layer 3 of seed 001: after a schema disclosure, a round
with no tool call whose text reads as hesitation becomes a `think` event (kept in the record and in the
history the model sees, not shown as a reply) followed by a user-role nudge, at most `max_nudges` times; then
the text goes to the person with a note. Runaway turns stop: a cap on rounds, and the same call repeated.

Events: text, think, tool_call, tool_result, approval_required, blocked, nudge, reminder, error, done. All but
the streamed text deltas are written to the record as they happen; the finished text is stored as a message.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from opsassist.agent.model import ModelConfig, ModelError, ModelReply, stream_reply
from opsassist.agent.prompts import NUDGE, SYSTEM_PROMPT, is_hesitation
from opsassist.agent.session_context import compile_session
from opsassist.config import Settings
from opsassist.context import ContextError
from opsassist.context.compiler import TokenCounter
from opsassist.gateway import META_TOOLS, Gateway
from opsassist.gateway.approvals import canonical
from opsassist.store import Message, Store

EventType = Literal[
    "text", "think", "tool_call", "tool_result", "approval_required", "blocked", "nudge", "reminder", "error", "done"
]
REPEAT_LIMIT = 3
TITLE_CHARS = 60


@dataclass
class Event:
    type: EventType
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}


@dataclass
class TurnStats:
    rounds: int = 0
    model_seconds: float = 0.0
    """Time spent waiting for the model; the rest of the turn is the loop's own overhead."""


class AgentLoop:
    def __init__(
        self,
        store: Store,
        session_id: str,
        settings: Settings,
        gateway: Gateway,
        model: ModelConfig | None,
        count_tokens: TokenCounter,
        token_model: str,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.settings = settings
        self.gateway = gateway
        self.model = model
        self.count_tokens = count_tokens
        self.token_model = token_model
        self.clock = clock
        self.stats = TurnStats()

    def _emit(self, event: Event) -> Event:
        if event.type != "text":
            self.store.add_event(self.session_id, event.type, event.data)
        return event

    def due_reminders(self) -> list[Event]:
        now = self.clock().isoformat(timespec="seconds")
        return [
            self._emit(
                Event(
                    "reminder",
                    {"reminder_id": r["id"], "title": r["title"], "message": r["message"], "due_at": r["due_at"]},
                )
            )
            for r in self.store.take_due_reminders(now)
        ]

    async def run_turn(self, user_text: str, recorded: Message | None = None) -> AsyncIterator[Event]:
        """One turn. `recorded` is the user message if a front end already stored it (to show it at once)."""
        self.stats = TurnStats()
        for event in self.due_reminders():
            yield event
        message = recorded or self.store.add_message(self.session_id, "user", user_text)
        if self.store.session(self.session_id).title is None:
            self.store.set_title(self.session_id, " ".join(user_text.split())[:TITLE_CHARS])
        if self.model is None:
            yield self._emit(Event("error", {"message": "no model is configured", "fatal": True}))
            yield self._emit(Event("done", {"user_message_id": message.id}))
            return
        disclosed = False
        nudges = 0
        seen_calls: Counter[tuple[str, str]] = Counter()
        for round_number in range(1, self.settings.max_tool_rounds + 1):
            self.stats.rounds = round_number
            try:
                compiled = compile_session(
                    self.store,
                    self.session_id,
                    self.settings,
                    self.count_tokens,
                    token_model=self.token_model,
                    system=SYSTEM_PROMPT,
                )
            except ContextError as exc:
                yield self._emit(Event("error", {"message": f"the request was not sent: {exc}", "fatal": True}))
                yield self._emit(Event("done", {"user_message_id": message.id}))
                return
            hold_text = disclosed  # after a schema, text is held until it is known not to be hesitation
            reply: ModelReply | None = None
            started = time.perf_counter()
            try:
                async for item in stream_reply(self.model, compiled.payload, META_TOOLS):
                    if isinstance(item, str):
                        if not hold_text:
                            yield Event("text", {"delta": item})
                    else:
                        reply = item
            except ModelError as exc:
                self.stats.model_seconds += time.perf_counter() - started
                if exc.partial_text:
                    self.store.add_message(
                        self.session_id, "assistant", exc.partial_text, meta={"incomplete": True, "error": str(exc)}
                    )
                yield self._emit(
                    Event("error", {"message": str(exc), "fatal": True, "partial": bool(exc.partial_text)})
                )
                yield self._emit(Event("done", {"user_message_id": message.id, "incomplete": True}))
                return
            self.stats.model_seconds += time.perf_counter() - started
            assert reply is not None
            if reply.tool_calls:
                if hold_text and reply.text:
                    yield Event("text", {"delta": reply.text})
                self.store.add_message(
                    self.session_id,
                    "assistant",
                    reply.text,
                    kind="tool_call",
                    meta={"tool_calls": [c.to_message() for c in reply.tool_calls]},
                )
                repeated = None
                for call in reply.tool_calls:
                    yield self._emit(
                        Event("tool_call", {"call_id": call.id, "name": call.name, "arguments": call.arguments})
                    )
                    key = (call.name, _canonical_text(call.arguments))
                    seen_calls[key] += 1
                    if seen_calls[key] >= REPEAT_LIMIT:
                        repeated = call
                        answer = {
                            "status": "error",
                            "error": "this exact call was already made twice this turn",
                            "next_step": "Stop repeating it; answer the person with what you have.",
                        }
                    else:
                        answer = self.gateway.handle(call.name, call.arguments)
                    self.store.add_message(
                        self.session_id,
                        "tool",
                        json.dumps(answer, ensure_ascii=False),
                        kind="tool_result",
                        meta={"tool_call_id": call.id, "name": call.name},
                    )
                    for event in self._answer_events(call.id, call.name, answer):
                        yield event
                    if call.name == "get_tool_schema" and answer.get("disclosed"):
                        disclosed = True
                if repeated is not None:
                    yield self._emit(
                        Event(
                            "error",
                            {
                                "message": f"stopped: the model repeated {repeated.name} with the same arguments",
                                "fatal": True,
                            },
                        )
                    )
                    yield self._emit(Event("done", {"user_message_id": message.id, "rounds": round_number}))
                    return
                continue
            hesitating = disclosed and is_hesitation(reply.text, self.settings.hesitation_markers)
            if hesitating and nudges < self.settings.max_nudges:
                nudges += 1
                self.store.add_message(self.session_id, "assistant", reply.text, kind="think")
                yield self._emit(Event("think", {"text": reply.text}))
                self.store.add_message(self.session_id, "user", NUDGE, kind="nudge")
                yield self._emit(Event("nudge", {"text": NUDGE, "attempt": nudges}))
                continue
            note = (
                f"the model did not act after {nudges} nudge{'s' if nudges != 1 else ''}; its text is shown as it was"
                if hesitating
                else None
            )
            final = self.store.add_message(
                self.session_id, "assistant", reply.text, meta={"note": note} if note else None
            )
            if hold_text:
                yield Event("text", {"delta": reply.text})
            yield self._emit(
                Event(
                    "done",
                    {
                        "user_message_id": message.id,
                        "message_id": final.id,
                        "rounds": round_number,
                        "usage": reply.usage,
                        # Token accounting of the last request: what was sent versus the raw history.
                        "compiled_tokens": compiled.compiled_tokens,
                        "raw_tokens": compiled.raw_tokens,
                        "note": note,
                    },
                )
            )
            return
        yield self._emit(
            Event(
                "error",
                {
                    "message": f"stopped after {self.settings.max_tool_rounds} tool rounds in "
                    "one turn (max_tool_rounds)",
                    "fatal": True,
                },
            )
        )
        yield self._emit(Event("done", {"user_message_id": message.id, "rounds": self.settings.max_tool_rounds}))

    def _answer_events(self, call_id: str, name: str, answer: dict[str, Any]) -> list[Event]:
        status = answer.get("status")
        base = {"call_id": call_id, "name": name, **answer}
        if status in ("approval_required", "expired"):
            events = [Event("approval_required", base)]
        elif status == "blocked":
            events = [Event("blocked", base)]
        else:
            events = [Event("tool_result", base)]
        if status == "error":
            events.append(Event("error", {"message": f"{name}: {answer.get('error')}", "fatal": False}))
        return [self._emit(e) for e in events]


def _canonical_text(arguments: str) -> str:
    try:
        value = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return arguments
    return canonical(value) if isinstance(value, dict) else arguments
