"""The verdict on one command line, under the rules of the active pins.

    block    a red line is crossed, or a red line is active and the command cannot be verified (fail closed)
    approve  nothing is crossed, but something writes or is not known to be read-only: a person decides
    allow    every part is known to be read-only and nothing is crossed

Every violation names the pin (id and text), the rule, the exact sub-command that crossed it, and a
one-line reason; where a safe alternative exists, it is offered only if it passes the guard itself.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from opsassist.guard.commands import ANY_TARGET, DISRUPTIVE, Effect, Risk, analyse_command, program, signal_label
from opsassist.guard.rules import ANY, Rule, derive_rules
from opsassist.guard.shell import DYNAMIC

Decision = Literal["allow", "approve", "block"]
# Names a wildcard target is tried against: `systemctl restart 'core-*'` may hit core-gateway.
_TARGET_SAMPLES = ("{words}", "{words}.service", "deploy/{words}", "{words}-7d9f8b6c4-x2x9q")


@dataclass(frozen=True)
class PinRules:
    """One active pin and the rules it yields."""

    pin_id: int
    text: str
    rules: tuple[Rule, ...]

    @classmethod
    def from_text(cls, pin_id: int, text: str, patterns: Sequence[str] = ()) -> PinRules:
        return cls(pin_id, text, tuple(derive_rules(text, list(patterns))))


@dataclass
class Violation:
    pin_id: int
    pin_text: str
    rule: Rule
    segment: str
    reason: str
    alternative: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "pin": {"id": self.pin_id, "text": self.pin_text},
            "rule": {"id": self.rule.id, "summary": self.rule.summary},
            "segment": self.segment,
            "reason": self.reason,
        }
        if self.alternative:
            data["alternative"] = self.alternative
        return data


@dataclass
class Verdict:
    command: str
    decision: Decision
    risk: Risk
    violations: list[Violation] = field(default_factory=list)
    effects: list[Effect] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Why a command needs approval: the parts that write or are not known to be read-only."""

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "command": self.command,
            "decision": self.decision,
            "risk": self.risk,
            "violations": [v.to_dict() for v in self.violations],
        }
        if self.notes:
            data["notes"] = self.notes
        return data


# Stands for "fail closed" in a violation: no rule of the pin was crossed, but the command could not be judged.
_UNVERIFIABLE = Rule(
    id="fail_closed", kind="fail_closed", summary="commands that cannot be verified while a red line is pinned"
)


def _target_hit(rule: Rule, targets: Sequence[str]) -> str | None:
    """The target this service rule covers: a matching name first, then a wildcard that could match, `*`, or a
    name only known at run time (fail closed)."""
    regex = rule.target_regex()
    if regex is None:
        return targets[0] if targets else None
    named = [t for t in targets if t != ANY_TARGET and DYNAMIC not in t]
    for target in named:
        if regex.search(target):
            return target
    words = "-".join(rule.target_words)
    for target in named:
        if any(ch in target for ch in "*?[") and any(
            fnmatch.fnmatch(sample.format(words=words), target) for sample in _TARGET_SAMPLES
        ):
            return target
    return next((t for t in targets if t == ANY_TARGET or DYNAMIC in t), None)


def _crossed(rule: Rule, effect: Effect) -> str | None:
    """The reason `effect` crosses `rule`, or None."""
    if rule.kind == "sql_verb" and rule.verb in effect.sql_verbs:
        return f"runs SQL {rule.verb}"
    if rule.kind == "sigkill":
        if effect.signal == 9:
            return f"sends SIGKILL (signal 9) to {_targets(effect)}"
        if effect.signal_unknown:
            return "sends a signal that is only known at run time; it could be SIGKILL"
    if rule.kind == "kill_any":
        if effect.signal not in (None, 0):
            return f"sends {signal_label(effect.signal)} to {_targets(effect)}"
        if effect.signal_unknown:
            return "sends a signal that is only known at run time"
    if rule.kind == "service" and effect.service_action in DISRUPTIVE:
        hit = _target_hit(rule, effect.targets)
        if hit is not None:
            if hit == ANY_TARGET:
                return f"{effect.action} affects every service it can reach, {_rule_target(rule)} included"
            if DYNAMIC in hit:
                return f"{effect.action} acts on a target only known at run time; it could be {_rule_target(rule)}"
            if effect.service_action == "kill":
                return f"{effect.action} to the processes of {hit}"
            return f"{effect.action} takes down or cycles {hit}"
    if rule.kind == "read_only":
        if effect.risk == "write":
            return f"writes: {effect.action}"
        if effect.risk == "unknown":
            return f"is not known to be read-only ({effect.action}); under a read-only pin only known reads run"
    if rule.kind == "delete" and effect.deletes:
        return f"deletes: {effect.action}"
    if rule.kind == "pattern":
        text = " ".join(effect.argv) or effect.segment
        if re.search(rule.pattern, text) or re.search(rule.pattern, effect.segment):
            return f"matches the pinned pattern /{rule.pattern}/"
    return None


def _rule_target(rule: Rule) -> str:
    return "any service" if rule.target_words == (ANY,) else "-".join(rule.target_words)


def _targets(effect: Effect) -> str:
    shown = [t.replace(DYNAMIC, "(pids found at run time)") for t in effect.targets]
    return ", ".join(shown) if shown else "its targets"


