"""Rules derived from pin text, `guard explain`, and the `guard check` command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opsassist.guard.explain import explain_pin
from opsassist.guard.rules import derive_rules
from tests.guard_pins import EN, NARROW, ZH


def ids(text: str) -> list[str]:
    return [rule.id for rule in derive_rules(text)]


def test_seed_pins_verbatim() -> None:
    assert ids(EN) == ["read_only", "sql:DROP", "sql:DELETE", "signal:KILL", "service:core-gateway"]
    assert ids(ZH) == ["read_only", "sql:DROP", "sql:DELETE", "service:core-gateway"]
    assert ids(NARROW) == ["sql:DROP", "sql:DELETE", "signal:KILL", "service:core-gateway"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Do not kill any processes on db-prod-3", ["signal:any"]),
        ("never kill -9 the workers", ["signal:KILL"]),
        ("no SIGKILL on the primary", ["signal:KILL"]),
        (
            "never restart pgbouncer-2 or core-gateway during the incident",
            ["service:pgbouncer-2", "service:core-gateway"],
        ),
        ("Do not reboot", ["service:any service"]),
        ("不要重启支付服务和核心网关", ["service:payment", "service:core-gateway"]),
        ("禁止强制杀进程", ["signal:KILL"]),
        ("Don't drop tables, but SELECT is fine", ["sql:DROP"]),
        ("never truncate or alter tables", ["sql:TRUNCATE", "sql:ALTER"]),
        ("Never delete anything in the backups bucket", ["delete"]),
        ("We are in read-only mode until 04:00", ["read_only"]),
        ("We are no longer read-only", []),
        ("DELETE is fine on staging", []),
        ("The deploy freeze is in effect; page Alice before merging.", []),
        ("", []),
    ],
)
def test_rules_come_only_from_what_the_pin_forbids(text: str, expected: list[str]) -> None:
    assert ids(text) == expected


def test_service_rule_matches_the_spellings_of_a_name() -> None:
    (rule,) = [r for r in derive_rules("never restart the core gateway") if r.kind == "service"]
    regex = rule.target_regex()
    assert regex is not None
    for name in (
        "core-gateway",
        "core_gateway",
        "core-gw",
        "deploy/core-gateway",
        "core-gateway-7d9f-x2",
        "core-gateway.service",
        "CORE-GATEWAY",
    ):
        assert regex.search(name), name
    for name in ("score-gateway", "gateway", "core-api", "edge-gw"):
        assert not regex.search(name), name


def test_rules_round_trip_through_the_store_format() -> None:
    from opsassist.guard.rules import Rule

    for rule in derive_rules(EN, ["rm\\s+-rf"]):
        assert Rule.from_dict(json.loads(json.dumps(rule.to_dict()))) == rule


@pytest.mark.parametrize(
    "text",
    [
        EN,
        ZH,
        NARROW,
        "never restart pgbouncer-2",
        "Do not kill anything",
        "never delete anything",
        "不要重启支付服务",
        "Do not reboot",
        "never TRUNCATE",
    ],
)
def test_explain_examples_hold(text: str) -> None:
    explanations = explain_pin(text)
    assert explanations
    for explanation in explanations:
        failing = [(x.command, x.decision) for x in explanation.examples if not x.holds]
        assert failing == [], explanation.rule.id


def test_guard_check_json_contract(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("guard", "check", "--pin", EN, "--json", "--", "sudo kill -9 4821")
    assert result.code == 0
    verdict = json.loads(result.out)
    assert verdict["command"] == "sudo kill -9 4821"
    assert verdict["decision"] == "block" and verdict["risk"] == "write"
    kinds = {v["rule"]["id"] for v in verdict["violations"]}
    assert {"signal:KILL", "read_only"} <= kinds
    violation = next(v for v in verdict["violations"] if v["rule"]["id"] == "signal:KILL")
    assert set(violation) >= {"pin", "rule", "segment", "reason"}
    assert violation["pin"] == {"id": 1, "text": EN}
    # Under read-only, SIGTERM is a write too: no alternative is offered that the guard would block.
    assert "alternative" not in violation
    narrow = json.loads(cli("guard", "check", "--pin", NARROW, "--json", "--", "sudo kill -9 4821").out)
    assert narrow["violations"][0]["alternative"] == "kill -TERM 4821"


def test_guard_check_argv_form_keeps_quoting(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli("guard", "check", "--pin", NARROW, "--json", "--", "psql", "-c", "DROP TABLE orders")
    assert json.loads(result.out)["decision"] == "block"


def test_guard_check_batch_keeps_input_order(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    commands = ["kubectl get pods", "kill -9 1", "systemctl restart nginx", "grep DELETE app.log"]
    path = tmp_path / "cmds.txt"
    path.write_text("\n".join(commands) + "\n")
    result = cli("guard", "check", "--pin", NARROW, "--json", "--batch", str(path))
    verdicts = [json.loads(line) for line in result.out.splitlines()]
    assert [v["command"] for v in verdicts] == commands
    assert [v["decision"] for v in verdicts] == ["allow", "block", "approve", "allow"]


def test_guard_check_jsonl_takes_multiline_commands(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "cmds.jsonl"
    path.write_text(
        json.dumps({"command": "psql <<'SQL'\nDELETE FROM orders;\nSQL"})
        + "\n"
        + json.dumps({"command": "cat <<'EOF'\nDELETE FROM orders;\nEOF"})
        + "\n"
    )
    result = cli("guard", "check", "--pin", ZH, "--json", "--jsonl", str(path))
    assert [json.loads(line)["decision"] for line in result.out.splitlines()] == ["block", "allow"]


def test_guard_check_uses_session_pins_and_patterns(cli, store, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    session = store.create_session("pins")
    message = store.add_message(session, "user", "Never run rm -rf anywhere")
    store.pin(message.id, patterns=[r"rm\s+-rf"])
    result = cli("guard", "check", "--session", session[:6], "--json", "--", "sudo rm -rf /var/cache/x")
    verdict = json.loads(result.out)
    assert verdict["decision"] == "block"
    assert verdict["violations"][0]["rule"]["id"] == "pattern:rm\\s+-rf"
    pattern = cli(
        "guard",
        "check",
        "--pin",
        "be careful",
        "--pattern",
        "curl .*-X\\s*DELETE",
        "--json",
        "--",
        "curl -s -X DELETE http://x/y",
    )
    assert json.loads(pattern.out)["decision"] == "block"


def test_guard_check_bad_input_exits_2(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"command": "ls"}\n{"cmd": "ls"}\n')
    cases = [
        ("guard", "check", "--json"),
        ("guard", "check", "--batch", str(tmp_path / "missing.txt")),
        ("guard", "check", "--jsonl", str(bad)),
        ("guard", "check", "--pin", "x", "--pattern", "([", "--", "ls"),
        ("guard", "check", "--pattern", "x", "--", "ls"),
        ("guard", "check", "--session", "ffffff", "--", "ls"),
    ]
    for args in cases:
        result = cli(*args)
        assert result.code == 2, args
        assert len(result.err.strip().splitlines()) == 1, result.err
    assert "bad.jsonl:2" in cli(*cases[2]).err


def test_guard_check_human_output_names_pin_and_warns_on_ruleless_pins(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("guard", "check", "--pin", NARROW, "--pin", "the deploy freeze is on", "--", "kill -9 4821").out
    assert "BLOCK" in out and "pin 1" in out and "SIGKILL" in out
    assert "instead: kill -TERM 4821" in out
    assert "pin 2 yields no enforceable rule" in out


def test_guard_explain_command(cli) -> None:  # type: ignore[no-untyped-def]
    out = cli("guard", "explain", ZH).out
    assert "blocks restart of core-gateway" in out and "systemctl restart core-gateway" in out
    assert "CHECK FAILED" not in out
    doc = json.loads(cli("guard", "explain", EN, "--json").out)
    assert [r["id"] for r in doc["rules"]] == ids(EN)
    assert all(x["holds"] for r in doc["rules"] for x in r["examples"])
    assert "yields no enforceable rule" in cli("guard", "explain", "be careful out there").out
