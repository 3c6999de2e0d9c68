"""What each command would do: the effects the rules are checked against.

A command line becomes a list of `Effect`s, one for every simple command that would run once wrappers are
unwrapped (`sudo`, `env`, `timeout`, `nohup`, `nice`, `xargs`, `watch`, `find -exec`, `sh -c`,
`ssh host '...'`, `kubectl exec ... --`, `docker exec`), and one for every file a redirect writes. An
effect carries the risk class (read, write, unknown), and the facts the rules need: SQL verbs, the signal
sent, the service action and its targets, or why it cannot be verified.

Knowledge is data: the tables below say which commands and subcommands only read. Everything not known
to read is a write or unknown, and so needs a person's approval.
"""

from __future__ import annotations

import re
import shlex
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
# Programs that run code they are given; with `-c`/`-e` code or a script, what runs is not analysed.
INTERPRETERS = frozenset(
    (
        "python python2 python3 perl ruby node nodejs php lua luajit Rscript pwsh powershell "
        "osascript deno bun tclsh wish irb ipython expect"
    ).split()
)
SHELLS = frozenset(["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "csh", "tcsh", "busybox"])


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
class _Ctx:
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


MAX_DEPTH = 12
SQL_KEYWORDS = (WRITE_VERBS | READ_VERBS) - set(
    "USE HELP TABLE VALUES LOAD IMPORT CALL DO LOCK KILL SHUTDOWN FLUSH PURGE RESET COPY END".split()
)


def analyse_command(line: str) -> list[Effect]:
    """All effects of a command line, wrappers unwrapped and nested commands included."""
    return _analyse_line(line, (), 0)


def _analyse_line(line: str, via: tuple[str, ...], depth: int) -> list[Effect]:
    if depth > MAX_DEPTH:
        return [
            Effect(
                segment=line,
                risk="unknown",
                action="cannot be verified",
                via=via,
                unverifiable="commands are nested too deeply to analyse",
            )
        ]
    parsed = parse_line(line, via)
    if parsed.error and _looks_like_sql(line):
        # SQL typed at a shell prompt (`SELECT count(*) FROM t` is not valid shell): judge it as SQL.
        invocation = Invocation(argv=line.split(), text=line, via=via)
        return _sql_effects(
            _Ctx(invocation, via, depth),
            invocation.argv,
            "SQL typed as a command",
            "postgres",
            [line],
            [],
            False,
        )
    if parsed.error:
        return [
            Effect(
                segment=line,
                risk="unknown",
                action="cannot be verified",
                via=via,
                unverifiable=parsed.error,
                suggestion="check the quoting, or split it into simple commands and run them one by one",
            )
        ]
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


def _assignment_effects(ctx: _Ctx, assignments: list[tuple[str, str]]) -> list[Effect]:
    effects: list[Effect] = []
    for name, value in assignments:
        if name in COMMAND_VARIABLES and value.strip():
            effects += _recurse_shell(ctx, value, f"${name}", [f"{name}={value}"])
        elif name in LOADER_VARIABLES and value.strip():
            effects += ctx.unverifiable([f"{name}={value}"], f"{name} loads code into the command that is not seen")
    return effects


def _invocation_effects(invocation: Invocation, depth: int) -> list[Effect]:
    ctx = _Ctx(invocation, invocation.via, depth)
    effects = [
        ctx.effect(invocation.argv, "write", f"writes file {target.replace(DYNAMIC, '…')}")
        for target in invocation.writes
    ]
    return effects + _assignment_effects(ctx, invocation.assignments) + _argv_effects(ctx, list(invocation.argv))


def program(argv: list[str]) -> str:
    """The program's name without its directory: `/usr/bin/kill` -> `kill`."""
    return argv[0].rsplit("/", 1)[-1]


# -- option parsing ---------------------------------------------------------------------------------------


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


# -- dispatch ---------------------------------------------------------------------------------------------

Handler = Callable[[_Ctx, list[str]], list[Effect]]
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


def _argv_effects(ctx: _Ctx, argv: list[str]) -> list[Effect]:
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
        return _service_like(ctx, argv, base.split(":", 1)[1], argv[1:2])
    handler = HANDLERS.get(base)
    if handler is not None:
        return handler(ctx, argv)
    if _looks_like_sql(ctx.invocation.text):
        # SQL typed at a shell prompt: judge it as SQL, it is plainly what was meant.
        return _sql_effects(ctx, argv, "SQL typed as a command", "postgres", [ctx.invocation.text], [], False)
    if base in READ_COMMANDS:
        return [ctx.effect(argv, "read", base)]
    if base in WRITE_COMMANDS or base.startswith("mkfs."):
        deletes = base in ("rm", "rmdir", "unlink", "shred")
        return [ctx.effect(argv, "write", base, deletes=deletes)]
    return [ctx.effect(argv, "unknown", f"{base} (not a known read-only command)")]


def _recurse(ctx: _Ctx, argv: list[str], wrapper: str | None) -> list[Effect]:
    if not argv:
        return []
    via = ctx.via + ((wrapper,) if wrapper else ())
    inner = _Ctx(replace(ctx.invocation, via=via), via, ctx.depth + 1)
    if ctx.depth + 1 > MAX_DEPTH:
        return inner.unverifiable(argv, "commands are nested too deeply to analyse")
    return _argv_effects(inner, argv)


def _recurse_shell(ctx: _Ctx, code: str, wrapper: str, argv: list[str]) -> list[Effect]:
    if DYNAMIC in code:
        return ctx.unverifiable(
            argv,
            f"the shell code given to {wrapper} is only known at run time",
            'print the code first (echo "$VAR") and check that instead',
        )
    return _analyse_line(code, ctx.via + (wrapper,), ctx.depth + 1)


# -- wrappers ---------------------------------------------------------------------------------------------


@handles("sudo", "doas")
def _sudo(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(
        argv[1:],
        "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --chdir --role --type".split(),
    )
    if not rest:
        if has(opts, "-i", "-s", "--login", "--shell"):
            return [ctx.effect(argv, "unknown", "an interactive root shell (what you type there is not checked)")]
        return [ctx.effect(argv, "read", f"{argv[0]} (no command)")]
    if has(opts, "-s", "--shell"):
        return _recurse_shell(ctx, " ".join(rest), argv[0], argv)
    return _recurse(ctx, rest, argv[0])


@handles("env")
def _env(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:], ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"])
    split = option(opts, "-S", "--split-string")
    assignments = []
    while rest and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", rest[0]):
        name, _, value = rest[0].partition("=")
        assignments.append((name, value))
        rest = rest[1:]
    effects = _assignment_effects(ctx, assignments)
    if split is not None:
        return effects + _recurse_shell(ctx, split + " " + shlex.join(rest), "env -S", argv)
    if not rest:
        return effects + [ctx.effect(argv, "read", "env (prints the environment)")]
    return effects + _recurse(ctx, rest, None)


@handles("timeout")
def _timeout(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    _, rest = split_options(argv[1:], ["-s", "--signal", "-k", "--kill-after"])
    return _recurse(ctx, rest[1:], None)


@handles("nohup", "time", "setsid", "unbuffer", "chronic", "caffeinate", "builtin", "exec", "nocache")
def _plain_wrapper(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    _, rest = split_options(argv[1:], ["-a"])
    if not rest:
        return [ctx.effect(argv, "read", argv[0])]
    return _recurse(ctx, rest, None)


@handles(
    "taskset chrt numactl unshare nsenter systemd-run strace ltrace cgexec firejail proxychains "
    "proxychains4 torsocks sg"
)
def _launcher(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    """Programs that start another program: judge the program they start."""
    name = program(argv)
    values = {
        "taskset": ["-p"],
        "chrt": [],
        "numactl": "-C -N -m -p -i --cpunodebind --membind --physcpubind --interleave --preferred".split(),
        "unshare": ["--map-user", "--map-group", "--propagation", "--setgroups", "-S", "-G", "-R", "-w"],
        "nsenter": ["-t", "--target", "-S", "-G", "-r", "-w", "--setuid", "--setgid", "--root", "--wd"],
        "systemd-run": (
            "-u --unit -p --property --description --slice -E --setenv -M -H --uid --gid "
            "--working-directory --on-calendar --on-active"
        ).split(),
        "strace": ["-o", "-p", "-e", "-s", "-u", "-E", "-O", "-a", "-b", "-I", "-P", "-X"],
        "ltrace": ["-o", "-p", "-e", "-s", "-u", "-n", "-a"],
        "cgexec": ["-g"],
        "firejail": [],
        "proxychains": ["-f"],
        "proxychains4": ["-f"],
        "torsocks": ["-u", "-p", "-a", "-P"],
        "sg": ["-c"],
    }[name]
    opts, rest = split_options(argv[1:], values)
    if name == "sg":
        code = option(opts, "-c")
        if code is None and len(rest) >= 2 and rest[1] == "-c":
            code = rest[2] if len(rest) > 2 else None
        return _recurse_shell(ctx, code, "sg", argv) if code else [ctx.effect(argv, "unknown", "sg")]
    if name in ("taskset", "chrt") and rest:
        rest = rest[1:]  # the CPU mask or the priority
    if name in ("strace", "ltrace") and option(opts, "-p") and not rest:
        return [ctx.effect(argv, "read", f"{name} -p (traces a running process)")]
    if not rest:
        return [ctx.effect(argv, "unknown", name)]
    return _recurse(ctx, rest, name)


@handles("script")
def _script(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, _ = split_options(
        argv[1:],
        ["-c", "--command", "-E", "--echo", "-T", "--log-timing", "-I", "-O", "-B", "-m", "--logging-format"],
        stop_at_positional=False,
    )
    code = option(opts, "-c", "--command")
    if code is None:
        return [ctx.effect(argv, "unknown", "script (records an interactive shell, not checked)")]
    return _recurse_shell(ctx, code, "script -c", argv)


@handles("command")
def _command(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:])
    if has(opts, "-v", "-V"):
        return [ctx.effect(argv, "read", "command -v (looks a command up)")]
    return _recurse(ctx, rest, None)


@handles("nice")
def _nice(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    args = argv[1:]
    if args and re.fullmatch(r"-\d+", args[0]):
        args = args[1:]
    _, rest = split_options(args, ["-n", "--adjustment"])
    return _recurse(ctx, rest, None) if rest else [ctx.effect(argv, "read", "nice")]


@handles("ionice")
def _ionice(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:], ["-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid"])
    if has(opts, "-p", "-P", "-u", "--pid"):
        return [ctx.effect(argv, "write", "ionice (changes a running process)")]
    return _recurse(ctx, rest, None) if rest else [ctx.effect(argv, "read", "ionice")]


@handles("stdbuf")
def _stdbuf(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    _, rest = split_options(argv[1:], ["-i", "-o", "-e", "--input", "--output", "--error"])
    return _recurse(ctx, rest, None)


@handles("flock")
def _flock(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    values = ["-w", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"]
    opts, _ = split_options(argv[1:], values, stop_at_positional=False)
    rest = split_positionals(argv[1:], values)
    code = option(opts, "-c", "--command")
    if code is not None:
        return _recurse_shell(ctx, code, "flock -c", argv)
    return _recurse(ctx, rest[1:], None) if len(rest) > 1 else [ctx.effect(argv, "write", "flock")]


@handles("chroot")
def _chroot(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    _, rest = split_options(argv[1:], ["--userspec", "--groups"])
    if len(rest) <= 1:
        return [ctx.effect(argv, "unknown", "an interactive shell in a chroot (not checked)")]
    return _recurse(ctx, rest[1:], "chroot")


@handles("su")
def _su(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, _ = split_options(argv[1:], ["-c", "--command", "-s", "--shell", "-g", "-G"], stop_at_positional=False)
    code = option(opts, "-c", "--command")
    if code is None:
        return [ctx.effect(argv, "unknown", "an interactive shell as another user (not checked)")]
    return _recurse_shell(ctx, code, "su -c", argv)


@handles("runuser")
def _runuser(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:], ["-u", "--user", "-g", "-G", "-c", "--command", "-s", "--shell"])
    code = option(opts, "-c", "--command")
    if code is not None:
        return _recurse_shell(ctx, code, "runuser -c", argv)
    if option(opts, "-u", "--user") is None and rest:
        rest = rest[1:]
    return _recurse(ctx, rest, "runuser") if rest else [ctx.effect(argv, "unknown", "runuser (interactive)")]


@handles("xargs")
def _xargs(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(
        argv[1:],
        (
            "-I -n -L -P -s -d -E -a -e --max-args --max-lines --max-procs --max-chars --delimiter "
            "--arg-file --replace --eof"
        ).split(),
    )
    if not rest:
        return [ctx.effect(argv, "read", "xargs echo")]
    # Input lines become arguments: appended, or put where the replacement string (-I {}) stands.
    replace_with = option(opts, "-I", "--replace") or ("{}" if has(opts, "-i") else None)
    if replace_with:
        return _recurse(ctx, [a.replace(replace_with, DYNAMIC) for a in rest], "xargs")
    return _recurse(ctx, [*rest, DYNAMIC], "xargs")


@handles("parallel")
def _parallel(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    args = argv[1:]
    cut = next((i for i, a in enumerate(args) if a in (":::", "::::", ":::+", "::::+")), len(args))
    _, command = split_options(
        args[:cut],
        (
            "-j --jobs -S --sshlogin --joblog --results -a --arg-file -d --delimiter -I --colsep -N -n "
            "--timeout --retries --delay --tmpdir --workdir"
        ).split(),
    )
    if not command:
        if cut < len(args):  # parallel ::: 'cmd1' 'cmd2': each argument is a command line
            effects: list[Effect] = []
            for line in args[cut + 1 :]:
                effects += _recurse_shell(ctx, line, "parallel", argv)
            return effects
        return ctx.unverifiable(argv, "parallel runs command lines read from its input, which are not seen")
    # parallel joins its arguments into one shell line (unless -q); judge both readings, so quoting cannot hide
    # a command either way.
    joined = _recurse_shell(ctx, " ".join(command), "parallel", argv)
    return joined + _recurse(ctx, [a.replace("{}", DYNAMIC) for a in command], "parallel")


@handles("watch")
def _watch(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:], ["-n", "--interval", "-q", "--equexit", "--differences-hint"])
    if has(opts, "-x", "--exec"):
        return _recurse(ctx, rest, "watch")
    return _recurse_shell(ctx, " ".join(rest), "watch", argv) if rest else [ctx.effect(argv, "read", "watch")]


@handles("trap")
def _trap(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    if len(argv) >= 3 and argv[1] not in ("-l", "-p", "-", ""):
        return _recurse_shell(ctx, argv[1], "trap", argv)
    return [ctx.effect(argv, "read", "trap")]


@handles("export", "declare", "typeset", "local", "readonly")
def _export(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    assignments = [tuple(a.split("=", 1)) for a in argv[1:] if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", a)]
    return _assignment_effects(ctx, assignments) or [ctx.effect(argv, "read", argv[0])]  # type: ignore[arg-type]


@handles("alias")
def _alias(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    """`alias k='kill -9'` decides what a later word runs: judge the alias body as if it ran."""
    effects: list[Effect] = []
    for definition in argv[1:]:
        name, eq, body = definition.partition("=")
        if eq and body.strip():
            effects += _recurse_shell(ctx, body, f"alias {name}", argv)
    return effects or [ctx.effect(argv, "read", "alias (lists aliases)")]


@handles("at", "batch")
def _at(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    """`at` runs its standard input later: judge that now."""
    opts, _ = split_options(argv[1:], ["-f", "-q", "-t", "-m"], stop_at_positional=False)
    if has(opts, "-l", "-c", "-r", "-d"):
        return [ctx.effect(argv, "write" if has(opts, "-r", "-d") else "read", "at (queue)")]
    if option(opts, "-f"):
        return ctx.unverifiable(argv, f"at runs the file {option(opts, '-f')}, whose content is not seen")
    stdin = ctx.invocation.stdin
    if stdin is None or stdin.text is None:
        source = stdin.source if stdin else "the terminal"
        return ctx.unverifiable(argv, f"at schedules commands from {source}, which are not seen")
    return [ctx.effect(argv, "write", "at (schedules a job)")] + _recurse_shell(ctx, stdin.text, "at", argv)


@handles("crontab")
def _crontab(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    """A new crontab runs its commands later: judge each entry's command now."""
    opts, rest = split_options(argv[1:], ["-u"], stop_at_positional=False)
    if has(opts, "-l"):
        return [ctx.effect(argv, "read", "crontab -l")]
    if has(opts, "-r", "-e", "-i"):
        return [ctx.effect(argv, "write", "crontab (changes scheduled jobs)", deletes=has(opts, "-r"))]
    stdin = ctx.invocation.stdin
    if rest and rest[0] != "-":
        return ctx.unverifiable(argv, f"crontab installs {rest[0]}, whose content is not seen")
    if stdin is None or stdin.text is None:
        return ctx.unverifiable(argv, "crontab installs entries that are not seen")
    effects = [ctx.effect(argv, "write", "crontab (replaces scheduled jobs)")]
    for line in stdin.text.splitlines():
        fields = line.split(None, 5)
        if line.strip().startswith("#") or "=" in (fields[0] if fields else "="):
            continue
        command = (
            line.split(None, 1)[1]
            if line.startswith("@") and len(fields) > 1
            else (fields[5] if len(fields) == 6 else "")
        )
        if command:
            effects += _recurse_shell(ctx, command, "crontab entry", argv)
    return effects


@handles("tmux", "screen")
def _terminal_multiplexer(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    """`tmux send-keys` / `screen -X stuff` type into another shell: judge what they type."""
    name = program(argv)
    args = argv[1:]
    if name == "tmux" and ("send-keys" in args or "send" in args):
        index = args.index("send-keys") if "send-keys" in args else args.index("send")
        keys = [
            a
            for a in split_positionals(args[index + 1 :], ["-t", "-N", "-X"])
            if not re.fullmatch(r"Enter|C-m|C-j|KPEnter|Escape|Space|Tab", a)
        ]
        return [ctx.effect(argv, "unknown", "tmux send-keys")] + _recurse_shell(ctx, " ".join(keys), "tmux", argv)
    if name == "screen" and "stuff" in args:
        typed = args[args.index("stuff") + 1] if args.index("stuff") + 1 < len(args) else ""
        return [ctx.effect(argv, "unknown", "screen stuff")] + _recurse_shell(
            ctx, typed.replace("\\n", "\n").replace("\\r", "\n"), "screen", argv
        )
    return [ctx.effect(argv, "unknown", name)]


@handles("eval")
def _eval(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    return ctx.unverifiable(
        argv,
        "eval runs text assembled at run time",
        "run the command it would build directly, so it can be checked",
    )


@handles("source", ".")
def _source(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    target = argv[1] if len(argv) > 1 else "a file"
    return ctx.unverifiable(
        argv,
        f"source runs {target}, whose content is not seen",
        f"inspect it first (cat {target}) and run what you need directly",
    )


# -- shells and interpreters -----------------------------------------------------------------------------


@handles(*SHELLS)
def _shell(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    args = argv[1:]
    if name == "busybox":
        return _recurse(ctx, args, "busybox") if args else [ctx.effect(argv, "read", "busybox")]
    code_flag = False
    positional: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if arg == "--":
            positional = args[i + 1 :]
            break
        if arg == "--command":
            code_flag = True
        elif arg.startswith(("-", "+")) and len(arg) > 1 and not arg.startswith("--"):
            code_flag = code_flag or "c" in arg[1:]
        elif not arg.startswith("--"):
            positional = args[i:]
            break
        i += 1
    wrapper = f"{name} -c"
    if code_flag:
        if not positional:
            return ctx.unverifiable(argv, f"{name} -c without code")
        return _recurse_shell(ctx, positional[0], wrapper, argv)
    if positional:
        return ctx.unverifiable(
            argv,
            f"{name} runs the script {positional[0]}, whose content is not seen",
            f"inspect it first (cat {positional[0]}) and run what you need directly",
        )
    stdin = ctx.invocation.stdin
    if stdin is None:
        return [ctx.effect(argv, "unknown", f"an interactive {name} (what you type there is not checked)")]
    if stdin.text is None:
        return ctx.unverifiable(
            argv,
            f"data from {stdin.source} is piped into {name} and would run unseen",
            "save it to a file, read it, and run the commands you need directly",
        )
    return _recurse_shell(ctx, stdin.text, f"{name} (stdin)", argv)


CODE_FLAGS = frozenset({"-c", "-e", "-E", "-r", "-p", "--eval", "--print", "--command", "-x"})


@handles(*INTERPRETERS)
def _interpreter(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    args = argv[1:]
    if args and all(a in ("--version", "-V", "-v", "--help", "-h") for a in args):
        return [ctx.effect(argv, "read", f"{name} --version")]
    if name.startswith("python") and args[:2] == ["-m", "json.tool"]:
        return [ctx.effect(argv, "read", "python -m json.tool")]
    flags = {a for a in args if a.startswith("-")} | {
        f"-{ch}" for a in args if re.fullmatch(r"-[a-zA-Z]+", a) for ch in a[1:]
    }
    positional = [a for a in args if not a.startswith("-")]
    runs_code = bool(flags & CODE_FLAGS) or any(
        re.search(r"\.(py|pl|rb|js|mjs|cjs|ts|php|lua|R|ps1)$", a) for a in positional
    )
    if runs_code or not args or ctx.invocation.stdin is not None:
        return ctx.unverifiable(
            argv,
            f"{name} code is not analysed, so what it does cannot be verified",
            "run the equivalent shell commands directly, or review the script first",
        )
    return [ctx.effect(argv, "unknown", f"{name} {' '.join(args[:2])}")]


@handles("awk", "gawk", "mawk", "nawk")
def _awk(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(
        argv[1:], ["-F", "-v", "-f", "-i", "--field-separator", "--assign", "--file", "--include"]
    )
    if has(opts, "-f", "--file"):
        return ctx.unverifiable(argv, "the awk program is in a file that is not seen")
    if option(opts, "-i", "--include") == "inplace":
        return [ctx.effect(argv, "write", "awk -i inplace (edits files)")]
    program = rest[0] if rest else ""
    if re.search(r"\bsystem\s*\(|\|\s*getline|print[f]?[^;{}]*(>|\|)", program):
        return ctx.unverifiable(
            argv, "the awk program runs commands or writes files", "run the commands it would run directly"
        )
    return [ctx.effect(argv, "read", "awk")]


@handles("sed", "gsed")
def _sed(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    if any(
        a == "--in-place" or a.startswith("--in-place=") or re.fullmatch(r"-[a-zA-Z]*i.*", a)
        for a in argv[1:]
        if a.startswith("-")
    ):
        return [ctx.effect(argv, "write", "sed -i (edits files in place)")]
    opts, rest = split_options(argv[1:], ["-e", "-f", "--expression", "--file", "-l"])
    scripts = [v for k, v in opts.items() if k in ("-e", "--expression") and v] + rest[:1]
    if any(re.search(r"(^|[;}\s])(w|W)\s+\S|(^|[;}\s])e(\s|$)", s) for s in scripts):
        return [ctx.effect(argv, "unknown", "sed script that writes files or runs commands")]
    return [ctx.effect(argv, "read", "sed")]


# -- processes and signals --------------------------------------------------------------------------------


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


def _signal_effect(ctx: _Ctx, argv: list[str], spec: str | None, default: int, targets: list[str], what: str) -> Effect:
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


def _pid_sources(ctx: _Ctx) -> list[str]:
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
def _kill(ctx: _Ctx, argv: list[str]) -> list[Effect]:
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
    return [_signal_effect(ctx, argv, spec, SIGNALS["TERM"], targets, "kill")]


def _dash_signal(args: list[str]) -> tuple[str | None, list[str]]:
    """`pkill -9`, `killall -KILL`, `-SIGKILL`: a leading dash-signal, as these tools accept."""
    for index, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and signal_number(arg[1:]) is not None:
            return arg[1:], args[:index] + args[index + 1 :]
        if DYNAMIC in arg and arg.startswith("-"):
            return arg[1:], args[:index] + args[index + 1 :]
    return None, args


@handles("pkill", "killall", "skill", "killall5")
def _pkill(ctx: _Ctx, argv: list[str]) -> list[Effect]:
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
    return [_signal_effect(ctx, argv, spec, SIGNALS["TERM"], targets, name)]


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


@handles("ss")
def _ss(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    if any(a in ("-K", "--kill") or re.fullmatch(r"-[a-zA-Z]*K[a-zA-Z]*", a) for a in argv[1:]):
        return [ctx.effect(argv, "write", "ss --kill (closes sockets)")]
    return [ctx.effect(argv, "read", "ss")]


@handles("pgrep", "pidof")
def _pgrep(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    return [ctx.effect(argv, "read", argv[0])]


# -- services ---------------------------------------------------------------------------------------------

SYSTEMCTL_READ = frozenset(
    (
        "status show cat list-units list-unit-files list-sockets list-timers list-jobs "
        "list-dependencies list-machines list-paths list-automounts is-active is-enabled is-failed "
        "is-system-running get-default show-environment help"
    ).split()
)
SYSTEMCTL_DISRUPT = {
    "restart": "restart",
    "try-restart": "restart",
    "reload-or-restart": "restart",
    "try-reload-or-restart": "restart",
    "condrestart": "restart",
    "force-reload": "restart",
    "stop": "stop",
    "kill": "kill",
    "isolate": "stop",
    "reboot": "reboot",
    "poweroff": "reboot",
    "halt": "reboot",
    "kexec": "reboot",
    "soft-reboot": "reboot",
    "emergency": "reboot",
    "rescue": "reboot",
}


@handles("systemctl")
def _systemctl(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    value_opts = (
        "-H --host -M --machine -t --type -p --property -s --signal --kill-whom --kill-value -n "
        "--lines -o --output --state --root --job-mode --what --timestamp --boot-loader-entry "
        "--message"
    ).split()
    opts, _ = split_options(argv[1:], value_opts, stop_at_positional=False)
    positional = split_positionals(argv[1:], value_opts)
    verb = positional[0] if positional else "list-units"
    units = positional[1:]
    if verb in SYSTEMCTL_READ or has(opts, "--version", "-h", "--help"):
        return [ctx.effect(argv, "read", f"systemctl {verb}")]
    if verb == "kill":
        return [_signal_effect(ctx, argv, option(opts, "-s", "--signal"), SIGNALS["TERM"], units, "systemctl kill")]
    action = SYSTEMCTL_DISRUPT.get(verb)
    if action is None and verb in ("disable", "mask") and has(opts, "--now"):
        action = "stop"
    if action == "reboot":
        units = [ANY_TARGET]
    if action:
        return [ctx.effect(argv, "write", f"systemctl {verb}", service_action=action, targets=tuple(units))]
    return [ctx.effect(argv, "write", f"systemctl {verb}", targets=tuple(units))]


def _service_like(ctx: _Ctx, argv: list[str], name: str, action_args: list[str]) -> list[Effect]:
    action = action_args[0] if action_args else ""
    if action in ("status", "--status-all", "") or name == "--status-all":
        return [ctx.effect(argv, "read", f"service {name} status")]
    disruptive = {
        "restart": "restart",
        "try-restart": "restart",
        "force-reload": "restart",
        "condrestart": "restart",
        "stop": "stop",
        "zap": "stop",
    }.get(action)
    return [ctx.effect(argv, "write", f"service {name} {action}", service_action=disruptive, targets=(name,))]


@handles("service", "rc-service", "invoke-rc.d")
def _service(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    _, rest = split_options(argv[1:])
    if not rest:
        return [ctx.effect(argv, "read", "service --status-all")]
    return _service_like(ctx, argv, rest[0], rest[1:2])


@handles("reboot", "shutdown", "halt", "poweroff", "telinit", "init")
def _reboot(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    if name == "shutdown" and "-c" in argv:
        return [ctx.effect(argv, "write", "shutdown -c (cancels a shutdown)")]
    if name in ("init", "telinit") and (len(argv) < 2 or argv[1] not in ("0", "6", "1", "s", "S")):
        return [ctx.effect(argv, "write", name)]
    return [
        ctx.effect(
            argv,
            "write",
            f"{name} (restarts every service on the host)",
            service_action="reboot",
            targets=(ANY_TARGET,),
        )
    ]


CONTAINER_READ = frozenset(
    "ps logs inspect images stats top port version info events history diff search df ls".split()
)


@handles("docker", "podman", "nerdctl", "docker-compose", "podman-compose")
def _docker(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    global_values = (
        "-H --host --context -c --config -l --log-level -f --file -p --project-name "
        "--project-directory --env-file --profile"
    ).split()
    _, rest = split_options(argv[1:], global_values)
    compose = name.endswith("-compose")
    if rest and rest[0] == "compose":
        compose = True
        _, rest = split_options(rest[1:], global_values)
    if not rest:
        return [ctx.effect(argv, "read", name)]
    verb = rest[0]
    if verb in ("container", "image", "network", "volume", "system", "node", "service") and len(rest) > 1:
        group, verb, rest = verb, rest[1], rest[1:]
        if group == "system" and verb in ("df", "info", "events"):
            return [ctx.effect(argv, "read", f"{name} system {verb}")]
    exec_values = ["-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys", "--index"]
    args = rest[1:]
    if verb == "exec":
        opts, inner = split_options(args, exec_values)
        if len(inner) < 2:
            return [ctx.effect(argv, "unknown", f"{name} exec")]
        return _recurse(ctx, inner[1:], f"{name} exec {inner[0]}")
    if verb in CONTAINER_READ or verb in ("config", "images", "top") and compose:
        return [ctx.effect(argv, "read", f"{name} {verb}")]
    signal_opts = ["-s", "--signal", "-t", "--time", "--timeout"]
    targets = split_positionals(args, signal_opts) or ([ANY_TARGET] if compose else [])
    if verb == "kill":
        opts, _ = split_options(args, signal_opts, stop_at_positional=False)
        return [_signal_effect(ctx, argv, option(opts, "-s", "--signal"), SIGNALS["KILL"], targets, f"{name} kill")]
    disruptive = {
        "restart": "restart",
        "stop": "stop",
        "rm": "delete",
        "down": "stop",
        "pause": "stop",
        "rmi": None,
        "up": "restart",
        "create": None,
    }.get(verb)
    deletes = verb in ("rm", "rmi", "prune", "down")
    return [
        ctx.effect(
            argv,
            "write",
            f"{name} {verb}",
            service_action=disruptive,
            targets=tuple(targets),
            deletes=deletes,
        )
    ]


KUBECTL_READ = frozenset(
    (
        "get describe logs top explain api-resources api-versions version cluster-info events diff "
        "wait completion plugin kustomize options"
    ).split()
)
KUBECTL_GLOBAL_VALUES = (
    "-n --namespace --context --cluster --user -s --server --kubeconfig --token --as --as-group "
    "--request-timeout -v --v --cache-dir --certificate-authority --client-certificate "
    "--client-key --tls-server-name --profile --log-file"
).split()
KUBECTL_VALUES = [
    *KUBECTL_GLOBAL_VALUES,
    "-l",
    "--selector",
    "-o",
    "--output",
    "-c",
    "--container",
    "-f",
    "--filename",
    "--replicas",
    "--grace-period",
    "--timeout",
    "--field-selector",
    "--since",
    "--tail",
    "--type",
    "-p",
    "--patch",
    "--image",
    "--to-revision",
    "--current-replicas",
    "-k",
    "--kustomize",
    "--sort-by",
    "--for",
    "--max-log-requests",
    "--template",
    "--since-time",
    "--limit-bytes",
    "-L",
    "--label-columns",
]


@handles("kubectl", "oc", "k", "microk8s.kubectl")
def _kubectl(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:], KUBECTL_GLOBAL_VALUES)
    if not rest:
        return [ctx.effect(argv, "read", "kubectl")]
    verb, args = rest[0], rest[1:]
    if verb == "exec":
        exec_opts, inner = split_options(args, KUBECTL_VALUES)
        if "--" in args:
            inner_argv = args[args.index("--") + 1 :]
            pod = [a for a in split_positionals(args[: args.index("--")], KUBECTL_VALUES)]
            target = pod[0] if pod else "a pod"
        else:
            target = inner[0] if inner else "a pod"
            inner_argv = inner[1:]
        if not inner_argv:
            return [ctx.effect(argv, "unknown", "kubectl exec without a command")]
        return _recurse(ctx, inner_argv, f"kubectl exec {target}")
    all_opts, _ = split_options(args, KUBECTL_VALUES, stop_at_positional=False)
    all_opts.update(opts)
    positional = split_positionals(args, KUBECTL_VALUES)
    namespace = option(all_opts, "-n", "--namespace")
    if verb in KUBECTL_READ:
        return [ctx.effect(argv, "read", f"kubectl {verb}")]
    if option(all_opts, "--dry-run") in ("client", "server") or (
        has(all_opts, "--dry-run") and all_opts["--dry-run"] is None
    ):
        return [ctx.effect(argv, "read", f"kubectl {verb} --dry-run (changes nothing)")]
    if (
        verb == "config"
        and positional
        and positional[0] in ("view", "get-contexts", "current-context", "get-clusters", "get-users")
    ):
        return [ctx.effect(argv, "read", f"kubectl config {positional[0]}")]
    if verb == "auth" and positional and positional[0] in ("can-i", "whoami"):
        return [ctx.effect(argv, "read", f"kubectl auth {positional[0]}")]
    if verb in ("port-forward", "proxy", "attach", "cp", "debug", "run"):
        return [ctx.effect(argv, "unknown" if verb in ("port-forward", "proxy") else "write", f"kubectl {verb}")]
    if verb == "rollout":
        sub = positional[0] if positional else ""
        if sub in ("status", "history"):
            return [ctx.effect(argv, "read", f"kubectl rollout {sub}")]
        targets = _kube_targets(positional[1:], all_opts, namespace)
        return [ctx.effect(argv, "write", f"kubectl rollout {sub}", service_action="rollout", targets=tuple(targets))]
    targets = _kube_targets(positional, all_opts, namespace)
    if verb == "delete":
        effects = [
            ctx.effect(argv, "write", "kubectl delete", service_action="delete", targets=tuple(targets), deletes=True)
        ]
        if has(all_opts, "--force") and option(all_opts, "--grace-period") in ("0", "1"):
            effects.append(
                ctx.effect(
                    argv,
                    "write",
                    "kubectl delete --force --grace-period=0 (kills at once)",
                    signal=SIGNALS["KILL"],
                    targets=tuple(targets),
                    service_action="kill",
                )
            )
        return effects
    if verb == "scale":
        return [ctx.effect(argv, "write", "kubectl scale", service_action="scale", targets=tuple(targets))]
    if verb in ("set", "patch", "edit", "replace", "apply", "label", "annotate", "autoscale"):
        # Changing a workload's spec rolls its pods: that is a restart.
        return [
            ctx.effect(
                argv,
                "write",
                f"kubectl {verb}",
                service_action="rollout" if verb in ("set", "patch", "edit", "replace") else None,
                targets=tuple(targets),
            )
        ]
    if verb in ("drain", "cordon", "uncordon", "taint"):
        return [
            ctx.effect(
                argv,
                "write",
                f"kubectl {verb}",
                service_action="drain" if verb == "drain" else None,
                targets=(ANY_TARGET,) if verb == "drain" else tuple(targets),
            )
        ]
    return [ctx.effect(argv, "write", f"kubectl {verb}", targets=tuple(targets))]


def _kube_targets(positional: list[str], opts: dict[str, str | None], namespace: str | None) -> list[str]:
    targets = [
        p
        for p in positional
        if p
        not in tuple(
            (
                "pod pods po deploy deployment deployments sts statefulset ds daemonset svc service rs "
                "replicaset job cronjob node nodes"
            ).split()
        )
    ]
    selector = option(opts, "-l", "--selector")
    if selector:
        targets.append(selector)
    if has(opts, "--all", "-A", "--all-namespaces") or not targets:
        targets.append(namespace or ANY_TARGET)
    return targets


@handles("helm")
def _helm(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    values = (
        "-n --namespace --kube-context --kubeconfig -f --values --set --version -o --output --revision --timeout"
    ).split()
    positional = split_positionals(argv[1:], values)
    verb = positional[0] if positional else ""
    if verb in (
        "list",
        "ls",
        "status",
        "get",
        "history",
        "hist",
        "show",
        "inspect",
        "template",
        "search",
        "version",
        "env",
        "lint",
        "diff",
        "verify",
        "",
    ) or positional[:2] == ["repo", "list"]:
        return [ctx.effect(argv, "read", f"helm {verb}")]
    if verb in ("upgrade", "rollback", "uninstall", "delete", "del", "un"):
        return [
            ctx.effect(
                argv,
                "write",
                f"helm {verb}",
                service_action="upgrade",
                targets=tuple(positional[1:2]),
                deletes=verb in ("uninstall", "delete", "del", "un"),
            )
        ]
    return [ctx.effect(argv, "write", f"helm {verb}", targets=tuple(positional[1:2]))]


@handles("supervisorctl", "pm2")
def _process_manager(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    positional = split_positionals(argv[1:], ["-c", "--configuration", "-s", "--serverurl", "-u", "-p"])
    verb = positional[0] if positional else "status"
    if verb in tuple("status avail list ls jlist logs tail show describe monit pid version help".split()):
        return [ctx.effect(argv, "read", f"{name} {verb}")]
    targets = [ANY_TARGET if t == "all" else t for t in positional[1:]] or [ANY_TARGET]
    disruptive = {
        "restart": "restart",
        "reload": "restart",
        "stop": "stop",
        "signal": "kill",
        "delete": "stop",
        "kill": "stop",
        "shutdown": "stop",
    }.get(verb)
    return [ctx.effect(argv, "write", f"{name} {verb}", service_action=disruptive, targets=tuple(targets))]


@handles("nginx", "apachectl", "apache2ctl", "httpd", "haproxy", "envoy", "caddy", "traefik")
def _server_binary(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    args = argv[1:]
    if any(
        a in tuple("-t -T -v -V -c configtest -S status version validate --version -h --help fullstatus -tt".split())
        for a in args
    ) and not any(a in ("-s", "restart", "stop", "graceful") for a in args):
        return [ctx.effect(argv, "read", f"{name} (config test or status)")]
    signal = args[args.index("-s") + 1] if "-s" in args and args.index("-s") + 1 < len(args) else None
    verb = signal or next(
        (a for a in args if a in ("restart", "stop", "graceful", "graceful-stop", "start", "reload")), "start"
    )
    disruptive = {
        "stop": "stop",
        "quit": "stop",
        "restart": "restart",
        "graceful": "restart",
        "graceful-stop": "stop",
    }.get(verb)
    return [ctx.effect(argv, "write", f"{name} {verb}", service_action=disruptive, targets=(name,))]


# -- databases --------------------------------------------------------------------------------------------


def _sql_effects(
    ctx: _Ctx,
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
        stdin = ctx.invocation.stdin
        if stdin is None:
            return [ctx.effect(argv, "unknown", f"an interactive {client} session (what you type is not checked)")]
        if stdin.text is None:
            return ctx.unverifiable(
                argv,
                f"SQL from {stdin.source} is piped into {client} and would run unseen",
                "put the SQL on the command line (-c/-e) so it can be checked",
            )
        sql_parts = [stdin.text]
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
            effects += _analyse_line(code, ctx.via + (f"{client} shell escape",), ctx.depth + 1)
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


def _collect(opts_in_order: list[tuple[str, str]], names: Iterable[str]) -> list[str]:
    wanted = set(names)
    return [value for name, value in opts_in_order if name in wanted]


def _ordered_options(args: list[str], with_value: Iterable[str]) -> tuple[list[tuple[str, str]], list[str]]:
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


@handles("psql", "pgcli")
def _psql(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    values = (
        "-c --command -f --file -h --host -p --port -U --username -d --dbname -v --set --variable "
        "-o --output -L --log-file -P --pset -T --table-attr -F --field-separator -R "
        "--record-separator"
    ).split()
    found, _ = _ordered_options(argv[1:], values)
    names = {n for n, _ in found}
    if names & {"-l", "--list", "-V", "--version", "--help", "-?"}:
        return [ctx.effect(argv, "read", "psql --list/--version")]
    effects = _sql_effects(
        ctx,
        argv,
        "psql",
        "postgres",
        _collect(found, ["-c", "--command"]),
        _collect(found, ["-f", "--file"]),
        reads_stdin=True,
    )
    out = _collect(found, ["-o", "--output"])
    return effects + [ctx.effect(argv, "write", f"writes file {path}") for path in out if path != "/dev/null"]


@handles("mysql", "mariadb", "mycli")
def _mysql(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    values = (
        "-e --execute -h --host -P --port -u --user -D --database -S --socket --defaults-file "
        "--defaults-extra-file --login-path --ssl-mode --protocol --init-command"
    ).split()
    found, _ = _ordered_options(argv[1:], values)
    sql = _collect(found, ["-e", "--execute", "--init-command"])
    for statement in sql:
        if re.search(r"(^|;)\s*(source|\\\.)\s", statement, re.IGNORECASE):
            return ctx.unverifiable(argv, "mysql `source` runs SQL from a file that is not seen")
    return _sql_effects(ctx, argv, "mysql", "mysql", sql, [], reads_stdin=True)


@handles("sqlite3", "sqlite", "duckdb")
def _sqlite(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    values = ("-cmd -init -separator -nullvalue -newline -vfs -c -s -mmap -pagecache -lookaside -heap -maxsize").split()
    found, positional = _ordered_options(argv[1:], values)
    if _collect(found, ["-init"]):
        return ctx.unverifiable(argv, f"{name} -init runs a file that is not seen")
    sql = _collect(found, ["-cmd", "-c", "-s"]) + positional[1:]
    return _sql_effects(
        ctx, argv, name, "sqlite" if name != "duckdb" else "duckdb", sql, [], reads_stdin=not positional[1:]
    )


@handles("clickhouse-client", "clickhouse")
def _clickhouse(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    args = argv[1:]
    if program(argv) == "clickhouse":
        if not args or args[0] not in ("client", "local"):
            return [ctx.effect(argv, "unknown", "clickhouse")]
        args = args[1:]
    values = (
        "--query -q --host -h --port --user -u --password --database -d --format -f --queries-file --config-file -C"
    ).split()
    found, _ = _ordered_options(args, values)
    return _sql_effects(
        ctx,
        argv,
        "clickhouse-client",
        "clickhouse",
        _collect(found, ["--query", "-q"]),
        _collect(found, ["--queries-file"]),
        reads_stdin=True,
    )


@handles("cqlsh", "cockroach", "trino", "presto", "snowsql", "usql", "bq")
def _other_sql(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    args = argv[1:]
    if name == "cockroach":
        if not args or args[0] != "sql":
            return [ctx.effect(argv, "unknown", "cockroach")]
        args = args[1:]
    if name == "bq":
        if not args or args[0] != "query":
            return [
                ctx.effect(
                    argv,
                    "unknown" if args and args[0] not in ("ls", "show", "head") else "read",
                    f"bq {args[0] if args else ''}",
                )
            ]
        found, positional = _ordered_options(args[1:], ["--project_id", "--location", "--format"])
        return _sql_effects(ctx, argv, "bq", "bigquery", positional, [], reads_stdin=not positional)
    found, _ = _ordered_options(
        args,
        "-e --execute -f --file -q --query --url --host -u --user -c --command".split(),
    )
    return _sql_effects(
        ctx,
        argv,
        name,
        "postgres",
        _collect(found, ["-e", "--execute", "-q", "--query", "-c", "--command"]),
        _collect(found, ["-f", "--file"]),
        reads_stdin=True,
    )


MONGO_PATTERNS = [
    (re.compile(r"\.(drop|dropDatabase|dropCollection|dropIndex(es)?)\s*\("), "DROP"),
    (re.compile(r"\.(deleteOne|deleteMany|remove|findOneAndDelete|findAndRemove)\s*\("), "DELETE"),
    (
        re.compile(
            r"\.(updateOne|updateMany|update|replaceOne|findOneAndUpdate|findOneAndReplace|findAndModify|"
            r"bulkWrite)\s*\("
        ),
        "UPDATE",
    ),
    (re.compile(r"\.(insertOne|insertMany|insert|save)\s*\(|\$out|\$merge"), "INSERT"),
    (re.compile(r"\.(createCollection|createIndex|createIndexes|createUser|createRole)\s*\("), "CREATE"),
    (re.compile(r"\.(renameCollection)\s*\(|collMod"), "ALTER"),
    (re.compile(r"shutdownServer|fsyncLock|killOp|adminCommand|runCommand|eval\s*\("), "COMMAND"),
]


@handles("mongosh", "mongo")
def _mongo(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    found, positional = _ordered_options(
        argv[1:],
        "--eval --host --port -u --username -p --password --authenticationDatabase -f --file".split(),
    )
    scripts = [p for p in positional if p.endswith(".js")] + _collect(found, ["-f", "--file"])
    if scripts:
        return ctx.unverifiable(argv, f"mongosh runs {scripts[0]}, whose content is not seen")
    code = " ".join(_collect(found, ["--eval"]))
    if not code:
        stdin = ctx.invocation.stdin
        if stdin is None:
            return [ctx.effect(argv, "unknown", "an interactive mongosh session (not checked)")]
        if stdin.text is None:
            return ctx.unverifiable(argv, f"code from {stdin.source} is piped into mongosh and would run unseen")
        code = stdin.text
    if DYNAMIC in code:
        return ctx.unverifiable(argv, "the mongosh code is only known at run time")
    verbs = [verb for pattern, verb in MONGO_PATTERNS if pattern.search(code)]
    if "COMMAND" in verbs:
        return ctx.unverifiable(argv, "mongosh runs an admin command that is not analysed")
    if verbs:
        return [
            ctx.effect(
                argv,
                "write",
                f"mongosh: {', '.join(verbs)}",
                sql_verbs=tuple(verbs),
                deletes="DELETE" in verbs,
            )
        ]
    return [ctx.effect(argv, "read", "mongosh: read-only")]


REDIS_READ = frozenset(
    (
        "GET MGET STRLEN GETRANGE EXISTS TYPE TTL PTTL KEYS SCAN SSCAN HSCAN ZSCAN HGET HMGET "
        "HGETALL HKEYS HVALS HLEN HEXISTS LRANGE LLEN LINDEX SMEMBERS SISMEMBER SCARD SRANDMEMBER "
        "ZRANGE ZREVRANGE ZRANGEBYSCORE ZSCORE ZCARD ZCOUNT ZRANK XRANGE XREVRANGE XLEN XINFO "
        "XPENDING INFO PING ECHO DBSIZE TIME LASTSAVE ROLE MONITOR SLOWLOG LATENCY MEMORY OBJECT "
        "DUMP CLIENT CONFIG CLUSTER COMMAND PUBSUB BITCOUNT GETBIT PFCOUNT GEOPOS GEODIST "
        "GEORADIUS_RO GEOSEARCH RANDOMKEY AUTH SELECT HELLO"
    ).split()
)
REDIS_WRITE_SUBCOMMANDS = {
    "CLIENT": ("KILL", "PAUSE", "SETNAME"),
    "CONFIG": ("SET", "REWRITE", "RESETSTAT"),
    "SLOWLOG": ("RESET",),
    "CLUSTER": ("FAILOVER", "RESET", "FORGET", "MEET", "ADDSLOTS", "DELSLOTS", "SETSLOT", "REPLICATE"),
    "MEMORY": ("PURGE",),
    "LATENCY": ("RESET",),
}


@handles("redis-cli", "valkey-cli", "keydb-cli")
def _redis(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    values = "-h -p -a -n -u -s -r -i --user --pass --tls --cacert --cert --key -d --eval".split()
    opts, rest = split_options(argv[1:], values)
    if option(opts, "--eval"):
        return ctx.unverifiable(argv, "a redis Lua script is not analysed")
    commands = [rest] if rest else []
    if not rest:
        stdin = ctx.invocation.stdin
        if stdin is None:
            return [ctx.effect(argv, "unknown", "an interactive redis-cli session (not checked)")]
        if stdin.text is None:
            return ctx.unverifiable(argv, f"commands from {stdin.source} are piped into redis-cli unseen")
        commands = [shlex.split(line, posix=True) for line in stdin.text.splitlines() if line.strip()]
    effects = []
    for command in commands:
        name = command[0].upper()
        sub = command[1].upper() if len(command) > 1 else ""
        if DYNAMIC in name:
            return ctx.unverifiable(argv, "the redis command is only known at run time")
        if name in REDIS_READ and sub not in REDIS_WRITE_SUBCOMMANDS.get(name, ()):
            effects.append(ctx.effect(argv, "read", f"redis {name}"))
        else:
            deletes = name in ("DEL", "UNLINK", "FLUSHALL", "FLUSHDB", "HDEL", "SREM", "ZREM", "LREM", "XDEL")
            effects.append(ctx.effect(argv, "write", f"redis {name} (cache write)", deletes=deletes))
    return effects


@handles("pg_dump pg_dumpall mysqldump mariadb-dump pg_isready pg_controldata pg_config mongodump pg_basebackup")
def _db_read_tools(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    found, _ = _ordered_options(argv[1:], ["-f", "--file", "-D", "--pgdata", "-o", "--out", "-r", "--result-file"])
    outputs = _collect(found, ["-f", "--file", "-o", "--out", "-r", "--result-file", "-D", "--pgdata"])
    name = program(argv)
    return [ctx.effect(argv, "read", name)] + [ctx.effect(argv, "write", f"writes file {p}") for p in outputs]


@handles(
    "dropdb dropuser createdb createuser vacuumdb reindexdb clusterdb pg_restore mysqladmin mongorestore "
    "pg_ctl pg_ctlcluster"
)
def _db_admin_tools(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    verbs = {
        "dropdb": ("DROP",),
        "dropuser": ("DROP",),
        "createdb": ("CREATE",),
        "createuser": ("CREATE",),
        "vacuumdb": ("VACUUM",),
        "reindexdb": ("REINDEX",),
        "clusterdb": ("CLUSTER",),
    }.get(name, ())
    if name == "mysqladmin":
        positional = split_positionals(argv[1:], ["-h", "-P", "-u", "-S", "--host", "--port", "--user"])
        sub = positional[0].lower() if positional else ""
        if sub in ("status", "extended-status", "processlist", "variables", "ping", "version", ""):
            return [ctx.effect(argv, "read", f"mysqladmin {sub}")]
        verbs = {"drop": ("DROP",), "create": ("CREATE",), "kill": ("KILL",)}.get(sub, ())
        if sub == "shutdown":
            return [ctx.effect(argv, "write", "mysqladmin shutdown", service_action="stop", targets=("mysql",))]
    if name in ("pg_ctl", "pg_ctlcluster"):
        positional = split_positionals(argv[1:], ["-D", "-m", "-o", "-l", "-t", "-w"])
        sub = next(
            (p for p in positional if p in ("start", "stop", "restart", "reload", "status", "promote", "kill")),
            "",
        )
        if sub == "status":
            return [ctx.effect(argv, "read", f"{name} status")]
        action = {"stop": "stop", "restart": "restart", "kill": "kill"}.get(sub)
        return [ctx.effect(argv, "write", f"{name} {sub}", service_action=action, targets=("postgres",))]
    return [
        ctx.effect(
            argv,
            "write",
            f"{name}" + (f": SQL {', '.join(verbs)}" if verbs else ""),
            sql_verbs=verbs,
            deletes=name in ("dropdb", "dropuser"),
        )
    ]


# -- remote and cluster shells ----------------------------------------------------------------------------


@handles("ssh")
def _ssh(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    values = "-p -i -l -o -F -J -L -R -D -b -c -E -e -m -O -Q -S -W -w -B -I".split()
    _, rest = split_options(argv[1:], values)
    if not rest:
        return [ctx.effect(argv, "unknown", "ssh")]
    host, remote = rest[0], rest[1:]
    if not remote:
        stdin = ctx.invocation.stdin
        if stdin is None:
            return [ctx.effect(argv, "unknown", f"an interactive login on {host} (what you type there is not checked)")]
        if stdin.text is None:
            return ctx.unverifiable(argv, f"commands from {stdin.source} are piped to {host} and would run unseen")
        return _recurse_shell(ctx, stdin.text, f"ssh {host}", argv)
    # The remote side joins the arguments with spaces and hands them to its shell.
    return _recurse_shell(ctx, " ".join(remote), f"ssh {host}", argv)


# -- files, HTTP, cloud -----------------------------------------------------------------------------------


@handles("find")
def _find(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    effects: list[Effect] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            effects += _recurse(ctx, args[i + 1 : end], f"find {arg}")
            i = end
        elif arg == "-delete":
            effects.append(ctx.effect(argv, "write", "find -delete (deletes files)", deletes=True))
        elif arg in ("-fprint", "-fprint0", "-fprintf", "-fls"):
            effects.append(ctx.effect(argv, "write", f"find {arg} (writes a file)"))
        i += 1
    return effects or [ctx.effect(argv, "read", "find")]


@handles("curl")
def _curl(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    values = (
        "-X --request -d --data --data-raw --data-binary --data-urlencode --data-ascii --json -F "
        "--form --form-string -T --upload-file -o --output -H --header -A --user-agent -e --referer "
        "-u --user -x --proxy -b --cookie -c --cookie-jar -K --config -m --max-time "
        "--connect-timeout -w --write-out -r --range --retry --resolve --cacert --cert --key -E -U "
        "-y -Y --limit-rate -z --url --output-dir --interface --dns-servers -D --dump-header "
        "--trace --trace-ascii --stderr --unix-socket --aws-sigv4 --oauth2-bearer"
    ).split()
    found, _ = _ordered_options(argv[1:], values)
    names = {n for n, _ in found}
    method = next((v.upper() for n, v in reversed(found) if n in ("-X", "--request")), None)
    if method is None:
        if names & {"-T", "--upload-file"}:
            method = "PUT"
        elif names & set(
            ("-d --data --data-raw --data-binary --data-urlencode --data-ascii --json -F --form --form-string").split()
        ) and not names & {"-G", "--get"}:
            method = "POST"
        elif names & {"-I", "--head"}:
            method = "HEAD"
        else:
            method = "GET"
    effects = []
    if DYNAMIC in method:
        effects.append(ctx.effect(argv, "unknown", "HTTP request with a method only known at run time"))
    elif method in ("GET", "HEAD", "OPTIONS"):
        effects.append(ctx.effect(argv, "read", f"HTTP {method}"))
    else:
        effects.append(ctx.effect(argv, "write", f"HTTP {method}", deletes=method == "DELETE"))
    outputs = _collect(
        found,
        "-o --output -c --cookie-jar -D --dump-header --trace --trace-ascii --stderr".split(),
    )
    outputs += ["(remote name)"] if names & {"-O", "--remote-name", "--remote-name-all", "-J"} else []
    effects += [ctx.effect(argv, "write", f"writes file {p}") for p in outputs if p not in ("-", "/dev/null")]
    if names & {"-K", "--config"}:
        effects += ctx.unverifiable(argv, "curl reads options from a config file that is not seen")
    return effects


@handles("wget")
def _wget(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    found, _ = _ordered_options(
        argv[1:],
        (
            "-O --output-document --method --post-data --post-file --body-data --body-file -o "
            "--output-file -P --directory-prefix --header -U --user-agent -T --timeout -t --tries"
        ).split(),
    )
    names = {n for n, _ in found}
    method = next((v.upper() for n, v in found if n == "--method"), None)
    if method is None and names & {"--post-data", "--post-file"}:
        method = "POST"
    effects = []
    if method and method not in ("GET", "HEAD"):
        effects.append(ctx.effect(argv, "write", f"HTTP {method}", deletes=method == "DELETE"))
    else:
        effects.append(ctx.effect(argv, "read", "HTTP GET"))
    output = next((v for n, v in found if n in ("-O", "--output-document")), None)
    if not (names & {"--spider"}) and output not in ("-", "/dev/null"):
        effects.append(ctx.effect(argv, "write", f"writes file {output or '(downloaded file)'}"))
    return effects


@handles("http", "https", "xh", "xhs")
def _httpie(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    positional = split_positionals(
        argv[1:],
        "-a --auth -o --output --session --verify --cert --cert-key --timeout -A --auth-type".split(),
    )
    method = None
    if (
        positional
        and re.fullmatch(r"[A-Za-z]+", positional[0])
        and positional[0].upper() in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
    ):
        method = positional[0].upper()
        positional = positional[1:]
    if method is None:
        method = "POST" if any(re.search(r"[^:]=|:=|@", p) for p in positional[1:]) else "GET"
    risk: Risk = "read" if method in ("GET", "HEAD", "OPTIONS") else "write"
    effects = [ctx.effect(argv, risk, f"HTTP {method}", deletes=method == "DELETE")]
    if "--download" in argv or "-d" in argv:
        effects.append(ctx.effect(argv, "write", "writes the downloaded file"))
    return effects


@handles("tar", "bsdtar")
def _tar(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    flags = argv[1] if len(argv) > 1 else ""
    if "t" in flags.lstrip("-") and not any(c in flags for c in "xcru") or "--list" in argv:
        return [ctx.effect(argv, "read", "tar (lists an archive)")]
    return [ctx.effect(argv, "write", "tar (writes files)")]


@handles("unzip", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "zip")
def _compress(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    if any(a in ("-l", "-t", "-c", "--stdout", "--list", "--test", "-v", "-Z") for a in argv[1:]):
        return [ctx.effect(argv, "read", f"{argv[0]} (lists or prints)")]
    return [ctx.effect(argv, "write", f"{argv[0]} (writes files)")]


GIT_COMMAND_KEYS = re.compile(
    r"^(core\.(pager|editor|sshcommand|fsmonitor|askpass|hookspath)|alias\..*|.*\.(textconv|command|process|"
    r"proxycommand|external|helper|cmd)|pager\..*|sequence\.editor|gpg\.program|credential\..*)$",
    re.IGNORECASE,
)


@handles("git")
def _git(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    found, _ = _ordered_options(argv[1:], ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"])
    effects: list[Effect] = []
    for name, value in found:
        key, _, command = value.partition("=")
        if name == "-c" and GIT_COMMAND_KEYS.match(key) and command.strip():
            # `git -c core.pager='…' log` runs that command; an alias starting with ! runs a shell line.
            effects += _recurse_shell(ctx, command.lstrip("!"), f"git -c {key}", argv)
    _, rest = split_options(argv[1:], ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"])
    return effects + _git_verb(ctx, argv, rest)


def _git_verb(ctx: _Ctx, argv: list[str], rest: list[str]) -> list[Effect]:
    verb = rest[0] if rest else ""
    read = (
        "status",
        "log",
        "diff",
        "show",
        "blame",
        "ls-files",
        "ls-tree",
        "ls-remote",
        "rev-parse",
        "describe",
        "shortlog",
        "grep",
        "cat-file",
        "rev-list",
        "whatchanged",
        "version",
        "help",
        "",
    )
    if (
        verb in read
        or (verb == "reflog" and (len(rest) == 1 or rest[1] == "show"))
        or (verb in ("branch", "tag", "remote", "stash") and len(rest) == 1)
        or (verb == "config" and any(a in ("--get", "-l", "--list", "--get-all") for a in rest))
    ):
        return [ctx.effect(argv, "read", f"git {verb}")]
    return [ctx.effect(argv, "write", f"git {verb}", deletes=verb in ("rm", "clean"))]


@handles("atq")
def _atq(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    return [ctx.effect(argv, "read", "atq")]


@handles("sysctl")
def _sysctl(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    if any(a in ("-w", "--write", "-p", "--load", "--system") or "=" in a for a in argv[1:]):
        return [ctx.effect(argv, "write", "sysctl (changes kernel settings)")]
    return [ctx.effect(argv, "read", "sysctl")]


@handles("ip")
def _ip(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    words = [a for a in argv[1:] if not a.startswith("-")]
    if words[:2] == ["netns", "exec"] and len(words) > 3:
        start = argv.index("exec") + 2
        return _recurse(ctx, argv[start:], f"ip netns exec {argv[start - 1]}")
    if any(w in ("add", "del", "delete", "set", "flush", "change", "replace", "append", "prepend") for w in words):
        return [ctx.effect(argv, "write", "ip (changes network settings)")]
    return [ctx.effect(argv, "read", "ip")]


@handles("iptables", "ip6tables", "nft", "ufw", "firewall-cmd")
def _firewall(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    args = argv[1:]
    if any(
        a in ("-L", "--list", "-S", "--list-rules", "list", "status", "--list-all", "--state", "--get-zones")
        or a.startswith("-L")
        for a in args
    ) and not any(a in ("-A", "-D", "-I", "-F", "-X", "-P", "-R", "-N", "add", "delete", "flush") for a in args):
        return [ctx.effect(argv, "read", f"{argv[0]} (lists rules)")]
    return [ctx.effect(argv, "write", f"{argv[0]} (changes firewall rules)")]


@handles("journalctl")
def _journalctl(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    if any(
        a.startswith(("--vacuum", "--rotate", "--flush", "--sync", "--relinquish", "--setup-keys")) for a in argv[1:]
    ):
        return [ctx.effect(argv, "write", "journalctl (changes the journal)")]
    return [ctx.effect(argv, "read", "journalctl")]


@handles("dmesg")
def _dmesg(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    if any(a in ("-c", "-C", "--clear", "--read-clear", "-n", "--console-level", "-D", "-E") for a in argv[1:]):
        return [ctx.effect(argv, "write", "dmesg (clears or changes the kernel log)")]
    return [ctx.effect(argv, "read", "dmesg")]


@handles("man")
def _man(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    found, _ = _ordered_options(argv[1:], ["-P", "--pager", "-M", "--manpath", "-L", "--locale", "-S", "-s", "-C"])
    pager = [value for name, value in found if name in ("-P", "--pager")]
    return [ctx.effect(argv, "read", "man")] + [e for p in pager for e in _recurse_shell(ctx, p, "man -P", argv)]


@handles("sort", "yq", "jq", "openssl")
def _maybe_output_file(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    found, _ = _ordered_options(argv[1:], ["-o", "--output", "-out", "-keyout"])
    outputs = [v for n, v in found if n in ("-o", "--output", "-out", "-keyout")]
    if name == "yq" and any(n in ("-i", "--inplace") for n, _ in found):
        return [ctx.effect(argv, "write", "yq -i (edits files in place)")]
    if name == "openssl" and len(argv) > 1 and argv[1] in ("genrsa", "genpkey", "req", "ca", "rand", "enc"):
        return [ctx.effect(argv, "write", f"openssl {argv[1]}")]
    return [ctx.effect(argv, "read", name)] + [ctx.effect(argv, "write", f"writes file {p}") for p in outputs]


@handles("aws")
def _aws(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    positional = split_positionals(
        argv[1:],
        (
            "--region --profile --output --query --endpoint-url --bucket --key --log-group-name "
            "--instance-ids --cluster --service --function-name --filter-pattern --start-time "
            "--end-time --max-items --filters --since"
        ).split(),
    )
    service, op = (positional + ["", ""])[:2]
    read = (
        op.startswith(tuple("describe list get head lookup search filter tail ls scan query wait test-".split()))
        or service == "sts"
        or op in ("help", "")
    )
    if service == "s3" and op in ("ls", "presign"):
        read = True
    if read:
        return [ctx.effect(argv, "read", f"aws {service} {op}")]
    return [
        ctx.effect(
            argv,
            "write",
            f"aws {service} {op}",
            deletes=op.startswith(("delete", "remove", "terminate", "rm", "rb")),
        )
    ]


@handles("gcloud", "az", "doctl")
def _cloud_cli(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    words = [a for a in argv[1:] if not a.startswith("-")]
    read_words = tuple("list describe show get read get-credentials tail logs version help info config account".split())
    if any(w in read_words or w.startswith(("get-", "list-", "show-")) for w in words[-2:]) and not any(
        w in ("delete", "create", "update", "set", "deploy", "restart", "stop", "reset") for w in words
    ):
        return [ctx.effect(argv, "read", f"{argv[0]} {' '.join(words[:3])}")]
    return [
        ctx.effect(
            argv,
            "write",
            f"{argv[0]} {' '.join(words[:3])}",
            deletes="delete" in words,
            service_action="restart" if "restart" in words else None,
            targets=tuple(words[-1:]) if "restart" in words else (),
        )
    ]


@handles("terraform", "terragrunt", "tofu", "pulumi")
def _terraform(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    words = [a for a in argv[1:] if not a.startswith("-")]
    verb = words[0] if words else ""
    sub = words[1] if len(words) > 1 else "list"
    if (
        verb in ("plan", "show", "output", "validate", "graph", "providers", "version", "preview", "")
        or (verb in ("state", "workspace") and sub in ("list", "show", "pull", "select"))
        or (verb == "fmt" and "-check" in argv)
    ):
        return [ctx.effect(argv, "read", f"{argv[0]} {verb}")]
    return [ctx.effect(argv, "write", f"{argv[0]} {verb}", deletes=verb == "destroy")]


@handles("rsync")
def _rsync(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    if any(a in ("-n", "--dry-run", "--list-only") or re.fullmatch(r"-[a-zA-Z]*n[a-zA-Z]*", a) for a in argv[1:]):
        return [ctx.effect(argv, "read", "rsync --dry-run")]
    deletes = any(a.startswith(("--delete", "--remove-source-files")) for a in argv[1:])
    return [ctx.effect(argv, "write", "rsync (copies files)" + (" with --delete" if deletes else ""), deletes=deletes)]


@handles("logrotate")
def _logrotate(ctx: _Ctx, argv: list[str]) -> list[Effect]:
    if "-d" in argv or "--debug" in argv:
        return [ctx.effect(argv, "read", "logrotate --debug")]
    return [ctx.effect(argv, "write", "logrotate")]
