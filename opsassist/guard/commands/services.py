"""Services, containers and clusters: systemctl, service, docker, kubectl, helm, process managers, servers.

What matters to the red lines is which action takes a service down or cycles it (restart, stop, kill,
delete, scale, rollout) and which names it acts on.
"""

from __future__ import annotations

from opsassist.guard.commands.core import (
    ANY_TARGET,
    Ctx,
    Effect,
    handles,
    has,
    option,
    program,
    recurse,
    split_options,
    split_positionals,
)
from opsassist.guard.commands.processes import SIGNALS, signal_effect

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
def _systemctl(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
        return [signal_effect(ctx, argv, option(opts, "-s", "--signal"), SIGNALS["TERM"], units, "systemctl kill")]
    action = SYSTEMCTL_DISRUPT.get(verb)
    if action is None and verb in ("disable", "mask") and has(opts, "--now"):
        action = "stop"
    if action == "reboot":
        units = [ANY_TARGET]
    if action:
        return [ctx.effect(argv, "write", f"systemctl {verb}", service_action=action, targets=tuple(units))]
    return [ctx.effect(argv, "write", f"systemctl {verb}", targets=tuple(units))]


def _service_like(ctx: Ctx, argv: list[str], name: str, action_args: list[str]) -> list[Effect]:
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


@handles("init.d")
def _init_script(ctx: Ctx, argv: list[str]) -> list[Effect]:
    return _service_like(ctx, argv, program(argv), argv[1:2])


@handles("service", "rc-service", "invoke-rc.d")
def _service(ctx: Ctx, argv: list[str]) -> list[Effect]:
    _, rest = split_options(argv[1:])
    if not rest:
        return [ctx.effect(argv, "read", "service --status-all")]
    return _service_like(ctx, argv, rest[0], rest[1:2])


@handles("reboot", "shutdown", "halt", "poweroff", "telinit", "init")
def _reboot(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
def _docker(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
        return recurse(ctx, inner[1:], f"{name} exec {inner[0]}")
    if verb in CONTAINER_READ or verb in ("config", "images", "top") and compose:
        return [ctx.effect(argv, "read", f"{name} {verb}")]
    signal_opts = ["-s", "--signal", "-t", "--time", "--timeout"]
    targets = split_positionals(args, signal_opts) or ([ANY_TARGET] if compose else [])
    if verb == "kill":
        opts, _ = split_options(args, signal_opts, stop_at_positional=False)
        return [signal_effect(ctx, argv, option(opts, "-s", "--signal"), SIGNALS["KILL"], targets, f"{name} kill")]
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
def _kubectl(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
        return recurse(ctx, inner_argv, f"kubectl exec {target}")
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
def _helm(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
def _process_manager(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
def _server_binary(ctx: Ctx, argv: list[str]) -> list[Effect]:
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
