"""Signals and the programs that send them: kill, pkill, killall, and the read-only process tools.

Signals are read in every spelling (`-9`, `-KILL`, `-SIGKILL`, `-s KILL`, `-n 9`, `--signal=KILL`); `kill -0`
sends nothing.
"""

from __future__ import annotations

import re

from opsassist.guard.commands.core import (
    ANY_TARGET,
    Ctx,
    Effect,
    handles,
    option,
    program,
    split_options,
    split_positionals,
)
from opsassist.guard.shell import DYNAMIC

SIGNALS = {
    "HUP": 1,
    "INT": 2,
    "QUIT": 3,
    "ILL": 4,
    "TRAP": 5,
    "ABRT": 6,
    "IOT": 6,
    "BUS": 7,
    "FPE": 8,
    "KILL": 9,
    "USR1": 10,
    "SEGV": 11,
    "USR2": 12,
    "PIPE": 13,
    "ALRM": 14,
    "TERM": 15,
    "STKFLT": 16,
    "CHLD": 17,
    "CONT": 18,
    "STOP": 19,
    "TSTP": 20,
    "TTIN": 21,
    "TTOU": 22,
    "URG": 23,
    "XCPU": 24,
    "XFSZ": 25,
    "VTALRM": 26,
    "PROF": 27,
    "WINCH": 28,
    "IO": 29,
    "POLL": 29,
    "PWR": 30,
    "SYS": 31,
}


SIGNAL_NAMES = {number: name for name, number in reversed(SIGNALS.items())}


def signal_number(spec: str) -> int | None:
    """`9`, `KILL`, `SIGKILL`, `sigkill`, `RTMIN+2` -> a number; None if it is not a signal."""
    spec = spec.strip()
    if spec.isdigit():
        return int(spec)
    name = spec.upper()
    if name.startswith("SIG"):
        name = name[3:]
    if name in SIGNALS:
        return SIGNALS[name]
    match = re.fullmatch(r"RTMIN\+?(\d*)", name)
    if match:
        return 34 + int(match.group(1) or 0)
    return None


def signal_label(number: int) -> str:
    name = SIGNAL_NAMES.get(number)
    return f"SIG{name} ({number})" if name else f"signal {number}"


def signal_effect(ctx: Ctx, argv: list[str], spec: str | None, default: int, targets: list[str], what: str) -> Effect:
    if spec is not None and DYNAMIC in spec:
        return ctx.effect(
            argv,
            "write",
            f"{what} with a signal only known at run time",
            signal_unknown=True,
            targets=tuple(targets),
            service_action="kill",
        )
    number = default if spec is None else signal_number(spec)
    if number is None:
        return ctx.effect(
            argv,
            "unknown",
            f"{what} with an unknown signal {spec!r}",
            signal_unknown=True,
            targets=tuple(targets),
            service_action="kill",
        )
    if number == 0:
        return ctx.effect(
            argv,
            "read",
            f"{what} -0 (checks the process exists; sends no signal)",
            signal=0,
            targets=tuple(targets),
        )
    return ctx.effect(
        argv,
        "write",
        f"{what} sends {signal_label(number)}",
        signal=number,
        targets=tuple(targets),
        service_action="kill",
    )


def _pid_sources(ctx: Ctx) -> list[str]:
    """Names behind `kill $(pgrep NAME)` / `$(pidof NAME)`: the processes a kill with dynamic pids hits."""
    names: list[str] = []
    for inner in ctx.invocation.substituted:
        base = inner[0].rsplit("/", 1)[-1] if inner else ""
        if base in ("pgrep", "pidof", "pgrep.exe"):
            _, rest = split_options(inner[1:], ["-u", "-U", "-g", "-G", "-P", "-s", "-t", "--signal"])
            names += rest
        elif base in ("cat",) and len(inner) > 1:
            names += inner[1:]  # kill $(cat /run/core-gateway.pid)
        elif base in ("systemctl",) and "MainPID" in " ".join(inner):
            names += [a for a in inner[1:] if not a.startswith("-") and a != "show"]
        elif base in ("docker", "podman") and "inspect" in inner:
            names += [a for a in inner[1:] if not a.startswith("-") and a != "inspect"]
    return names


@handles("kill")
def _kill(ctx: Ctx, argv: list[str]) -> list[Effect]:
    spec: str | None = None
    targets: list[str] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            targets += args[i + 1 :]
            break
        if arg in ("-l", "-L", "--list", "--table") or arg.startswith("--list="):
            return [ctx.effect(argv, "read", "kill -l (lists signals)")]
        if arg in ("-s", "--signal", "-n") and i + 1 < len(args):
            spec = args[i + 1]
            i += 2
            continue
        if arg.startswith("--signal="):
            spec = arg.split("=", 1)[1]
        elif arg.startswith("-s") and len(arg) > 2 and spec is None and signal_number(arg[2:]) is not None:
            spec = arg[2:]
        elif arg.startswith("-") and len(arg) > 1 and spec is None and not targets:
            spec = arg[1:]
        elif arg in ("-a", "--all", "-p", "--pid", "-q", "--queue", "--verbose", "--timeout"):
            pass
        else:
            targets.append(arg)
        i += 1
    sources = _pid_sources(ctx)
    if sources:
        # The pids computed at run time are those of the named processes (`kill $(pgrep worker)`).
        targets = [t for t in targets if DYNAMIC not in t] + sources
    return [signal_effect(ctx, argv, spec, SIGNALS["TERM"], targets, "kill")]


def _dash_signal(args: list[str]) -> tuple[str | None, list[str]]:
    """`pkill -9`, `killall -KILL`, `-SIGKILL`: a leading dash-signal, as these tools accept."""
    for index, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and signal_number(arg[1:]) is not None:
            return arg[1:], args[:index] + args[index + 1 :]
        if DYNAMIC in arg and arg.startswith("-"):
            return arg[1:], args[:index] + args[index + 1 :]
    return None, args


@handles("pkill", "killall", "skill", "killall5")
def _pkill(ctx: Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    if "-l" in argv[1:] or "--list" in argv[1:]:
        return [ctx.effect(argv, "read", f"{name} -l (lists signals)")]
    spec, args = _dash_signal(argv[1:])
    value_opts = (
        "--signal -u -U -g -G -P -t --ns --nslist -F --pidfile -o -y --older-than --younger-than --user --uid --euid"
    ).split()
    value_opts.append("-s")  # pkill -s is a session id, killall -s a signal: either way it takes a value
    opts, _ = split_options(args, value_opts, stop_at_positional=False)
    if spec is None:
        spec = option(opts, "--signal") or (option(opts, "-s") if name == "killall" else None)
    positional = [a for a in split_positionals(args, value_opts)]
    targets = positional or ([ANY_TARGET] if name == "killall5" else [])
    return [signal_effect(ctx, argv, spec, SIGNALS["TERM"], targets, name)]


@handles("ss")
def _ss(ctx: Ctx, argv: list[str]) -> list[Effect]:
    if any(a in ("-K", "--kill") or re.fullmatch(r"-[a-zA-Z]*K[a-zA-Z]*", a) for a in argv[1:]):
        return [ctx.effect(argv, "write", "ss --kill (closes sockets)")]
    return [ctx.effect(argv, "read", "ss")]


@handles("pgrep", "pidof")
def _pgrep(ctx: Ctx, argv: list[str]) -> list[Effect]:
    return [ctx.effect(argv, "read", argv[0])]
