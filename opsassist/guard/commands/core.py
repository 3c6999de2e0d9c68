"""What each command would do: the effects the rules are checked against, and how commands are dispatched.

A command line becomes a list of `Effect`s, one for every simple command that would run once wrappers are
unwrapped, and one for every file a redirect writes. An effect carries the risk class (read, write,
unknown) and the facts the rules need: SQL verbs, the signal sent, the service action and its targets, or
why it cannot be verified. Handlers for particular programs live beside this module, one file per domain,
and register themselves with `@handles`; what no handler knows is judged by the tables here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from opsassist.guard.shell import DYNAMIC, Invocation, parse_line
from opsassist.guard.sql import READ_VERBS, WRITE_VERBS, analyse_sql

Risk = Literal["read", "write", "unknown"]


ANY_TARGET = "*"
"""Target of an action that hits every service on a host (reboot, `docker compose restart`)."""


# Actions that take a running service down or cycle it; a pin against restarting a service blocks all of them.
DISRUPTIVE = frozenset({"restart", "stop", "kill", "delete", "scale", "rollout", "reboot", "upgrade", "drain"})


READ_COMMANDS = frozenset(
    (
        "ls ll la dir cat tac head tail less more most view grep egrep fgrep zgrep rg ag ack cut "
        "sort uniq wc tr column nl fold fmt paste join comm diff cmp colordiff expand unexpand rev "
        "strings od hexdump xxd base64 md5sum sha1sum sha256sum sha512sum cksum jq gron ps pstree "
        "top htop atop btop pgrep pidof pwdx df du free uptime w who whoami id groups hostname "
        "uname arch nproc lscpu lsblk lsmem lspci lsusb lsmod blkid findmnt date cal echo printf "
        "true false test [ [[ stat file which whereis type readlink realpath basename dirname pwd "
        "dig nslookup host ping ping6 traceroute tracepath mtr netstat lsof vmstat iostat mpstat "
        "pidstat sar free tload slabtop numastat getent env printenv locale tty sleep wait seq yes "
        "cd pushd popd dirs export set unset alias unalias local declare typeset readonly shift "
        "return exit break continue hash history jobs read let getconf ldd nm objdump readelf file "
        "ulimit umask times logname users last lastlog finger whois tree exa eza bat fd fzf "
        "watchman iotop iftop nethogs nload bmon ncdu tcpdump ngrep ssldump nmap arping ethtool "
        "iwconfig resolvectl host loginctl kubectx kubens k9s stern kubetail dmidecode sensors "
        "iostat zcat bzcat xzcat zless zmore systemd-analyze systemd-cgls systemd-cgtop : help man "
        "info apropos whatis tldr"
    ).split()
)


WRITE_COMMANDS = frozenset(
    (
        "rm rmdir unlink shred mv cp ln mkdir touch chmod chown chgrp chattr setfacl truncate dd "
        "tee install rsync scp sftp ftp mkfs mkswap swapon swapoff mount umount fdisk sfdisk gdisk "
        "parted wipefs lvremove lvcreate lvextend lvreduce vgremove vgcreate pvremove pvcreate "
        "cryptsetup useradd userdel usermod groupadd groupdel gpasswd passwd chpasswd chsh visudo "
        "at atrm batch apt apt-get aptitude dpkg yum dnf rpm apk zypper pacman brew snap flatpak "
        "pip pip3 pipx npm yarn pnpm gem cargo patch vim vi nvim nano emacs ed modprobe rmmod "
        "insmod depmod update-alternatives ntpdate hwclock ssh-keygen ssh-copy-id certbot "
        "restorecon semanage setenforce renice cpulimit fallocate mktemp ssh-add kexec wall write "
        "mesg logger"
    ).split()
)


@dataclass
class Effect:
    segment: str
    """The command as written, the part of the line that does this."""
    risk: Risk
    action: str
    """Short wording of what it does: 'SQL DELETE', 'sends SIGKILL', 'systemctl restart'."""
    via: tuple[str, ...] = ()
    argv: tuple[str, ...] = ()
    sql_verbs: tuple[str, ...] = ()
    signal: int | None = None
    """The signal it sends (None: it sends none); 0 only checks that a process exists."""
    signal_unknown: bool = False
    service_action: str | None = None
    targets: tuple[str, ...] = ()
    deletes: bool = False
    """Deletes files, objects or resources (rm, find -delete, kubectl delete, DEL ...)."""
    unverifiable: str | None = None
    suggestion: str | None = None
    sql: str | None = None
    """The SQL it runs, when it runs SQL passed on the command line."""


@dataclass
class Ctx:
    invocation: Invocation
    via: tuple[str, ...]
    depth: int = 0
    extra: list[Effect] = field(default_factory=list)

    def effect(self, argv: list[str], risk: Risk, action: str, **kwargs: object) -> Effect:
        return Effect(
            segment=self.invocation.text,
            risk=risk,
            action=action,
            via=self.via,
            argv=tuple(argv),
            **kwargs,  # type: ignore[arg-type]
        )

    def unverifiable(self, argv: list[str], reason: str, suggestion: str | None = None) -> list[Effect]:
        return [self.effect(argv, "unknown", "cannot be verified", unverifiable=reason, suggestion=suggestion)]

    def piped_input(self, argv: list[str], reader: str, what: str, advice: str | None = None) -> str | list[Effect]:
        """The text `reader` takes on stdin when the line itself shows it; otherwise the effects that say why
        it cannot be judged: from a terminal, an interactive session nobody checks (risk unknown); piped from
        something unseen, it cannot be verified."""
        stdin = self.invocation.stdin
        if stdin is None:
            return [self.effect(argv, "unknown", f"an interactive {reader} (what you type there is not checked)")]
        if stdin.text is None:
            return self.unverifiable(argv, f"{what} from {stdin.source} would reach {reader} unseen", advice)
        return stdin.text


MAX_DEPTH = 12


SQL_KEYWORDS = (WRITE_VERBS | READ_VERBS) - set(
    "USE HELP TABLE VALUES LOAD IMPORT CALL DO LOCK KILL SHUTDOWN FLUSH PURGE RESET COPY END".split()
)


def analyse_command(line: str) -> list[Effect]:
    """All effects of a command line, wrappers unwrapped and nested commands included."""
    return analyse_line(line, (), 0)


def analyse_line(line: str, via: tuple[str, ...], depth: int) -> list[Effect]:
    whole = Ctx(Invocation(argv=[], text=line, via=via), via, depth)  # for verdicts on the line as a whole
    if depth > MAX_DEPTH:
        return whole.unverifiable([], "commands are nested too deeply to analyse")
    parsed = parse_line(line, via)
    if parsed.error and _looks_like_sql(line):
        # SQL typed at a shell prompt (`SELECT count(*) FROM t` is not valid shell): judge it as SQL.
        invocation = Invocation(argv=line.split(), text=line, via=via)
        return sql_effects(
            Ctx(invocation, via, depth),
            invocation.argv,
            "SQL typed as a command",
            "postgres",
            [line],
            [],
            False,
        )
    if parsed.error:
        return whole.unverifiable(
            [], parsed.error, "check the quoting, or split it into simple commands and run them one by one"
        )
    effects: list[Effect] = []
    for invocation in parsed.invocations:
        effects += _invocation_effects(invocation, depth)
    return effects


# Variables whose value is a command some program will run (pagers, editors, ssh, hooks).
COMMAND_VARIABLES = frozenset(
    "PAGER MANPAGER GIT_PAGER SYSTEMD_PAGER EDITOR VISUAL GIT_EDITOR KUBE_EDITOR GIT_SSH_COMMAND GIT_SSH "
    "GIT_ASKPASS SSH_ASKPASS BROWSER PROMPT_COMMAND BASH_ENV ENV LESSOPEN LESSCLOSE".split()
)


LOADER_VARIABLES = frozenset("LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT PYTHONSTARTUP PERL5OPT NODE_OPTIONS".split())


def assignment_effects(ctx: Ctx, assignments: list[tuple[str, str]]) -> list[Effect]:
    effects: list[Effect] = []
    for name, value in assignments:
        if name in COMMAND_VARIABLES and value.strip():
            effects += recurse_shell(ctx, value, f"${name}", [f"{name}={value}"])
        elif name in LOADER_VARIABLES and value.strip():
            effects += ctx.unverifiable([f"{name}={value}"], f"{name} loads code into the command that is not seen")
    return effects


def _invocation_effects(invocation: Invocation, depth: int) -> list[Effect]:
    ctx = Ctx(invocation, invocation.via, depth)
    effects = [
        ctx.effect(invocation.argv, "write", f"writes file {target.replace(DYNAMIC, '…')}")
        for target in invocation.writes
    ]
    return effects + assignment_effects(ctx, invocation.assignments) + argv_effects(ctx, list(invocation.argv))


def program(argv: list[str]) -> str:
    """The program's name without its directory: `/usr/bin/kill` -> `kill`."""
    return argv[0].rsplit("/", 1)[-1]