def _segment(effect: Effect) -> str:
    if effect.via:
        return f"{effect.segment}  (inside {' → '.join(effect.via)})"
    return effect.segment


def check_command(command: str, pins: Sequence[PinRules], *, suggest: bool = True) -> Verdict:
    """Judge one command line (it may span several lines: heredocs) under the active pins."""
    effects = analyse_command(command)
    violations: list[Violation] = []
    guarded = [pin for pin in pins if pin.rules]
    for effect in effects:
        if effect.unverifiable:
            if guarded:
                hint = f"; {effect.suggestion}" if effect.suggestion else ""
                for pin in guarded:
                    violations.append(
                        Violation(
                            pin.pin_id,
                            pin.text,
                            _UNVERIFIABLE,
                            _segment(effect),
                            f"could not be verified: {effect.unverifiable}{hint}",
                        )
                    )
            continue
        for pin in guarded:
            for rule in pin.rules:
                reason = _crossed(rule, effect)
                if reason:
                    violations.append(Violation(pin.pin_id, pin.text, rule, _segment(effect), reason))
    risk: Risk = "read"
    if any(e.risk == "write" for e in effects):
        risk = "write"
    elif any(e.risk == "unknown" for e in effects) or not effects:
        risk = "unknown" if effects else "read"
    notes = [f"{e.action}: {_segment(e)}" for e in effects if e.risk != "read" and not e.unverifiable]
    notes += [f"not verified: {e.unverifiable}" for e in effects if e.unverifiable and not guarded]
    # The specific red line first: "sends SIGKILL" says more than "writes" when both are crossed.
    violations.sort(key=lambda v: v.rule.kind == "read_only")
    decision: Decision = "block" if violations else ("allow" if risk == "read" else "approve")
    verdict = Verdict(command, decision, risk, violations, effects, notes)
    if suggest and violations:
        _suggest_alternatives(verdict, pins)
    return verdict


# -- safe alternatives ------------------------------------------------------------------------------------


def _alternative_for(effect: Effect, rule: Rule) -> str | None:
    argv = list(effect.argv)
    if not argv or any(DYNAMIC in a for a in argv[:1]):
        return None
    name = program(argv)
    if rule.kind in ("sigkill",) and name == "kill" and effect.targets:
        pids = [t for t in effect.targets if re.fullmatch(r"\d+", t)]
        if pids:
            return shlex.join(["kill", "-TERM", *pids])
    if name in ("pkill", "killall") and effect.targets:
        return shlex.join(["pgrep", "-a", effect.targets[0]])
    if name == "systemctl" and len(argv) >= 3:
        units = [a for a in argv[2:] if not a.startswith("-")]
        return shlex.join(["systemctl", "status", *units]) if units else None
    if name in ("service", "rc-service") and len(argv) >= 2:
        return shlex.join([name, argv[1], "status"])
    if name in ("kubectl", "oc") and effect.service_action in ("rollout", "scale") and effect.targets:
        target = next((t for t in effect.targets if "/" in t), None)
        if target:
            return shlex.join([name, "rollout", "status", target])
    if name in ("kubectl", "oc") and effect.service_action in ("delete", "kill"):
        pods = [t for t in effect.targets if t != ANY_TARGET]
        return shlex.join([name, "describe", "pod", *pods[:1]]) if pods else None
    if name in ("docker", "podman") and effect.targets and effect.targets[0] != ANY_TARGET:
        return shlex.join([name, "logs", "--tail", "200", effect.targets[0]])
    if effect.sql and rule.kind in ("sql_verb", "read_only", "delete"):
        preview = _preview_sql(effect.sql)
        if preview:
            return _with_sql(argv, effect.sql, preview)
    return None


def _preview_sql(sql: str) -> str | None:
    """`DELETE FROM t WHERE c` -> `SELECT count(*) FROM t WHERE c`: see what it would touch, touch nothing."""
    try:
        import sqlglot
        from sqlglot import exp

        tree = sqlglot.parse_one(sql)
    except Exception:  # noqa: BLE001 - any parse failure just means no alternative
        return None
    if isinstance(tree, exp.Delete | exp.Update):
        table = tree.find(exp.Table)
        where = tree.args.get("where")
        if table is None:
            return None
        query = exp.select("count(*)").from_(table.copy())
        if where is not None:
            query = query.where(where.this.copy())
        return query.sql()
    if isinstance(tree, exp.Drop | exp.TruncateTable):
        table = tree.find(exp.Table)
        return exp.select("count(*)").from_(table.copy()).sql() if table is not None else None
    return None


def _with_sql(argv: list[str], sql: str, replacement: str) -> str | None:
    if sql not in argv:
        return None
    return shlex.join([replacement if a == sql else a for a in argv])


def _suggest_alternatives(verdict: Verdict, pins: Sequence[PinRules]) -> None:
    effects_by_segment = {_segment(e): e for e in verdict.effects}
    for violation in verdict.violations:
        effect = effects_by_segment.get(violation.segment)
        if effect is None or violation.rule is _UNVERIFIABLE:
            continue
        candidate = _alternative_for(effect, violation.rule)
        if (
            candidate
            and candidate != verdict.command
            and check_command(candidate, pins, suggest=False).decision != "block"
        ):
            violation.alternative = candidate
