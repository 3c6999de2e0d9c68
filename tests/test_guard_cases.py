"""The guard against our own labelled cases (tests/data/guard_cases.jsonl) and the public suites.

Our cases are laid out as true_positive / false_positive / bypass / edge, each with the decision expected
under the English and Chinese seed pins, a narrow pin without "read-only", and no pin. The public suites
(dcg, shellfirm, cc-safety-net) are labelled for their own defaults; where opsassist's red lines say
otherwise the case is relabelled in tests/data/guard_relabels.jsonl with the reason, never deleted.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opsassist.guard import check_command
from tests.conftest import CORPORA, DATA
from tests.guard_pins import PIN_SETS

CASES = [json.loads(line) for line in (DATA / "guard_cases.jsonl").read_text().splitlines()]
PARAMS = [
    pytest.param(case["command"], pin, want, id=f"{case['category']}-{pin}-{i}")
    for i, case in enumerate(CASES)
    for pin, want in case["expect"].items()
]


def test_case_file_has_every_category() -> None:
    assert Counter(c["category"] for c in CASES).keys() == {
        "bypass",
        "true_positive",
        "false_positive",
        "edge",
    }


@pytest.mark.parametrize(("command", "pins", "want"), PARAMS)
def test_labelled_case(command: str, pins: str, want: str) -> None:
    verdict = check_command(command, PIN_SETS[pins])
    assert verdict.decision == want, [v.reason for v in verdict.violations] or verdict.notes


def test_every_block_names_the_pin_rule_and_segment() -> None:
    for case in CASES:
        verdict = check_command(case["command"], PIN_SETS["en"])
        for violation in verdict.violations:
            data = violation.to_dict()
            assert data["pin"] == {"id": 1, "text": PIN_SETS["en"][0].text}
            assert data["rule"]["summary"] and data["reason"] and data["segment"]


def test_alternatives_pass_the_guard_themselves() -> None:
    offered = 0
    for case in CASES:
        for violation in check_command(case["command"], PIN_SETS["narrow"]).violations:
            if violation.alternative:
                offered += 1
                assert check_command(violation.alternative, PIN_SETS["narrow"]).decision != "block"
    assert offered >= 10


@pytest.mark.slow
def test_public_suites_relabelled_to_our_red_lines() -> None:
    relabels = {}
    for line in (DATA / "guard_relabels.jsonl").read_text().splitlines():
        row = json.loads(line)
        relabels[(row["command"], row["pins"])] = row
    public = [json.loads(line) for line in (CORPORA / "guard_cases_public.jsonl").read_text().splitlines()]
    mismatches = []
    for case in public:
        # Under the read-only seed pin every dangerous case must be blocked; under the narrow pin a benign one
        # must not be. Without pins nothing is ever blocked, and writes are never allowed unasked.
        checks = [("en", "block")] if case["label"] == "dangerous" else [("narrow", "not block")]
        for pins, expected in checks:
            decision = check_command(case["command"], PIN_SETS[pins]).decision
            relabel = relabels.get((case["command"], pins))
            want = relabel["decision"] if relabel else expected
            ok = decision == want if want != "not block" else decision != "block"
            if not ok:
                mismatches.append((pins, want, decision, case["command"]))
        assert check_command(case["command"], []).decision != "block"
    assert mismatches == []


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gets_a_verdict(text: str) -> None:
    for pins in PIN_SETS.values():
        verdict = check_command(text, pins)
        assert verdict.decision in ("allow", "approve", "block")
        assert verdict.risk in ("read", "write", "unknown")


shell_words = st.sampled_from(
    [
        "kill",
        "-9",
        "sudo",
        "sh",
        "-c",
        "'",
        '"',
        "$(",
        ")",
        "`",
        "|",
        ";",
        "&&",
        "<<EOF",
        "EOF",
        "\n",
        "psql",
        "DROP",
        "TABLE",
        "x",
        "ssh",
        "host",
        "xargs",
        "env",
        "\\",
        "$X",
        "{",
        "}",
        "(",
        "<<<",
        ">",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(shell_words, max_size=20).map(" ".join))
def test_shell_like_fragments_never_raise(text: str) -> None:
    verdict = check_command(text, PIN_SETS["en"])
    assert verdict.decision in ("allow", "approve", "block")


@pytest.mark.slow
def test_guard_benchmark_runs_on_a_sample() -> None:
    import subprocess
    import sys

    from tests.conftest import DATA

    bench = DATA.parents[1] / "bench" / "bench_guard.py"
    result = subprocess.run([sys.executable, str(bench), "--sample", "25"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "bypass          " in result.stdout and "100.0%" in result.stdout


CRASH_PROBE = """
from hypothesis import HealthCheck, given, settings, strategies as st
from opsassist.guard import PinRules, check_command
pins = [PinRules.from_text(1, "never kill -9 anything")]
pieces = st.sampled_from(["{", "}", "$(", "'", '"', "<<EOF\\n", "\\n", " ", "\\U000ed7b0", "\\U00031860", "kill"])
@settings(max_examples=3000, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.lists(pieces | st.characters(), max_size=30).map("".join))
def probe(text):
    check_command(text, pins)
probe()
"""


@pytest.mark.slow
def test_parser_crash_inputs_do_not_kill_the_process() -> None:
    # tree-sitter-bash 0.25.1 segfaults on `{` followed by a 4-byte UTF-8 character (upstream #337); a crash
    # would take the whole app down, so this runs in a child process where a segfault is a failed test.
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", CRASH_PROBE], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert check_command("echo '{\U00031860}'", PIN_SETS["en"]).decision == "allow"


GAPS = [json.loads(line) for line in (DATA / "guard_known_gaps.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("gap", GAPS, ids=[g["command"] for g in GAPS])
def test_known_gaps_are_still_held_for_a_person(gap: dict[str, str]) -> None:
    # A known gap never runs unasked: it is held for approval, not blocked as it ideally would be.
    assert check_command(gap["command"], PIN_SETS[gap["pins"]]).decision == gap["got"]


@pytest.mark.parametrize("gap", GAPS, ids=[g["command"] for g in GAPS])
@pytest.mark.xfail(strict=True, reason="a known gap of the guard (tests/data/guard_known_gaps.jsonl)")
def test_known_gaps_would_be_blocked(gap: dict[str, str]) -> None:
    # When this passes, the gap is closed: move the case to guard_cases.jsonl.
    assert check_command(gap["command"], PIN_SETS[gap["pins"]]).decision == gap["want"]
