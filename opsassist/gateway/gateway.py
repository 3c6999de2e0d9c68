"""Layer 1 of seed 001: the tool gateway, with progressive disclosure and `next_step` breadcrumbs.

The model sees exactly three tools: `search_tool_catalog` -> `get_tool_schema` -> `execute_tool`. Every answer
is JSON that carries a `next_step` naming the call to make next, so the model never stands in the corridor
with a fifty-page schema and no idea where to go. `execute_tool` answers with a `status`: `ok`,
`approval_required`, `blocked`, `denied`, `expired` or `error`.

Writes are held for a person's approval (approvals.py); commands are judged by the guard when requested and
again, on exactly what will run, when approved.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from opsassist.config import Settings
from opsassist.gateway.approvals import ApprovalBook, ApprovalError, Challenge, pin_set_digest
from opsassist.gateway.tools import (
    Catalog,
    RunLimits,
    ToolSpec,
    fill_command,
    http_check,
    parse_schedule_time,
    read_file,
    run_process,
    run_shell,
    tail_file,
)
from opsassist.guard import PinRules, Verdict, check_command
from opsassist.store import Store

META_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "search_tool_catalog",
            "description": "Find tools for a task. Answers with matching tools and the next call to make.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "What you want to do, in a few words."}},
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_tool_schema",
            "description": "Get the parameter schema of tools found with search_tool_catalog.",
            "parameters": {
                "type": "object",
                "properties": {"tool_names": {"type": "array", "items": {"type": "string"}}},
                "required": ["tool_names"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "execute_tool",
            "description": "Run a tool with arguments that match its schema. Writes are held for the person's "
            "approval by the gateway; never ask for confirmation in text.",
            "parameters": {
                "type": "object",
                "properties": {"tool_name": {"type": "string"}, "arguments": {"type": "object"}},
                "required": ["tool_name", "arguments"],
            },
        },
    },
]
META_TOOL_NAMES = frozenset(t["function"]["name"] for t in META_TOOLS)
RESULT_NOTE_CAP = 4_000


def record_event(store: Store, session_id: str, type_: str, payload: dict[str, Any]) -> None:
    store.add_event(session_id, type_, payload)


def schema_next_step(names: list[str]) -> str:
    example = names[0] if names else "..."
    return (
        f"Immediately call execute_tool(tool_name='{example}', arguments={{...}}) using this schema. Synthesize the "
        "arguments from the person's intent and the conversation. If non-critical parameters such as "
        "`schedule_time` are unspecified, use sensible defaults (e.g. '+30m'). Do not ask for confirmation in "
        "text: the gateway holds write actions for the person's approval and blocks what crosses a pinned red line."
    )


class Gateway:
    def __init__(
        self,
        store: Store,
        session_id: str,
        settings: Settings,
        catalog: Catalog,
        approvals: ApprovalBook,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.store = store
        self.session_id = session_id
        self.settings = settings
        self.catalog = catalog
        self.approvals = approvals
        self.clock = clock
        self.limits = RunLimits(settings.shell_timeout_seconds, settings.output_cap_bytes)

    # -- the pins in force ---------------------------------------------------------------------------

    def pins(self) -> list[PinRules]:
        pins = self.store.pins(self.session_id)
        out = []
        for pin in pins:
            text = self.store.message(pin.message_id).content
            out.append(PinRules.from_text(pin.id, text, pin.patterns))
        return out

    def pin_set(self, pins: list[PinRules] | None = None) -> str:
        return pin_set_digest([(p.pin_id, p.text) for p in (pins if pins is not None else self.pins())])

    # -- the three meta-tools ------------------------------------------------------------------------

    def handle(self, name: str, raw_arguments: str) -> dict[str, Any]:
        """Answer one meta-tool call; never raises for anything the model sends."""
        try:
            arguments = json.loads(raw_arguments or "{}")
        except json.JSONDecodeError as exc:
            return self._error(f"the arguments are not valid JSON ({exc.msg}); send a JSON object")
        if not isinstance(arguments, dict):
            return self._error("the arguments must be a JSON object")
        if name == "search_tool_catalog":
            return self.search(str(arguments.get("query", "")))
        if name == "get_tool_schema":
            names = arguments.get("tool_names", [])
            if isinstance(names, str):
                names = [names]
            return self.schema([str(n) for n in names] if isinstance(names, list) else [])
        if name == "execute_tool":
            tool_arguments = arguments.get("arguments", {})
            if isinstance(tool_arguments, str):
                try:
                    tool_arguments = json.loads(tool_arguments)
                except json.JSONDecodeError:
                    return self._error("`arguments` must be a JSON object matching the tool's schema")
            if not isinstance(tool_arguments, dict):
                return self._error("`arguments` must be a JSON object matching the tool's schema")
            return self.execute(str(arguments.get("tool_name", "")), tool_arguments)
        return self._error(
            f"there is no tool called {name!r}; the tools are search_tool_catalog, get_tool_schema and execute_tool",
        )

    def _error(self, message: str, next_step: str | None = None, **extra: Any) -> dict[str, Any]:
        return {
            "status": "error",
            "error": message,
            **extra,
            "next_step": next_step or "Fix the call as the error says and make it again.",
        }

    def search(self, query: str) -> dict[str, Any]:
        found = self.catalog.search(query)
        if not found:
            return {
                "layer": "1_catalog_search",
                "tools": [],
                "next_step": "No tool matched. Call search_tool_catalog again with other words, or with an empty "
                "query to list every tool.",
            }
        names = [t.name for t in found]
        return {
            "layer": "1_catalog_search",
            "tools": [t.summary() for t in found],
            "next_step": f"Call get_tool_schema(tool_names={names[:3]!r}) for the tool that fits, then execute_tool.",
        }

    def schema(self, names: list[str]) -> dict[str, Any]:
        disclosed = [
            self.catalog.tools[n].schema() for n in names if n in self.catalog.tools and n not in self.catalog.disabled
        ]
        unauthorized = [n for n in names if n in self.catalog.disabled]
        not_found = [n for n in names if n not in self.catalog.tools]
        if not disclosed:
            return {
                "layer": "2_schema_disclosure",
                "disclosed": [],
                "unauthorized": unauthorized,
                "not_found": not_found,
                "next_step": "None of these tools can be used. Call search_tool_catalog to find one that exists and "
                "is allowed.",
            }
        return {
            "layer": "2_schema_disclosure",
            "disclosed": disclosed,
            "unauthorized": unauthorized,
            "not_found": not_found,
            "next_step": schema_next_step([d["name"] for d in disclosed]),
        }

    def execute(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        spec = self.catalog.tools.get(name)
        if spec is None:
            return self._error(
                f"there is no tool called {name!r}",
                "Call search_tool_catalog to find the right tool, then get_tool_schema.",
            )
        if name in self.catalog.disabled:
            return self._error(f"{name} is disabled by the person's settings", "Use another tool, or tell the person.")
        problems = validate_arguments(spec, arguments)
        if problems:
            return self._error(
                "the arguments do not match the schema: " + "; ".join(problems),
                f"Call execute_tool(tool_name='{name}', arguments={{...}}) again with arguments that match the "
                "schema; fill what is missing from the conversation with sensible defaults.",
                schema=spec.parameters,
            )
        pins = self.pins()
        what = self.catalog.describe_command(spec, arguments)
        verdict = check_command(what, pins) if spec.risk == "guarded" or spec.command else None
        if verdict is not None and verdict.decision == "block":
            return self._blocked(verdict)
        if (
            spec.risk == "write"
            or (verdict is not None and verdict.risk == "write")
            or (spec.risk == "guarded" and verdict is not None and verdict.decision == "approve")
        ):
            return self._hold(spec, arguments, what, verdict, pins)
        result = self.run(spec, arguments)
        return {
            "status": "ok",
            "tool": name,
            "result": result,
            "next_step": "Use this result: answer the person, or call execute_tool again if you need more evidence.",
        }

    def _blocked(self, verdict: Verdict) -> dict[str, Any]:
        violations = [v.to_dict() for v in verdict.violations]
        first = verdict.violations[0]
        alternative = next((v.alternative for v in verdict.violations if v.alternative), None)
        step = (
            f"Do not run this or any variant of it: it crosses pin {first.pin_id} («{first.pin_text}»). Tell the "
            "person in one sentence, then check the situation with read-only commands instead."
        )
        if alternative:
            step += f" A read-only way to look: {alternative}"
        return {"status": "blocked", "command": verdict.command, "violations": violations, "next_step": step}

    def _hold(
        self, spec: ToolSpec, arguments: dict[str, Any], what: str, verdict: Verdict | None, pins: list[PinRules]
    ) -> dict[str, Any]:
        pin_set = self.pin_set(pins)
        why = "; ".join(verdict.notes[:3]) if verdict is not None and verdict.notes else f"{spec.name} is a write"
        previous = self.approvals.find(self.session_id, spec.name, arguments)
        status = "approval_required"
        if previous is not None:
            previous = self.approvals.expire_if_due(previous, self.clock())
            if previous.status == "pending":
                return self._held_answer(previous, status, why)
            if previous.status == "denied":
                return {
                    "status": "denied",
                    "approval_id": previous.id,
                    "next_step": "The person denied exactly this action. Do not retry it; tell the person what you "
                    "would do instead.",
                }
            if previous.status == "expired":
                status = "expired"
        challenge = self.approvals.issue(self.session_id, spec.name, arguments, pin_set, what, why, self.clock())
        return self._held_answer(challenge, status, why)

    def _held_answer(self, challenge: Challenge, status: str, why: str) -> dict[str, Any]:
        lead = (
            "An earlier request for this action expired unanswered; it is held again"
            if status == "expired"
            else ("The action is held for the person's approval")
        )
        return {
            "status": status,
            "approval_id": challenge.id,
            "expires_at": challenge.expires_at,
            "action": challenge.summary,
            "why": why,
            "next_step": f"{lead} (challenge {challenge.id}, expires {challenge.expires_at[11:19]} UTC). Tell the "
            "person in one sentence what is waiting; do not ask for confirmation in text and do not call it again.",
        }

    # -- running and deciding ------------------------------------------------------------------------

    def run(self, spec: ToolSpec, arguments: dict[str, Any]) -> dict[str, Any]:
        if spec.name == "run_shell":
            return run_shell(arguments["command"], self.limits, arguments.get("timeout_seconds"))
        if spec.name == "read_file":
            return read_file(arguments["path"], arguments.get("max_bytes"), self.limits)
        if spec.name == "tail_file":
            return tail_file(arguments["path"], arguments.get("lines"), self.limits)
        if spec.name == "http_check":
            return http_check(arguments["url"], arguments.get("method"), arguments.get("timeout_seconds"), self.limits)
        if spec.name == "scheduled_jobs":
            due = parse_schedule_time(arguments["schedule_time"], self.clock())
            meta = {k: arguments[k] for k in ("repeat", "priority", "notify", "folder") if k in arguments}
            reminder_id = self.store.add_reminder(
                self.session_id, arguments["title"], arguments["message"], due.isoformat(timespec="seconds"), meta
            )
            return {"reminder_id": reminder_id, "due_at": due.isoformat(timespec="seconds")}
        return run_process(fill_command(spec, arguments), self.limits)

    def approve(self, approval_id: str) -> dict[str, Any]:
        """The person approves: verify the challenge, judge again what will run, run it once, record it."""
        pins = self.pins()
        challenge = self.approvals.verify(approval_id, self.pin_set(pins), self.clock())
        spec = self.catalog.tools.get(challenge.tool)
        if spec is None:
            raise ApprovalError(f"{approval_id} is for {challenge.tool}, which is no longer a tool here")
        what = self.catalog.describe_command(spec, challenge.arguments)
        if what != challenge.summary:
            raise ApprovalError(f"{approval_id} would now run something other than what was shown; refused")
        if spec.risk == "guarded" or spec.command:
            verdict = check_command(what, pins)
            if verdict.decision == "block":
                reason = verdict.violations[0].reason
                raise ApprovalError(f"{approval_id} now crosses pin {verdict.violations[0].pin_id}: {reason}")
        if not self.approvals.claim(approval_id):
            raise ApprovalError(f"{approval_id} was decided by someone else just now; a challenge can be used once")
        result = self.run(spec, challenge.arguments)
        self.store.record_approval_result(approval_id, result)
        shown = json.dumps(result, ensure_ascii=False)[:RESULT_NOTE_CAP]
        self._record_decision(
            approval_id,
            "approved",
            f"[opsassist] The person approved {approval_id} and it ran: {what}\nResult: {shown}",
            {"tool": spec.name, "command": what, "summary": "approved and ran"},
        )
        return result

    def deny(self, approval_id: str) -> Challenge:
        challenge = self.approvals.deny(approval_id)
        self._record_decision(
            approval_id,
            "denied",
            f"[opsassist] The person denied {approval_id}: {challenge.summary}. Do not retry it.",
            {"tool": challenge.tool, "command": challenge.summary},
        )
        return challenge

    def _record_decision(self, approval_id: str, decision: str, note: str, details: dict[str, Any]) -> None:
        """The person's decision goes into the record twice: as an event, and as a note the model reads next."""
        self.store.add_message(self.session_id, "user", note, kind="note", meta={"approval_id": approval_id})
        record_event(self.store, self.session_id, decision, {"approval_id": approval_id, **details})


def validate_arguments(spec: ToolSpec, arguments: dict[str, Any]) -> list[str]:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(spec.parameters)
    problems = []
    for error in sorted(validator.iter_errors(arguments), key=lambda e: list(e.path)):
        where = ".".join(str(p) for p in error.path) or "arguments"
        problems.append(f"{where}: {error.message}")
    if not problems and spec.name == "scheduled_jobs":
        try:
            parse_schedule_time(arguments["schedule_time"])
        except ValueError as exc:
            problems.append(str(exc))
    return problems
