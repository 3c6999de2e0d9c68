"""Programs that run other programs or code: sudo, env, timeout, xargs, watch, sh -c, interpreters, at, cron.

Each is unwrapped and what it would run is judged; code that cannot be seen (a script file, interpreter code,
data piped into a shell) cannot be verified.
"""

from __future__ import annotations

import re
import shlex

from opsassist.guard.commands.core import (
    Ctx,
    Effect,
    assignment_effects,
    handles,
    has,
    option,
    program,
    recurse,
    recurse_shell,
    split_options,
    split_positionals,
)
from opsassist.guard.shell import DYNAMIC

# Programs that run code they are given; with `-c`/`-e` code or a script, what runs is not analysed.
INTERPRETERS = frozenset(
    (
        "python python2 python3 perl ruby node nodejs php lua luajit Rscript pwsh powershell "
        "osascript deno bun tclsh wish irb ipython expect"
    ).split()
)


SHELLS = frozenset(["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "csh", "tcsh", "busybox"])


@handles("sudo", "doas")
def _sudo(ctx: Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(
        argv[1:],
        "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --chdir --role --type".split(),
    )
    if not rest:
        if has(opts, "-i", "-s", "--login", "--shell"):
            return [ctx.effect(argv, "unknown", "an interactive root shell (what you type there is not checked)")]
        return [ctx.effect(argv, "read", f"{argv[0]} (no command)")]
    if has(opts, "-s", "--shell"):
        return recurse_shell(ctx, " ".join(rest), argv[0], argv)
    return recurse(ctx, rest, argv[0])


@handles("env")
def _env(ctx: Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:], ["-u", "--unset", "-C", "--chdir", "-S", "--split-string"])
    split = option(opts, "-S", "--split-string")
    assignments = []
    while rest and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", rest[0]):
        name, _, value = rest[0].partition("=")
        assignments.append((name, value))
        rest = rest[1:]
    effects = assignment_effects(ctx, assignments)
    if split is not None:
        return effects + recurse_shell(ctx, split + " " + shlex.join(rest), "env -S", argv)
    if not rest:
        return effects + [ctx.effect(argv, "read", "env (prints the environment)")]
    return effects + recurse(ctx, rest, None)


@handles("timeout")
def _timeout(ctx: Ctx, argv: list[str]) -> list[Effect]:
    _, rest = split_options(argv[1:], ["-s", "--signal", "-k", "--kill-after"])
    return recurse(ctx, rest[1:], None)


@handles("nohup", "time", "setsid", "unbuffer", "chronic", "caffeinate", "builtin", "exec", "nocache")
def _plain_wrapper(ctx: Ctx, argv: list[str]) -> list[Effect]:
    _, rest = split_options(argv[1:], ["-a"])
    if not rest:
        return [ctx.effect(argv, "read", argv[0])]
    return recurse(ctx, rest, None)


@handles(
    "taskset chrt numactl unshare nsenter systemd-run strace ltrace cgexec firejail proxychains "
    "proxychains4 torsocks sg"
)
def _launcher(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
        return recurse_shell(ctx, code, "sg", argv) if code else [ctx.effect(argv, "unknown", "sg")]
    if name in ("taskset", "chrt") and rest:
        rest = rest[1:]  # the CPU mask or the priority
    if name in ("strace", "ltrace") and option(opts, "-p") and not rest:
        return [ctx.effect(argv, "read", f"{name} -p (traces a running process)")]
    if not rest:
        return [ctx.effect(argv, "unknown", name)]
    return recurse(ctx, rest, name)


@handles("script")
def _script(ctx: Ctx, argv: list[str]) -> list[Effect]:
    opts, _ = split_options(
        argv[1:],
        ["-c", "--command", "-E", "--echo", "-T", "--log-timing", "-I", "-O", "-B", "-m", "--logging-format"],
        stop_at_positional=False,
    )
    code = option(opts, "-c", "--command")
    if code is None:
        return [ctx.effect(argv, "unknown", "script (records an interactive shell, not checked)")]
    return recurse_shell(ctx, code, "script -c", argv)


@handles("command")
def _command(ctx: Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:])
    if has(opts, "-v", "-V"):
        return [ctx.effect(argv, "read", "command -v (looks a command up)")]
    return recurse(ctx, rest, None)


@handles("nice")
def _nice(ctx: Ctx, argv: list[str]) -> list[Effect]:
    args = argv[1:]
    if args and re.fullmatch(r"-\d+", args[0]):
        args = args[1:]
    _, rest = split_options(args, ["-n", "--adjustment"])
    return recurse(ctx, rest, None) if rest else [ctx.effect(argv, "read", "nice")]


@handles("ionice")
def _ionice(ctx: Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:], ["-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid"])
    if has(opts, "-p", "-P", "-u", "--pid"):
        return [ctx.effect(argv, "write", "ionice (changes a running process)")]
    return recurse(ctx, rest, None) if rest else [ctx.effect(argv, "read", "ionice")]


@handles("stdbuf")
def _stdbuf(ctx: Ctx, argv: list[str]) -> list[Effect]:
    _, rest = split_options(argv[1:], ["-i", "-o", "-e", "--input", "--output", "--error"])
    return recurse(ctx, rest, None)


@handles("flock")
def _flock(ctx: Ctx, argv: list[str]) -> list[Effect]:
    values = ["-w", "--timeout", "-E", "--conflict-exit-code", "-c", "--command"]
    opts, _ = split_options(argv[1:], values, stop_at_positional=False)
    rest = split_positionals(argv[1:], values)
    code = option(opts, "-c", "--command")
    if code is not None:
        return recurse_shell(ctx, code, "flock -c", argv)
    return recurse(ctx, rest[1:], None) if len(rest) > 1 else [ctx.effect(argv, "write", "flock")]


@handles("chroot")
def _chroot(ctx: Ctx, argv: list[str]) -> list[Effect]:
    _, rest = split_options(argv[1:], ["--userspec", "--groups"])
    if len(rest) <= 1:
        return [ctx.effect(argv, "unknown", "an interactive shell in a chroot (not checked)")]
    return recurse(ctx, rest[1:], "chroot")


@handles("su")
def _su(ctx: Ctx, argv: list[str]) -> list[Effect]:
    opts, _ = split_options(argv[1:], ["-c", "--command", "-s", "--shell", "-g", "-G"], stop_at_positional=False)
    code = option(opts, "-c", "--command")
    if code is None:
        return [ctx.effect(argv, "unknown", "an interactive shell as another user (not checked)")]
    return recurse_shell(ctx, code, "su -c", argv)


@handles("runuser")
def _runuser(ctx: Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:], ["-u", "--user", "-g", "-G", "-c", "--command", "-s", "--shell"])
    code = option(opts, "-c", "--command")
    if code is not None:
        return recurse_shell(ctx, code, "runuser -c", argv)
    if option(opts, "-u", "--user") is None and rest:
        rest = rest[1:]
    return recurse(ctx, rest, "runuser") if rest else [ctx.effect(argv, "unknown", "runuser (interactive)")]


