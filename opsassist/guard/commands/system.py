"""Files, archives, git, logs, kernel settings and cloud CLIs: which of their forms only read."""

from __future__ import annotations

import re

from opsassist.guard.commands.core import (
    Ctx,
    Effect,
    handles,
    ordered_options,
    program,
    recurse,
    recurse_shell,
    split_options,
    split_positionals,
)


@handles("find")
def _find(ctx: Ctx, argv: list[str]) -> list[Effect]:
    effects: list[Effect] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            effects += recurse(ctx, args[i + 1 : end], f"find {arg}")
            i = end
        elif arg == "-delete":
            effects.append(ctx.effect(argv, "write", "find -delete (deletes files)", deletes=True))
        elif arg in ("-fprint", "-fprint0", "-fprintf", "-fls"):
            effects.append(ctx.effect(argv, "write", f"find {arg} (writes a file)"))
        i += 1
    return effects or [ctx.effect(argv, "read", "find")]


@handles("tar", "bsdtar")
def _tar(ctx: Ctx, argv: list[str]) -> list[Effect]:
    flags = argv[1] if len(argv) > 1 else ""
    if "t" in flags.lstrip("-") and not any(c in flags for c in "xcru") or "--list" in argv:
        return [ctx.effect(argv, "read", "tar (lists an archive)")]
    return [ctx.effect(argv, "write", "tar (writes files)")]


@handles("unzip", "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "zip")
def _compress(ctx: Ctx, argv: list[str]) -> list[Effect]:
    if any(a in ("-l", "-t", "-c", "--stdout", "--list", "--test", "-v", "-Z") for a in argv[1:]):
        return [ctx.effect(argv, "read", f"{argv[0]} (lists or prints)")]
    return [ctx.effect(argv, "write", f"{argv[0]} (writes files)")]


GIT_COMMAND_KEYS = re.compile(
    r"^(core\.(pager|editor|sshcommand|fsmonitor|askpass|hookspath)|alias\..*|.*\.(textconv|command|process|"
    r"proxycommand|external|helper|cmd)|pager\..*|sequence\.editor|gpg\.program|credential\..*)$",
    re.IGNORECASE,
)


@handles("git")
def _git(ctx: Ctx, argv: list[str]) -> list[Effect]:
    found, _ = ordered_options(argv[1:], ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"])
    effects: list[Effect] = []
    for name, value in found:
        key, _, command = value.partition("=")
        if name == "-c" and GIT_COMMAND_KEYS.match(key) and command.strip():
            # `git -c core.pager='…' log` runs that command; an alias starting with ! runs a shell line.
            effects += recurse_shell(ctx, command.lstrip("!"), f"git -c {key}", argv)
    _, rest = split_options(argv[1:], ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"])
    return effects + _git_verb(ctx, argv, rest)


def _git_verb(ctx: Ctx, argv: list[str], rest: list[str]) -> list[Effect]:
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


@handles("sysctl")
def _sysctl(ctx: Ctx, argv: list[str]) -> list[Effect]:
    if any(a in ("-w", "--write", "-p", "--load", "--system") or "=" in a for a in argv[1:]):
        return [ctx.effect(argv, "write", "sysctl (changes kernel settings)")]
    return [ctx.effect(argv, "read", "sysctl")]


@handles("journalctl")
def _journalctl(ctx: Ctx, argv: list[str]) -> list[Effect]:
    if any(
        a.startswith(("--vacuum", "--rotate", "--flush", "--sync", "--relinquish", "--setup-keys")) for a in argv[1:]
    ):
        return [ctx.effect(argv, "write", "journalctl (changes the journal)")]
    return [ctx.effect(argv, "read", "journalctl")]


@handles("dmesg")
def _dmesg(ctx: Ctx, argv: list[str]) -> list[Effect]:
    if any(a in ("-c", "-C", "--clear", "--read-clear", "-n", "--console-level", "-D", "-E") for a in argv[1:]):
        return [ctx.effect(argv, "write", "dmesg (clears or changes the kernel log)")]
    return [ctx.effect(argv, "read", "dmesg")]


@handles("man")
def _man(ctx: Ctx, argv: list[str]) -> list[Effect]:
    found, _ = ordered_options(argv[1:], ["-P", "--pager", "-M", "--manpath", "-L", "--locale", "-S", "-s", "-C"])
    pager = [value for name, value in found if name in ("-P", "--pager")]
    return [ctx.effect(argv, "read", "man")] + [e for p in pager for e in recurse_shell(ctx, p, "man -P", argv)]


@handles("sort", "yq", "jq", "openssl")
def _maybe_output_file(ctx: Ctx, argv: list[str]) -> list[Effect]:
    name = program(argv)
    found, _ = ordered_options(argv[1:], ["-o", "--output", "-out", "-keyout"])
    outputs = [v for n, v in found if n in ("-o", "--output", "-out", "-keyout")]
    if name == "yq" and any(n in ("-i", "--inplace") for n, _ in found):
        return [ctx.effect(argv, "write", "yq -i (edits files in place)")]
    if name == "openssl" and len(argv) > 1 and argv[1] in ("genrsa", "genpkey", "req", "ca", "rand", "enc"):
        return [ctx.effect(argv, "write", f"openssl {argv[1]}")]
    return [ctx.effect(argv, "read", name)] + [ctx.effect(argv, "write", f"writes file {p}") for p in outputs]


@handles("aws")
def _aws(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
def _cloud_cli(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
def _terraform(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
def _rsync(ctx: Ctx, argv: list[str]) -> list[Effect]:
    if any(a in ("-n", "--dry-run", "--list-only") or re.fullmatch(r"-[a-zA-Z]*n[a-zA-Z]*", a) for a in argv[1:]):
        return [ctx.effect(argv, "read", "rsync --dry-run")]
    deletes = any(a.startswith(("--delete", "--remove-source-files")) for a in argv[1:])
    return [ctx.effect(argv, "write", "rsync (copies files)" + (" with --delete" if deletes else ""), deletes=deletes)]


@handles("logrotate")
def _logrotate(ctx: Ctx, argv: list[str]) -> list[Effect]:
    if "-d" in argv or "--debug" in argv:
        return [ctx.effect(argv, "read", "logrotate --debug")]
    return [ctx.effect(argv, "write", "logrotate")]
