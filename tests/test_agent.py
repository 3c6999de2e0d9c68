"""The agent loop and the gateway, end to end through litellm against a scripted local server."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from opsassist.agent.llm import token_counter
from opsassist.agent.loop import AgentLoop, Event
from opsassist.agent.model import ModelConfig
from opsassist.agent.prompts import NUDGE
from opsassist.config import load_settings
from opsassist.context.compiler import BLOCK_TAG
from opsassist.gateway import ApprovalError, Gateway, open_gateway
from opsassist.store import Store
from tests.fake_llm import ScriptedLLM, Step
from tests.guard_pins import EN as RED_LINE

NARROW = "Never kill -9 anything and never restart the core gateway."


def make_loop(store: Store, session_id: str, **overrides: Any) -> tuple[AgentLoop, Gateway]:
    loaded = load_settings()
    settings = loaded.settings.model_copy(update=overrides)
    loaded = type(loaded)(settings=settings, sources=loaded.sources, paths=loaded.paths)
    gateway = open_gateway(store, session_id, loaded)
    model = ModelConfig.from_settings(settings)
    return AgentLoop(store, session_id, settings, gateway, model, token_counter("gpt-4o"), "gpt-4o"), gateway


def run(loop: AgentLoop, prompt: str) -> list[Event]:
    async def collect() -> list[Event]:
        return [event async for event in loop.run_turn(prompt)]

    return asyncio.run(collect())


def types(events: list[Event]) -> list[str]:
    out: list[str] = []
    for event in events:
        if event.type == "text" and out and out[-1] == "text":
            continue
        out.append(event.type)
    return out


def text_of(events: list[Event]) -> str:
    return "".join(e.data["delta"] for e in events if e.type == "text")


def pin(store: Store, session_id: str, text: str) -> None:
    message = store.add_message(session_id, "user", text)
    store.pin(message.id)


def schema_then(tool: str, arguments: dict[str, Any]) -> list[Step]:
    return [
        Step(text="Looking for a tool.", tool_calls=[("search_tool_catalog", {"query": tool})]),
        Step(tool_calls=[("get_tool_schema", {"tool_names": [tool]})]),
        Step(tool_calls=[("execute_tool", {"tool_name": tool, "arguments": arguments})]),
    ]


def block_before_newest(request: dict[str, Any], prompt: str) -> bool:
    messages = request["messages"]
    newest = max(i for i, m in enumerate(messages) if m["role"] == "user" and m["content"] == prompt)
    return newest > 0 and messages[newest - 1]["content"].startswith(f"<{BLOCK_TAG} ")


# -- the happy path and the seed's paralysis case --------------------------------------------------------


def test_search_schema_execute_streams_and_records(llm: ScriptedLLM, store: Store) -> None:
    session = store.create_session()
    loop, _ = make_loop(store, session)
    llm.add(*schema_then("run_shell", {"command": "echo pool-status-ok"}), Step(text="The pool answers: ok."))
    events = run(loop, "is the pool healthy?")
    assert types(events) == [
        "text",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "text",
        "done",
    ]
    result = [e for e in events if e.type == "tool_result"][-1].data
    assert result["status"] == "ok" and "pool-status-ok" in result["result"]["output"]
    assert all("next_step" in e.data for e in events if e.type == "tool_result")
    assert text_of(events) == "Looking for a tool.The pool answers: ok."
    # Streamed in pieces, not as one block.
    assert sum(1 for e in events if e.type == "text") > 3
    # The tool result went back to the model as a tool message after its call.
    last = llm.requests[-1]["messages"]
    assert [m["role"] for m in last[-2:]] == ["assistant", "tool"] and "pool-status-ok" in last[-1]["content"]
    assert {t["function"]["name"] for t in llm.requests[0]["tools"]} == {
        "search_tool_catalog",
        "get_tool_schema",
        "execute_tool",
    }
    kinds = [(m.role, m.kind) for m in store.messages(session)]
    assert kinds[0] == ("user", "chat") and kinds[-1] == ("assistant", "chat")
    assert {e["type"] for e in store.events(session)} >= {"tool_call", "tool_result", "done"}
    done = events[-1].data
    assert done["compiled_tokens"] > 0 and done["raw_tokens"] > 0


def test_seed_paralysis_case(llm: ScriptedLLM, store: Store, cli) -> None:  # type: ignore[no-untyped-def]
    session = store.create_session()
    loop, gateway = make_loop(store, session)
    arguments = {"title": "Check PR #482", "message": "merge status and report", "schedule_time": "+30m"}
    steps = schema_then("scheduled_jobs", arguments)
    llm.add(
        steps[0],
        steps[1],
        Step(
            text="To create the reminder you need to provide the following: title, message, schedule_time, "
            "folder, notify. Would you like to proceed?"
        ),
        steps[2],
        Step(text="The reminder is held for your approval."),
    )
    events = run(loop, "add a reminder to check the core repo's PR merge status and report")
    assert types(events) == [
        "text",
        "tool_call",
        "tool_result",
        "tool_call",
        "tool_result",
        "think",
        "nudge",
        "tool_call",
        "approval_required",
        "text",
        "done",
    ]
    # The hesitation never reached the person as a reply, but stayed in the history the model saw.
    assert "Would you like to proceed" not in text_of(events)
    nudged = llm.requests[3]["messages"]
    assert nudged[-2]["role"] == "assistant" and "Would you like to proceed" in nudged[-2]["content"]
    assert nudged[-1] == {"role": "user", "content": NUDGE}
    held = next(e for e in events if e.type == "approval_required").data
    assert held["status"] == "approval_required" and held["approval_id"].startswith("ap-")
    assert store.reminders() == []  # nothing happened before a person decided
    # The person approves; the action runs once and its result is in the record for the next turn.
    approved = cli("approve", held["approval_id"], "--json")
    assert approved.code == 0, approved.err
    assert json.loads(approved.out)["status"] == "executed"
    (reminder,) = store.reminders()
    assert reminder["title"] == "Check PR #482"
    assert "approved" in store.messages(session)[-1].content
    assert cli("approve", held["approval_id"]).code == 2  # single use


def test_two_hesitations_trip_the_circuit_breaker(llm: ScriptedLLM, store: Store) -> None:
    session = store.create_session()
    loop, _ = make_loop(store, session)
    stall = "Please provide the following details: title, message. Would you like to proceed?"
    llm.add(*schema_then("scheduled_jobs", {})[:2], Step(text=stall), Step(text=stall), Step(text=stall))
    events = run(loop, "remind me to check the replica lag")
    assert [e.type for e in events].count("nudge") == 2
    done = events[-1]
    assert done.type == "done" and "did not act after 2 nudges" in done.data["note"]
    assert text_of(events).endswith(stall)  # after the breaker the person sees what the model said
    assert len(llm.requests) == 5


def test_hesitation_before_any_schema_is_just_text(llm: ScriptedLLM, store: Store) -> None:
    session = store.create_session()
    loop, _ = make_loop(store, session)
    llm.add(Step(text="Would you like to proceed with a read-only check first?"))
    events = run(loop, "what should we do?")
    assert types(events) == ["text", "done"]


# -- red lines --------------------------------------------------------------------------------------------


def test_kill_9_proposal_is_blocked_and_the_pin_goes_back_to_the_model(llm: ScriptedLLM, store: Store) -> None:
    session = store.create_session()
    pin(store, session, NARROW)
    loop, _ = make_loop(store, session)
    llm.add(
        *schema_then("run_shell", {"command": "sudo kill -9 $(pgrep core-gateway)"}),
        Step(text="I will not kill it: that crosses the pinned red line."),
    )
    events = run(loop, "would killing the gateway process be fastest?")
    blocked = next(e for e in events if e.type == "blocked").data
    assert blocked["status"] == "blocked"
    assert blocked["violations"][0]["pin"]["text"] == NARROW
    tool_message = llm.requests[-1]["messages"][-1]
    assert tool_message["role"] == "tool" and NARROW in tool_message["content"]
    assert "Do not run this" in json.loads(tool_message["content"])["next_step"]
    for request in llm.requests:
        assert block_before_newest(request, "would killing the gateway process be fastest?")


def test_every_request_carries_the_pin_block_before_the_newest_user_turn(llm: ScriptedLLM, store: Store) -> None:
    session = store.create_session()
    pin(store, session, RED_LINE)
    for i in range(30):  # a long history, so decay and condensation are in play
        store.add_message(session, "user" if i % 2 == 0 else "assistant", f"round {i}: pgbouncer cl_waiting {200 + i}")
    loop, _ = make_loop(store, session)
    llm.add(*schema_then("read_file", {"path": "/etc/hostname"}), Step(text="Done."))
    run(loop, "check the hostname")
    assert len(llm.requests) == 4
    for request in llm.requests:
        assert block_before_newest(request, "check the hostname")
        block = request["messages"][[m["content"] for m in request["messages"]].index("check the hostname") - 1]
        assert RED_LINE in block["content"]


def test_writes_wait_for_approval_and_pin_changes_make_them_stale(llm: ScriptedLLM, store: Store) -> None:
    session = store.create_session()
    loop, gateway = make_loop(store, session)
    marker = store.path.parent / "restarted.txt"
    llm.add(*schema_then("run_shell", {"command": f"touch {marker}"}), Step(text="Held."))
    events = run(loop, "mark it")
    held = next(e for e in events if e.type == "approval_required").data
    assert not marker.exists()
    pin(store, session, "never restart the core gateway")
    with pytest.raises(ApprovalError, match="stale"):
        gateway.approve(held["approval_id"])
    assert not marker.exists()


# -- approvals: expired, replayed, forged, altered --------------------------------------------------------


@pytest.fixture
def held(store: Store, llm: ScriptedLLM) -> tuple[Gateway, str, Path]:
    session = store.create_session()
    _, gateway = make_loop(store, session)
    marker = store.path.parent / "approved.txt"
    answer = gateway.execute("run_shell", {"command": f"touch {marker}"})
    assert answer["status"] == "approval_required"
    return gateway, answer["approval_id"], marker


def test_approval_runs_once(held: tuple[Gateway, str, Path]) -> None:
    gateway, approval_id, marker = held
    result = gateway.approve(approval_id)
    assert result["exit_code"] == 0 and marker.exists()
    with pytest.raises(ApprovalError, match="already executed"):
        gateway.approve(approval_id)


def test_expired_challenge_is_refused(held: tuple[Gateway, str, Path]) -> None:
    gateway, approval_id, marker = held
    gateway.clock = lambda: datetime.now(UTC) + timedelta(minutes=6)
    with pytest.raises(ApprovalError, match="expired"):
        gateway.approve(approval_id)
    assert not marker.exists()
    # Asking again for the same action reports the expiry and holds it anew.
    again = gateway.execute("run_shell", {"command": f"touch {marker}"})
    assert again["status"] == "expired" and again["approval_id"] != approval_id


def test_forged_or_altered_challenges_are_refused(held: tuple[Gateway, str, Path]) -> None:
    gateway, approval_id, marker = held
    store = gateway.store
    store.db.execute(
        "UPDATE approvals SET arguments = ? WHERE id = ?", [json.dumps({"command": "rm -rf /tmp/x"}), approval_id]
    )
    with pytest.raises(ApprovalError, match="altered or forged"):
        gateway.approve(approval_id)
    second = gateway.execute("run_shell", {"command": "touch /tmp/opsassist-never"})
    store.db.execute("UPDATE approvals SET signature = ? WHERE id = ?", ["0" * 64, second["approval_id"]])
    with pytest.raises(ApprovalError, match="altered or forged"):
        gateway.approve(second["approval_id"])
    assert not marker.exists()


def test_denied_action_is_not_retried(held: tuple[Gateway, str, Path]) -> None:
    gateway, approval_id, marker = held
    gateway.deny(approval_id)
    again = gateway.execute("run_shell", {"command": f"touch {marker}"})
    assert again["status"] == "denied"
    assert "denied" in gateway.store.messages(gateway.session_id)[-1].content


def test_guard_runs_again_at_execution(held: tuple[Gateway, str, Path]) -> None:
    gateway, approval_id, marker = held
    pin(gateway.store, gateway.session_id, "read-only: no writes")
    with pytest.raises(ApprovalError):
        gateway.approve(approval_id)
    assert not marker.exists()


def test_approval_key_is_private(held: tuple[Gateway, str, Path], home: Path) -> None:
    key = home / "approval.key"
    assert key.exists() and key.stat().st_mode & 0o777 == 0o600


# -- faults -------------------------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        (Step(status=401, error="invalid api key"), "401"),
        (Step(status=429, error="slow down"), "429"),
        (Step(status=500, error="boom"), "provider failed"),
        (Step(delay=7), "did not answer within 5 s"),
        (Step(text="The pool is exhausted because", cut_after=4), "stopped mid-way"),
    ],
)
def test_provider_faults_become_error_events(llm: ScriptedLLM, store: Store, step: Step, expected: str) -> None:
    session = store.create_session()
    loop, _ = make_loop(store, session)
    llm.add(step)
    events = run(loop, "status?")
    error = next(e for e in events if e.type == "error")
    assert expected in error.data["message"] and error.data["fatal"]
    assert events[-1].type == "done"
    # The session is intact and the turn can be retried.
    llm.add(Step(text="Recovered."))
    assert text_of(run(loop, "status?")) == "Recovered."


def test_partial_reply_is_kept_and_marked_incomplete(llm: ScriptedLLM, store: Store) -> None:
    session = store.create_session()
    loop, _ = make_loop(store, session)
    llm.add(Step(text="The pool is exhausted because of CHG-1193", chunk=4, cut_after=5))
    events = run(loop, "why?")
    assert any(e.type == "error" for e in events)
    partial = store.messages(session)[-1]
    assert partial.role == "assistant" and partial.meta["incomplete"] and partial.content.startswith("The pool")


def test_connection_refused(llm: ScriptedLLM, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSASSIST_API_BASE", f"http://127.0.0.1:{closed_port()}/v1")
    session = store.create_session()
    loop, _ = make_loop(store, session)
    events = run(loop, "hello?")
    assert "cannot reach the model" in next(e for e in events if e.type == "error").data["message"]


def test_malformed_arguments_and_unknown_tools_go_back_to_the_model(llm: ScriptedLLM, store: Store) -> None:
    session = store.create_session()
    loop, _ = make_loop(store, session)
    llm.add(
        Step(tool_calls=[("execute_tool", '{"tool_name": "run_shell", "arguments": {"command": "ls"')]),
        Step(tool_calls=[("execute_tool", {"tool_name": "restart_everything", "arguments": {}})]),
        Step(tool_calls=[("frobnicate", {})]),
        Step(text="Sorry, let me look properly."),
    )
    events = run(loop, "fix it")
    errors = [e.data["message"] for e in events if e.type == "error"]
    assert any("not valid JSON" in m for m in errors)
    assert any("no tool called 'restart_everything'" in m for m in errors)
    assert any("no tool called 'frobnicate'" in m for m in errors)
    assert all(not e.data["fatal"] for e in events if e.type == "error")
    assert events[-1].type == "done" and text_of(events) == "Sorry, let me look properly."


def test_the_same_call_repeated_stops_the_turn(llm: ScriptedLLM, store: Store) -> None:
    session = store.create_session()
    loop, _ = make_loop(store, session)
    call = Step(tool_calls=[("search_tool_catalog", {"query": "logs"})])
    llm.add(call, call, call, Step(text="unreachable"))
    events = run(loop, "logs?")
    assert "repeated search_tool_catalog" in [e for e in events if e.type == "error"][-1].data["message"]
    assert len(llm.requests) == 3


def test_round_cap_stops_a_runaway_turn(llm: ScriptedLLM, store: Store) -> None:
    session = store.create_session()
    loop, _ = make_loop(store, session, max_tool_rounds=3)
    llm.add(*[Step(tool_calls=[("search_tool_catalog", {"query": f"q{i}"})]) for i in range(5)])
    events = run(loop, "go")
    assert "stopped after 3 tool rounds" in [e for e in events if e.type == "error"][-1].data["message"]


def test_secrets_are_never_written_to_the_database(
    llm: ScriptedLLM, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPSASSIST_API_KEY_ENV", "SCRIPTED_KEY")
    monkeypatch.setenv("SCRIPTED_KEY", "sk-live-do-not-store-4821")
    session = store.create_session()
    loop, _ = make_loop(store, session)
    llm.add(*schema_then("run_shell", {"command": "echo checked"}), Step(text="ok"))
    run(loop, "check")
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert b"sk-live-do-not-store-4821" not in store.path.read_bytes()


# -- built-in tools -----------------------------------------------------------------------------------


def test_shell_timeout_kills_the_whole_process_group(store: Store, llm: ScriptedLLM) -> None:
    session = store.create_session()
    _, gateway = make_loop(store, session, shell_timeout_seconds=1)
    started = time.monotonic()
    answer = gateway.execute("run_shell", {"command": "sleep 41.3 | cat & sleep 41.3"})
    assert answer["status"] == "ok" and "killed after 1 s" in answer["result"]["timed_out"]
    assert time.monotonic() - started < 10
    time.sleep(0.3)
    left = subprocess.run(["pgrep", "-f", "sleep 41.3"], capture_output=True, text=True).stdout
    assert left.strip() == ""


def test_output_is_capped(store: Store, llm: ScriptedLLM) -> None:
    session = store.create_session()
    _, gateway = make_loop(store, session, output_cap_bytes=4096)
    answer = gateway.execute("run_shell", {"command": "head -c 200000 /dev/zero | tr '\\0' x"})
    assert len(answer["result"]["output"]) == 4096 and "of 200000" in answer["result"]["truncated"]


def test_files_and_http(store: Store, llm: ScriptedLLM, tmp_path: Path) -> None:
    session = store.create_session()
    _, gateway = make_loop(store, session)
    log = tmp_path / "app.log"
    log.write_text("".join(f"line {i}\n" for i in range(1000)))
    tail = gateway.execute("tail_file", {"path": str(log), "lines": 3})["result"]
    assert tail["content"] == "line 997\nline 998\nline 999\n"
    head = gateway.execute("read_file", {"path": str(log), "max_bytes": 14})["result"]
    assert head["content"] == "line 0\nline 1\n" and "truncated" in head
    check = gateway.execute("http_check", {"url": llm.base_url.replace("/v1", "/health")})["result"]
    assert check["status"] == 200 and check["body_start"] == "ok\n"
    post = gateway.execute("http_check", {"url": "http://127.0.0.1:1/", "method": "POST"})
    assert post["status"] == "error" and "method" in post["error"]


def test_schema_lists_unauthorized_and_missing_tools(store: Store, llm: ScriptedLLM) -> None:
    session = store.create_session()
    _, gateway = make_loop(store, session, disabled_tools=["run_shell"])
    answer = gateway.schema(["run_shell", "tail_file", "nope"])
    assert [d["name"] for d in answer["disclosed"]] == ["tail_file"]
    assert answer["unauthorized"] == ["run_shell"] and answer["not_found"] == ["nope"]
    assert "execute_tool" in answer["next_step"] and "+30m" in answer["next_step"]
    assert gateway.execute("run_shell", {"command": "ls"})["status"] == "error"


def test_user_tools_fill_argv_safely_and_pass_the_guard(store: Store, llm: ScriptedLLM, home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "tools.toml").write_text(
        """