def split_options(
    args: list[str], with_value: Iterable[str] = (), stop_at_positional: bool = True
) -> tuple[dict[str, str | None], list[str]]:
    """getopt-style: returns {option: value-or-None} and the arguments from the first positional on.

    Options named in `with_value` take the next argument (or `--opt=value`, `-oVALUE`).
    """
    takes = set(with_value)
    options: dict[str, str | None] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return options, args[i + 1 :]
        if arg.startswith("--") and len(arg) > 2:
            name, eq, value = arg.partition("=")
            if eq:
                options[name] = value
            elif name in takes and i + 1 < len(args):
                options[name] = args[i + 1]
                i += 1
            else:
                options[name] = None
        elif arg.startswith("-") and len(arg) > 1 and arg != "-":
            if arg in takes and i + 1 < len(args):
                options[arg] = args[i + 1]
                i += 1
            elif arg[:2] in takes and len(arg) > 2:
                options[arg[:2]] = arg[2:]
            else:
                for ch in arg[1:]:
                    options[f"-{ch}"] = None
                options.setdefault(arg, None)
        elif stop_at_positional:
            return options, args[i:]
        i += 1
    return options, []


def option(options: dict[str, str | None], *names: str) -> str | None:
    for name in names:
        if name in options and options[name] is not None:
            return options[name]
    return None


