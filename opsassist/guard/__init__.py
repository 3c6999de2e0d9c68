"""The pre-execution guard: shell and SQL analysis, rules derived from pins, risk classes, verdicts.

Pure: text in, verdict out. Nothing runs here.
"""

from __future__ import annotations

from opsassist.guard.check import PinRules, Verdict, Violation, check_command
from opsassist.guard.rules import Rule, derive_rules

__all__ = ["PinRules", "Rule", "Verdict", "Violation", "check_command", "derive_rules"]