[[tools]]
name = "say"
description = "Echo a note"
risk = "read"
command = ["echo", "note: {text}"]
[tools.parameters]
type = "object"
required = ["text"]
[tools.parameters.properties.text]
type = "string"

[[tools]]
name = "pg_query"
description = "Run a query on the primary"
risk = "read"
command = ["psql", "-h", "db-prod-3", "-c", "{sql}"]
[tools.parameters]
type = "object"
required = ["sql"]
[tools.parameters.properties.sql]
type = "string"
"""
    )
    session = store.create_session()
    pin(store, session, RED_LINE)
    _, gateway = make_loop(store, session)
    said = gateway.execute("say", {"text": "hi; touch /tmp/opsassist-pwned $(id)"})
    assert said["status"] == "ok"
    assert said["result"]["output"] == "note: hi; touch /tmp/opsassist-pwned $(id)\n"
    assert not Path("/tmp/opsassist-pwned").exists()
    blocked = gateway.execute("pg_query", {"sql": "DROP TABLE orders"})
    assert blocked["status"] == "blocked"


def test_bad_tools_file_is_a_one_line_error(llm: ScriptedLLM, home: Path, cli) -> None:  # type: ignore[no-untyped-def]
    home.mkdir(parents=True, exist_ok=True)
    (home / "tools.toml").write_text('[[tools]]\nname = "x_tool"\ncommand = "rm -rf /"\n')
    assert cli("approvals").code == 0  # reading the record never needs the tools file
    result = cli("ask", "hello")
    assert result.code == 2
    assert len(result.err.strip().splitlines()) == 1
    assert str(home / "tools.toml") in result.err and "tool 'x_tool'" in result.err and "command" in result.err
    assert llm.requests == []  # nothing was sent


# -- the command line ---------------------------------------------------------------------------------


def test_ask_json_prints_one_event_a_line(llm: ScriptedLLM, cli) -> None:  # type: ignore[no-untyped-def]
    llm.add(
        *schema_then("scheduled_jobs", {"title": "t", "message": "m", "schedule_time": "+1h"}),
        Step(text="Held for approval."),
    )
    result = cli("ask", "--json", "remind me in an hour")
    assert result.code == 0, result.err
    events = [json.loads(line) for line in result.out.splitlines()]
    assert events[-1]["type"] == "done"
    held = next(e for e in events if e["type"] == "approval_required")
    listed = json.loads(cli("approvals", "--json").out)
    assert [row["id"] for row in listed] == [held["approval_id"]]
    assert cli("deny", held["approval_id"]).code == 0
    assert json.loads(cli("approvals", "--json").out) == []
    assert cli("approve", "ap-nope").code == 2
    session = events[0]["session_id"]
    shown = json.loads(cli("show", session, "--json").out)
    assert {e["type"] for e in shown["events"]} >= {"approval_required", "denied"}


def test_ask_without_a_model_says_how_to_configure_one(cli, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    result = cli("ask", "hello")
    assert result.code == 2 and "OPSASSIST_MODEL" in result.err


def test_reminders_command_and_due_reminders_surface(llm: ScriptedLLM, store: Store, cli) -> None:  # type: ignore[no-untyped-def]
    session = store.create_session()
    store.add_reminder(session, "Check replica lag", "db-prod-4", "2000-01-01T00:00:00+00:00", {})
    assert [r["title"] for r in json.loads(cli("reminders", "--json").out)] == ["Check replica lag"]
    loop, _ = make_loop(store, session)
    llm.add(Step(text="ok"))
    events = run(loop, "next")
    assert events[0].type == "reminder" and events[0].data["title"] == "Check replica lag"
    llm.add(Step(text="ok"))
    assert all(e.type != "reminder" for e in run(loop, "again"))  # shown once


def test_line_mode_rendering_neutralises_escapes(capsys: pytest.CaptureFixture[str]) -> None:
    from opsassist.render import print_event

    print_event(Event("text", {"delta": "\x1b]0;pwned\x07ok"}))
    print_event(Event("tool_call", {"name": "execute_tool", "arguments": "\x1b[2J"}))
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out


def test_env_is_not_leaked_into_tool_schemas(store: Store, llm: ScriptedLLM) -> None:
    session = store.create_session()
    _, gateway = make_loop(store, session)
    assert os.environ["OPSASSIST_API_BASE"] not in json.dumps(gateway.schema(["run_shell"]))
