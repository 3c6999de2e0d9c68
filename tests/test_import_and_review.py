"""`opsassist import`, `sessions`, `show`, `search`, `export`: contracts, bad input, terminal safety."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import INCIDENT


def write_jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def import_incident(cli) -> str:  # type: ignore[no-untyped-def]
    result = cli("import", str(INCIDENT))
    assert result.code == 0, result.err
    return result.out.strip()


def test_import_prints_id_and_keeps_order_pins_and_times(cli) -> None:  # type: ignore[no-untyped-def]
    session_id = import_incident(cli)
    doc = json.loads(cli("show", session_id, "--json").out)
    source = [json.loads(line) for line in INCIDENT.read_text().splitlines()]
    assert [m["content"] for m in doc["messages"]] == [s["content"] for s in source]
    assert [m["pinned"] for m in doc["messages"]] == [s.get("pinned", False) for s in source]
    assert doc["messages"][0]["created_at"].startswith("2026-11-29T03:14:00")
    assert doc["session"]["title"] == "incident_50_rounds"
    assert len(doc["pins"]) == 1


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"role": "user", "content": "ok"', "malformed JSON"),
        ('{"role": "operator", "content": "hi"}', "unknown role 'operator'"),
        ('{"role": "user"}', "missing 'content'"),
        ('{"role": "user", "content": 42}', "'content' must be a string"),
        ('{"role": "user", "content": "x", "pinned": "yes"}', "'pinned' must be true or false"),
        (
            '{"role": "user", "content": "x", "created_at": "yesterday"}',
            "'created_at' is not an ISO-8601 timestamp",
        ),
        ('{"role": "user", "content": "x", "colour": "red"}', "unknown key(s) colour"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_bad_line_names_its_number_and_imports_nothing(cli, tmp_path: Path, line: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    good = '{"role": "user", "content": "fine"}'
    path = write_jsonl(tmp_path / "bad.jsonl", [good, good, line, good])
    result = cli("import", str(path))
    assert result.code == 2
    assert f"bad.jsonl:3: {expected}" in result.err
    assert "Traceback" not in result.err
    assert json.loads(cli("sessions", "--json").out) == []


def test_empty_file_is_a_clear_error(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    for content in ("", "\n\n  \n"):
        path = tmp_path / "empty.jsonl"
        path.write_text(content)
        result = cli("import", str(path))
        assert result.code == 2
        assert "no messages in file" in result.err


def test_missing_file_is_a_clear_error(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = cli("import", str(tmp_path / "nope.jsonl"))
    assert result.code == 2 and "cannot read" in result.err


def test_sessions_lists_newest_activity_first(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    old = write_jsonl(tmp_path / "old.jsonl", ['{"role":"user","content":"a","created_at":"2026-01-01T00:00:00Z"}'])
    new = write_jsonl(tmp_path / "new.jsonl", ['{"role":"user","content":"b","created_at":"2026-06-01T00:00:00Z"}'])
    cli("import", str(old))
    cli("import", str(new))
    rows = json.loads(cli("sessions", "--json").out)
    assert [r["title"] for r in rows] == ["new", "old"]
    assert rows[0]["messages"] == 1
    table = cli("sessions").out
    assert "new" in table and "old" in table


def test_unknown_and_ambiguous_ids_exit_2_in_one_line(cli) -> None:  # type: ignore[no-untyped-def]
    import_incident(cli)
    for args in (("show", "ffffffff"), ("export", "0000", "--format", "md"), ("show", "not-hex")):
        result = cli(*args)
        assert result.code == 2
        assert len(result.err.strip().splitlines()) == 1
        assert "Traceback" not in result.err


def test_usage_errors_exit_2_in_one_line(cli) -> None:  # type: ignore[no-untyped-def]
    for args in (("export", "abc", "--format", "pdf"), ("show",), ("frobnicate",)):
        result = cli(*args)
        assert result.code == 2
        assert len(result.err.strip().splitlines()) == 1


def test_search_finds_ranked_hits_with_highlighted_snippets(cli) -> None:  # type: ignore[no-untyped-def]
    session_id = import_incident(cli)
    hits = json.loads(cli("search", "pgbouncer-2", "--json").out)
    assert hits and all(h["session_id"] == session_id for h in hits)
    assert "«pgbouncer-2»" in hits[0]["snippet"]
    assert hits == sorted(hits, key=lambda h: h["rank"])
    assert "pgbouncer" in cli("search", "pgbouncer").out


def test_show_marks_pins_and_neutralises_escape_sequences(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    evil = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m [bold]not markup[/bold] \u202eevil"
    path = write_jsonl(
        tmp_path / "evil.jsonl",
        [
            json.dumps({"role": "user", "content": "never DROP anything", "pinned": True}),
            json.dumps({"role": "tool", "content": evil}),
        ],
    )
    session_id = cli("import", str(path)).out.strip()
    for args in (("show", session_id), ("export", session_id, "--format", "md"), ("search", "red")):
        out = cli(*args).out
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    shown = cli("show", session_id).out
    assert "PINNED" in shown
    assert "[bold]not markup[/bold]" in shown
    assert "␛[31mred" in shown
    # JSON keeps content exactly as stored.
    doc = json.loads(cli("show", session_id, "--json").out)
    assert doc["messages"][1]["content"] == evil


def test_markdown_export_is_a_postmortem_timeline(cli) -> None:  # type: ignore[no-untyped-def]
    session_id = import_incident(cli)
    md = cli("export", session_id, "--format", "md").out
    assert md.startswith("# Incident timeline: incident_50_rounds")
    red_lines = md.index("## Red lines (pinned)")
    timeline = md.index("## Timeline")
    assert red_lines < md.index("never kill -9 anything") < timeline
    assert "📌 pinned red line" in md
    assert md.count("### ") == 99


def test_json_export_round_trips_every_message(cli) -> None:  # type: ignore[no-untyped-def]
    session_id = import_incident(cli)
    doc = json.loads(cli("export", session_id, "--format", "json").out)
    assert len(doc["messages"]) == 99
    assert doc["session"]["id"] == session_id


def test_imported_session_spans_its_messages_times(cli) -> None:  # type: ignore[no-untyped-def]
    session_id = import_incident(cli)
    session = json.loads(cli("show", session_id, "--json").out)["session"]
    source = [json.loads(line) for line in INCIDENT.read_text().splitlines()]
    assert session["created_at"].startswith(source[0]["created_at"][:19])
    assert session["updated_at"].startswith(source[-1]["created_at"][:19])


def test_show_lists_the_rules_each_pin_yields(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = write_jsonl(
        tmp_path / "pins.jsonl",
        [
            json.dumps({"role": "user", "content": "never kill -9 anything", "pinned": True}),
            json.dumps({"role": "user", "content": "keep the status page updated", "pinned": True}),
        ],
    )
    out = cli("show", cli("import", str(path)).out.strip()).out
    assert "blocks: SIGKILL (kill -9)" in out
    assert "yields no enforceable rule" in out