@handles("xargs")
def _xargs(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
        return recurse(ctx, [a.replace(replace_with, DYNAMIC) for a in rest], "xargs")
    return recurse(ctx, [*rest, DYNAMIC], "xargs")


@handles("parallel")
def _parallel(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
                effects += recurse_shell(ctx, line, "parallel", argv)
            return effects
        return ctx.unverifiable(argv, "parallel runs command lines read from its input, which are not seen")
    # parallel joins its arguments into one shell line (unless -q); judge both readings, so quoting cannot hide
    # a command either way.
    joined = recurse_shell(ctx, " ".join(command), "parallel", argv)
    return joined + recurse(ctx, [a.replace("{}", DYNAMIC) for a in command], "parallel")


@handles("watch")
def _watch(ctx: Ctx, argv: list[str]) -> list[Effect]:
    opts, rest = split_options(argv[1:], ["-n", "--interval", "-q", "--equexit", "--differences-hint"])
    if has(opts, "-x", "--exec"):
        return recurse(ctx, rest, "watch")
    return recurse_shell(ctx, " ".join(rest), "watch", argv) if rest else [ctx.effect(argv, "read", "watch")]


@handles("trap")
def _trap(ctx: Ctx, argv: list[str]) -> list[Effect]:
    if len(argv) >= 3 and argv[1] not in ("-l", "-p", "-", ""):
        return recurse_shell(ctx, argv[1], "trap", argv)
    return [ctx.effect(argv, "read", "trap")]


@handles("export", "declare", "typeset", "local", "readonly")
def _export(ctx: Ctx, argv: list[str]) -> list[Effect]:
    assignments = [tuple(a.split("=", 1)) for a in argv[1:] if re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", a)]
    return assignment_effects(ctx, assignments) or [ctx.effect(argv, "read", argv[0])]  # type: ignore[arg-type]


@handles("alias")
def _alias(ctx: Ctx, argv: list[str]) -> list[Effect]:
    """`alias k='kill -9'` decides what a later word runs: judge the alias body as if it ran."""
    effects: list[Effect] = []
    for definition in argv[1:]:
        name, eq, body = definition.partition("=")
        if eq and body.strip():
            effects += recurse_shell(ctx, body, f"alias {name}", argv)
    return effects or [ctx.effect(argv, "read", "alias (lists aliases)")]


@handles("at", "batch")
def _at(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
    return [ctx.effect(argv, "write", "at (schedules a job)")] + recurse_shell(ctx, stdin.text, "at", argv)


@handles("crontab")
def _crontab(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
            effects += recurse_shell(ctx, command, "crontab entry", argv)
    return effects


@handles("tmux", "screen")
def _terminal_multiplexer(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
        return [ctx.effect(argv, "unknown", "tmux send-keys")] + recurse_shell(ctx, " ".join(keys), "tmux", argv)
    if name == "screen" and "stuff" in args:
        typed = args[args.index("stuff") + 1] if args.index("stuff") + 1 < len(args) else ""
        return [ctx.effect(argv, "unknown", "screen stuff")] + recurse_shell(
            ctx, typed.replace("\\n", "\n").replace("\\r", "\n"), "screen", argv
        )
    return [ctx.effect(argv, "unknown", name)]


@handles("eval")
def _eval(ctx: Ctx, argv: list[str]) -> list[Effect]:
    return ctx.unverifiable(
        argv,
        "eval runs text assembled at run time",
        "run the command it would build directly, so it can be checked",
    )


@handles("source", ".")
def _source(ctx: Ctx, argv: list[str]) -> list[Effect]:
    target = argv[1] if len(argv) > 1 else "a file"
    return ctx.unverifiable(
        argv,
        f"source runs {target}, whose content is not seen",
        f"inspect it first (cat {target}) and run what you need directly",
    )


@handles(*SHELLS)
def _shell(ctx: Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    args = argv[1:]
    if name == "busybox":
        return recurse(ctx, args, "busybox") if args else [ctx.effect(argv, "read", "busybox")]
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
        return recurse_shell(ctx, positional[0], wrapper, argv)
    if positional:
        return ctx.unverifiable(
            argv,
            f"{name} runs the script {positional[0]}, whose content is not seen",
            f"inspect it first (cat {positional[0]}) and run what you need directly",
        )
    piped = ctx.piped_input(argv, name, "data", "save it to a file, read it, and run the commands you need directly")
    return piped if isinstance(piped, list) else recurse_shell(ctx, piped, f"{name} (stdin)", argv)


CODE_FLAGS = frozenset({"-c", "-e", "-E", "-r", "-p", "--eval", "--print", "--command", "-x"})


@handles(*INTERPRETERS)
def _interpreter(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
def _awk(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
def _sed(ctx: Ctx, argv: list[str]) -> list[Effect]:
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


@handles("atq")
def _atq(ctx: Ctx, argv: list[str]) -> list[Effect]:
    return [ctx.effect(argv, "read", "atq")]