def has(options: dict[str, str | None], *names: str) -> bool:
    return any(name in options for name in names)


Handler = Callable[[Ctx, list[str]], list[Effect]]


HANDLERS: dict[str, Handler] = {}


def handles(*names: str) -> Callable[[Handler], Handler]:
    """Register a handler for command names; an argument may hold several, separated by spaces."""

    def register(fn: Handler) -> Handler:
        for group in names:
            for name in group.split():
                HANDLERS[name] = fn
        return fn

    return register


def _resolve(name: str) -> tuple[str | None, str | None]:
    """(command name, None) or (None, why it is a script whose content is not seen)."""
    if "/" in name:
        base = name.rstrip("/").rsplit("/", 1)[-1]
        if name.startswith(("/etc/init.d/", "/etc/rc.d/")):
            return f"init.d:{base}", None
        known = base in HANDLERS or base in READ_COMMANDS or base in WRITE_COMMANDS
        if name.startswith("/") and known:
            return base, None
        return None, f"runs {name}, a script or program whose content is not seen"
    if re.search(r"\.(sh|bash|py|pl|rb|js|php|ps1)$", name):
        return None, f"runs {name}, a script whose content is not seen"
    return name, None


def _looks_like_sql(text: str) -> bool:
    """`DELETE FROM users WHERE id = 1` typed at a prompt, as opposed to a program that happens to be called
    `delete`: the first word is an SQL verb and the text parses as SQL."""
    words = text.split(maxsplit=2)
    if len(words) < 2 or words[0].upper() not in SQL_KEYWORDS:
        return False
    report = analyse_sql(text)
    return report.unverifiable is None and (report.writes or report.reads)


def argv_effects(ctx: Ctx, argv: list[str]) -> list[Effect]:
    if not argv:
        return []
    name = argv[0]
    if DYNAMIC in name:
        return ctx.unverifiable(
            argv,
            "the command name is only known at run time",
            "print the command first (for example with echo) and check the printed command instead",
        )
    base, script_reason = _resolve(name)
    if base is None:
        return ctx.unverifiable(
            argv,
            script_reason or "unknown program",
            f"inspect it first (cat {name}) and run the commands you need directly",
        )
    if base.startswith("init.d:"):
        return HANDLERS["init.d"](ctx, argv)  # /etc/init.d/NAME ACTION, registered with the services
    handler = HANDLERS.get(base)
    if handler is not None:
        return handler(ctx, argv)
    if _looks_like_sql(ctx.invocation.text):
        # SQL typed at a shell prompt: judge it as SQL, it is plainly what was meant.
        return sql_effects(ctx, argv, "SQL typed as a command", "postgres", [ctx.invocation.text], [], False)
    if base in READ_COMMANDS:
        return [ctx.effect(argv, "read", base)]
    if base in WRITE_COMMANDS or base.startswith("mkfs."):
        deletes = base in ("rm", "rmdir", "unlink", "shred")
        return [ctx.effect(argv, "write", base, deletes=deletes)]
    return [ctx.effect(argv, "unknown", f"{base} (not a known read-only command)")]


