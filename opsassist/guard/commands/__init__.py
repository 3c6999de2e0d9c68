"""What commands would do, judged by meaning: the effects the guard's rules are checked against.

`core` holds the model (`Effect`), dispatch and option parsing; each domain module registers the handlers for
its programs when imported, which happens here.
"""

from __future__ import annotations

from opsassist.guard.commands import databases, network, processes, services, system, wrappers
from opsassist.guard.commands.core import ANY_TARGET, DISRUPTIVE, Effect, Risk, analyse_command, program
from opsassist.guard.commands.processes import signal_label

# The domain modules are imported for their @handles registrations.
_REGISTERED = (databases, network, processes, services, system, wrappers)

__all__ = [
    "ANY_TARGET",
    "DISRUPTIVE",
    "Effect",
    "Risk",
    "analyse_command",
    "program",
    "signal_label",
]
