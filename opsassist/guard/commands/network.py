"""Remote shells and network tools: ssh (the remote command is judged), HTTP clients by method, ip, firewalls."""

from __future__ import annotations

import re

from opsassist.guard.commands.core import (
    Ctx,
    Effect,
    Risk,
    collect,
    handles,
    ordered_options,
    recurse,
    recurse_shell,
    split_options,
    split_positionals,
)
from opsassist.guard.shell import DYNAMIC


@handles("ssh")
def _ssh(ctx: Ctx, argv: list[str]) -> list[Effect]:
    values = "-p -i -l -o -F -J -L -R -D -b -c -E -e -m -O -Q -S -W -w -B -I".split()
    _, rest = split_options(argv[1:], values)
    if not rest:
        return [ctx.effect(argv, "unknown", "ssh")]
    host, remote = rest[0], rest[1:]
    if not remote:
        piped = ctx.piped_input(argv, f"login on {host}", "commands")
        return piped if isinstance(piped, list) else recurse_shell(ctx, piped, f"ssh {host}", argv)
    # The remote side joins the arguments with spaces and hands them to its shell.
    return recurse_shell(ctx, " ".join(remote), f"ssh {host}", argv)


@handles("curl")
def _curl(ctx: Ctx, argv: list[str]) -> list[Effect]:
    values = (
        "-X --request -d --data --data-raw --data-binary --data-urlencode --data-ascii --json -F "
        "--form --form-string -T --upload-file -o --output -H --header -A --user-agent -e --referer "
        "-u --user -x --proxy -b --cookie -c --cookie-jar -K --config -m --max-time "
        "--connect-timeout -w --write-out -r --range --retry --resolve --cacert --cert --key -E -U "
        "-y -Y --limit-rate -z --url --output-dir --interface --dns-servers -D --dump-header "
        "--trace --trace-ascii --stderr --unix-socket --aws-sigv4 --oauth2-bearer"
    ).split()
    found, _ = ordered_options(argv[1:], values)
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
    outputs = collect(
        found,
        "-o --output -c --cookie-jar -D --dump-header --trace --trace-ascii --stderr".split(),
    )
    outputs += ["(remote name)"] if names & {"-O", "--remote-name", "--remote-name-all", "-J"} else []
    effects += [ctx.effect(argv, "write", f"writes file {p}") for p in outputs if p not in ("-", "/dev/null")]
    if names & {"-K", "--config"}:
        effects += ctx.unverifiable(argv, "curl reads options from a config file that is not seen")
    return effects


@handles("wget")
def _wget(ctx: Ctx, argv: list[str]) -> list[Effect]:
    found, _ = ordered_options(
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
def _httpie(ctx: Ctx, argv: list[str]) -> list[Effect]:
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


@handles("ip")
def _ip(ctx: Ctx, argv: list[str]) -> list[Effect]:
    words = [a for a in argv[1:] if not a.startswith("-")]
    if words[:2] == ["netns", "exec"] and len(words) > 3:
        start = argv.index("exec") + 2
        return recurse(ctx, argv[start:], f"ip netns exec {argv[start - 1]}")
    if any(w in ("add", "del", "delete", "set", "flush", "change", "replace", "append", "prepend") for w in words):
        return [ctx.effect(argv, "write", "ip (changes network settings)")]
    return [ctx.effect(argv, "read", "ip")]


@handles("iptables", "ip6tables", "nft", "ufw", "firewall-cmd")
def _firewall(ctx: Ctx, argv: list[str]) -> list[Effect]:
    args = argv[1:]
    if any(
        a in ("-L", "--list", "-S", "--list-rules", "list", "status", "--list-all", "--state", "--get-zones")
        or a.startswith("-L")
        for a in args
    ) and not any(a in ("-A", "-D", "-I", "-F", "-X", "-P", "-R", "-N", "add", "delete", "flush") for a in args):
        return [ctx.effect(argv, "read", f"{argv[0]} (lists rules)")]
    return [ctx.effect(argv, "write", f"{argv[0]} (changes firewall rules)")]
