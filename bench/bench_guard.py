#!/usr/bin/env python3
"""The guard on the public corpora, under the seed's two red lines (issue 4's measurements).

Reports: our labelled cases (bypasses blocked, read-only investigation allowed); block recall on the public
suites' dangerous cases and false blocks on their benign ones; decisions and per-category block hits on the
tldr and NL2Bash corpora, with the time to check the whole 38,106-line tldr corpus in one process; and the
false-block rate on the tldr pages of read-only investigation tools. `--sample N` checks every Nth corpus
line (CI uses it). Run: `.venv/bin/python bench/bench_guard.py`.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from opsassist.guard import PinRules, check_command  # noqa: E402
from tests.guard_pins import EN, NARROW, ZH  # noqa: E402

CORPORA = ROOT / "tests" / "data" / "corpora"
# tldr pages of tools an SRE investigates with; their examples are relabelled "read-only" except those that
# redirect or write (listed by the benchmark as they are found, never silently dropped).
READ_ONLY_PAGES = [
    "grep",
    "tail",
    "head",
    "cat",
    "less",
    "ps",
    "top",
    "df",
    "du",
    "free",
    "journalctl",
    "dmesg",
    "kubectl-get",
    "kubectl-describe",
    "kubectl-logs",
    "kubectl-top",
    "ss",
    "netstat",
    "lsof",
    "dig",
    "ping",
    "jq",
    "stat",
    "wc",
    "uptime",
    "vmstat",
    "iostat",
    "pgrep",
    "awk",
    "uniq",
    "systemctl-status",
    "docker-ps",
    "docker-logs",
    "docker-inspect",
    "git-log",
    "git-status",
    "git-diff",
    "traceroute",
    "nslookup",
    "host",
    "w",
    "who",
    "ls",
    "tree",
    "zgrep",
    "rg",
    "mtr",
]


def pins(text: str) -> list[PinRules]:
    return [PinRules.from_text(1, text)]


def fill(template: str) -> str:
    """tldr placeholders: `{{[-a|--all]}}` -> `-a`, `{{path/to/file}}` -> `path/to/file`, `{{a|b}}` -> `a`."""
    template = re.sub(r"\{\{\[([^|\]]*)\|[^\]]*\]\}\}", r"\1", template)
    return re.sub(r"\{\{([^}]*)\}\}", lambda m: m.group(1).split("|")[0], template)


def pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "0/0"


def own_cases() -> bool:
    sets = {"en": pins(EN), "zh": pins(ZH), "narrow": pins(NARROW), "none": []}
    cases = [json.loads(line) for line in (ROOT / "tests" / "data" / "guard_cases.jsonl").read_text().splitlines()]
    totals: Counter[str] = Counter()
    good: Counter[str] = Counter()
    for case in cases:
        for pin, want in case["expect"].items():
            totals[case["category"]] += 1
            good[case["category"]] += check_command(case["command"], sets[pin]).decision == want
    print("Our labelled cases (tests/data/guard_cases.jsonl), decision as labelled:")
    for category in ("bypass", "true_positive", "false_positive", "edge"):
        print(f"  {category:<15} {pct(good[category], totals[category])}")
    return good == totals


def public_suites() -> None:
    cases = [json.loads(line) for line in (CORPORA / "guard_cases_public.jsonl").read_text().splitlines()]
    dangerous = [c["command"] for c in cases if c["label"] == "dangerous"]
    benign = [c["command"] for c in cases if c["label"] == "benign"]
    print("\nPublic suites (dcg, shellfirm, cc-safety-net), labels as published:")
    for name, text in (("English seed pin", EN), ("Chinese seed pin", ZH)):
        blocked = sum(check_command(c, pins(text)).decision == "block" for c in dangerous)
        print(f"  block recall, dangerous cases, {name}: {pct(blocked, len(dangerous))}")
    categories: Counter[str] = Counter()
    for command in benign:
        verdict = check_command(command, pins(NARROW))
        if verdict.decision == "block":
            categories[verdict.violations[0].rule.id] += 1
    print(
        f"  false blocks, benign cases, narrow pin (no read-only): {pct(sum(categories.values()), len(benign))}"
        f"  by rule: {dict(categories.most_common())}"
    )
    print("  (every difference is relabelled with its reason in tests/data/guard_relabels.jsonl)")


def corpus(name: str, commands: list[str]) -> float:
    print(f"\n{name}: {len(commands):,} commands")
    elapsed = 0.0
    for label, text in (("English seed pin", EN), ("narrow pin", NARROW)):
        decisions: Counter[str] = Counter()
        hits: Counter[str] = Counter()
        examples: dict[str, list[str]] = {}
        start = time.perf_counter()
        for command in commands:
            verdict = check_command(command, pins(text))
            decisions[verdict.decision] += 1
            for rule_id in dict.fromkeys(v.rule.id for v in verdict.violations):
                hits[rule_id] += 1
                examples.setdefault(rule_id, []).append(command)
        took = time.perf_counter() - start
        elapsed = max(elapsed, took)
        print(f"  {label}: {dict(decisions)} in {took:.2f} s")
        for rule_id, count in hits.most_common():
            shown = "; ".join(e[:60] for e in examples[rule_id][:3])
            print(f"    {rule_id:<24} {count:>6}  e.g. {shown}")
    return elapsed


def read_only_pages(step: int) -> None:
    rows = list(csv.reader((CORPORA / "tldr_read_only_pages.tsv").open(), delimiter="\t"))[1::step]
    selected = [
        (r[0].rsplit("/", 1)[-1][:-3], fill(r[2])) for r in rows if r[0].rsplit("/", 1)[-1][:-3] in READ_ONLY_PAGES
    ]
    blocked = [(page, cmd, check_command(cmd, pins(EN))) for page, cmd in selected]
    blocked = [b for b in blocked if b[2].decision == "block"]
    print(
        "\ntldr examples of read-only investigation tools, English seed pin: "
        f"blocked {pct(len(blocked), len(selected))}"
    )
    for page, command, verdict in blocked:
        print(f"    {page:<12} {command[:70]:<70} {verdict.violations[0].reason[:60]}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=1, help="check every Nth corpus line")
    args = parser.parse_args()
    ok = own_cases()
    public_suites()
    tldr = (CORPORA / "tldr_commands_filled.txt").read_text().splitlines()[:: args.sample]
    nl2bash = (CORPORA / "nl2bash.txt").read_text().splitlines()[:: args.sample]
    took = corpus("tldr (placeholders filled)", tldr)
    corpus("NL2Bash", nl2bash)
    read_only_pages(args.sample)
    target = 20.0 * len(tldr) / 38_106
    print(
        f"\nwhole tldr corpus in one process: {took:.2f} s (target < {target:.1f} s) "
        + ("OK" if took < target else "MISSED")
    )
    return 0 if ok and took < target else 1


if __name__ == "__main__":
    sys.exit(main())