def recurse(ctx: Ctx, argv: list[str], wrapper: str | None) -> list[Effect]:
    if not argv:
        return []
    via = ctx.via + ((wrapper,) if wrapper else ())
    inner = Ctx(replace(ctx.invocation, via=via), via, ctx.depth + 1)
    if ctx.depth + 1 > MAX_DEPTH:
        return inner.unverifiable(argv, "commands are nested too deeply to analyse")
    return argv_effects(inner, argv)


def recurse_shell(ctx: Ctx, code: str, wrapper: str, argv: list[str]) -> list[Effect]:
    if DYNAMIC in code:
        return ctx.unverifiable(
            argv,
            f"the shell code given to {wrapper} is only known at run time",
            'print the code first (echo "$VAR") and check that instead',
        )
    return analyse_line(code, ctx.via + (wrapper,), ctx.depth + 1)


def split_positionals(args: list[str], with_value: Iterable[str]) -> list[str]:
    takes = set(with_value)
    out, i = [], 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out += args[i + 1 :]
            break
        if arg.startswith("-") and arg != "-":
            if arg in takes and "=" not in arg:
                i += 1
        else:
            out.append(arg)
        i += 1
    return out


def sql_effects(
    ctx: Ctx,
    argv: list[str],
    client: str,
    dialect: str,
    sql_parts: list[str],
    files: list[str],
    reads_stdin: bool,
) -> list[Effect]:
    for path in files:
        if path != "-":
            return ctx.unverifiable(
                argv,
                f"{client} runs SQL from the file {path}, which is not seen",
                f"inspect it first (cat {path}) and run the statements you need directly",
            )
        reads_stdin = True
    if not sql_parts and reads_stdin:
        piped = ctx.piped_input(
            argv, f"{client} session", "SQL", "put the SQL on the command line (-c/-e) so it can be checked"
        )
        if isinstance(piped, list):
            return piped
        sql_parts = [piped]
    if not sql_parts:
        return [ctx.effect(argv, "read", client)]
    effects: list[Effect] = []
    for sql in sql_parts:
        if DYNAMIC in sql:
            return ctx.unverifiable(
                argv,
                f"the SQL given to {client} is only known at run time",
                "print the SQL first and check it, or write it out in full",
            )
        report = analyse_sql(sql, dialect)
        for code in report.shell:
            effects += analyse_line(code, ctx.via + (f"{client} shell escape",), ctx.depth + 1)
        if report.unverifiable:
            effects += ctx.unverifiable(argv, report.unverifiable)
            continue
        if report.writes:
            what = ", ".join([*report.verbs, *report.functions])
            effects.append(
                ctx.effect(
                    argv,
                    "write",
                    f"{client}: SQL {what}",
                    sql_verbs=tuple(report.verbs),
                    deletes="DELETE" in report.verbs,
                    sql=sql,
                )
            )
        elif report.reads:
            effects.append(ctx.effect(argv, "read", f"{client}: read-only SQL", sql=sql))
        else:
            effects.append(ctx.effect(argv, "read", f"{client}: session settings only", sql=sql))
    return effects


def collect(opts_in_order: list[tuple[str, str]], names: Iterable[str]) -> list[str]:
    wanted = set(names)
    return [value for name, value in opts_in_order if name in wanted]


def ordered_options(args: list[str], with_value: Iterable[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Like split_options, but keeps repeated options (psql -c A -c B) in order, and collects positionals."""
    takes = set(with_value)
    found: list[tuple[str, str]] = []
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            positional += args[i + 1 :]
            break
        if arg.startswith("--") and "=" in arg:
            name, _, value = arg.partition("=")
            found.append((name, value))
        elif arg in takes and i + 1 < len(args):
            found.append((arg, args[i + 1]))
            i += 1
        elif arg.startswith("-") and not arg.startswith("--") and arg[:2] in takes and len(arg) > 2:
            found.append((arg[:2], arg[2:]))
        elif arg.startswith("-") and arg != "-":
            found.append((arg, ""))
        else:
            positional.append(arg)
        i += 1
    return found, positional
