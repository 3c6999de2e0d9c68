"""The tools behind the gateway: built-ins and the person's own, and how each one runs.

Built-ins: `run_shell` (guarded: reads run, writes wait for approval, red lines are blocked), `read_file` and
`tail_file` (size-capped, read-only), `http_check` (GET and HEAD only) and `scheduled_jobs` (a real
reminder stored in the record; a write, so it needs approval).

A person adds tools in `tools.toml` beside the config file: a command template (an argv list whose elements
may hold `{parameter}` placeholders), typed parameters as a JSON schema, a description and a risk. Arguments
are substituted into argv elements and never reach a shell, and the filled command still passes the guard.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from opsassist.config import ConfigError

ToolRisk = Literal["read", "write", "guarded"]
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
READ_CAP_BYTES = 1_048_576
TAIL_MAX_LINES = 5_000


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]
    risk: ToolRisk
    """read: runs at once; write: held for approval; guarded: the guard decides per command."""
    command: tuple[str, ...] = ()
    """For the person's tools: the argv template."""
    tags: tuple[str, ...] = ()

    def summary(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description.split(". ")[0], "risk": self.risk}

    def schema(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "risk": self.risk,
            "requires_approval": {"read": False, "write": True, "guarded": "only when the command writes"}[self.risk],
        }


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


BUILTIN_TOOLS = (
    ToolSpec(
        "run_shell",
        "Run one shell command on this machine (bash). Read-only commands run at once; writes wait for the "
        "person's approval; commands that cross a pinned red line are blocked with the reason.",
        _object(
            {
                "command": {"type": "string", "description": "The command line, e.g. `kubectl -n edge get pods`."},
                "timeout_seconds": {"type": "number", "minimum": 1, "description": "Defaults to the setting."},
            },
            ["command"],
        ),
        "guarded",
        tags=("shell", "command", "kubectl", "systemctl", "psql", "logs", "process", "investigate"),
    ),
    ToolSpec(
        "read_file",
        "Read a text file (read-only, capped).",
        _object(
            {
                "path": {"type": "string"},
                "max_bytes": {"type": "integer", "minimum": 1, "maximum": READ_CAP_BYTES},
            },
            ["path"],
        ),
        "read",
        tags=("file", "config", "cat"),
    ),
    ToolSpec(
        "tail_file",
        "The last lines of a text file, such as a log (read-only).",
        _object(
            {"path": {"type": "string"}, "lines": {"type": "integer", "minimum": 1, "maximum": TAIL_MAX_LINES}},
            ["path"],
        ),
        "read",
        tags=("log", "logs", "tail", "file"),
    ),
    ToolSpec(
        "http_check",
        "Check an HTTP endpoint with GET or HEAD: status, latency, headers and the start of the body.",
        _object(
            {
                "url": {"type": "string", "pattern": "^https?://"},
                "method": {"type": "string", "enum": ["GET", "HEAD"]},
                "timeout_seconds": {"type": "number", "minimum": 0.1, "maximum": 60},
            },
            ["url"],
        ),
        "read",
        tags=("http", "health", "endpoint", "url", "status", "latency"),
    ),
    ToolSpec(
        "scheduled_jobs",
        "Schedule a reminder: at schedule_time the person is shown the title and message in opsassist. "
        "A write: it is held for the person's approval.",
        _object(
            {
                "title": {"type": "string", "minLength": 1, "maxLength": 200},
                "message": {"type": "string", "maxLength": 4000},
                "schedule_time": {
                    "type": "string",
                    "description": "'+30m', '+2h', '+1d', 'HH:MM' (UTC, next occurrence) or an ISO-8601 time.",
                },
                "repeat": {"type": "string", "enum": ["none", "hourly", "daily"]},
                "priority": {"type": "string", "enum": ["low", "normal", "high"]},
                "notify": {"type": "string", "enum": ["tui", "none"]},
                "folder": {"type": "string", "description": "A label to group reminders, e.g. the incident id."},
            },
            ["title", "message", "schedule_time"],
        ),
        "write",
        tags=("reminder", "schedule", "timer", "follow-up", "check", "later", "pull request", "report"),
    ),
)


# -- the person's tools ---------------------------------------------------------------------------------


def load_user_tools(path: Path) -> list[ToolSpec]:
    """Tools from tools.toml; a bad file is a ConfigError naming the file and the tool."""
    if not path.exists():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    builtin = {t.name for t in BUILTIN_TOOLS}
    tools: list[ToolSpec] = []
    for index, entry in enumerate(data.get("tools", [])):
        where = f"{path}: tools[{index}]"
        if not isinstance(entry, dict):
            raise ConfigError(f"{where}: expected a table")
        name = entry.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]{1,63}", name):
            raise ConfigError(f"{where}: 'name' must be lower_snake_case")
        where = f"{path}: tool '{name}'"
        if name in builtin or any(t.name == name for t in tools):
            raise ConfigError(f"{where}: the name is already taken")
        unknown = set(entry) - {"name", "description", "command", "parameters", "risk", "tags"}
        if unknown:
            raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        command = entry.get("command")
        if not isinstance(command, list) or not command or not all(isinstance(a, str) for a in command):
            raise ConfigError(f"{where}: 'command' must be a non-empty list of strings (argv, no shell)")
        risk = entry.get("risk", "write")
        if risk not in ("read", "write"):
            raise ConfigError(f'{where}: \'risk\' must be "read" or "write"')
        parameters = entry.get("parameters", {"type": "object", "properties": {}})
        try:
            Draft202012Validator.check_schema(parameters)
        except SchemaError as exc:
            raise ConfigError(f"{where}: 'parameters' is not a valid JSON schema: {exc.message}") from None
        if parameters.get("type") != "object":
            raise ConfigError(f"{where}: 'parameters' must be a schema of type object")
        declared = set(parameters.get("properties", {}))
        for arg in command:
            for placeholder in PLACEHOLDER.findall(arg):
                if placeholder not in declared:
                    raise ConfigError(f"{where}: placeholder {{{placeholder}}} is not a declared parameter")
        tools.append(
            ToolSpec(
                name=name,
                description=str(entry.get("description", "")),
                parameters=parameters,
                risk=risk,
                command=tuple(command),
                tags=tuple(str(t) for t in entry.get("tags", [])),
            )
        )
    return tools


def fill_command(spec: ToolSpec, arguments: dict[str, Any]) -> list[str]:
    """The argv a person's tool runs: each placeholder replaced inside its own argv element, never re-split."""
    argv = []
    for template in spec.command:
        argv.append(PLACEHOLDER.sub(lambda m: _as_text(arguments.get(m.group(1), "")), template))
    return argv


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- running ----------------------------------------------------------------------------------------------


@dataclass
class RunLimits:
    timeout_seconds: float
    output_cap_bytes: int


def _cap(data: bytes, cap: int) -> tuple[str, bool]:
    text = data[:cap].decode("utf-8", errors="replace")
    return text, len(data) > cap


def run_process(argv: list[str], limits: RunLimits, timeout: float | None = None) -> dict[str, Any]:
    """Run argv (no shell unless argv is one), in its own process group, killed whole on timeout."""
    seconds = min(timeout or limits.timeout_seconds, limits.timeout_seconds)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        return {"exit_code": None, "output": f"could not start {argv[0]}: {exc.strerror or exc}", "timed_out": False}
    timed_out = False
    try:
        output, _ = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        timed_out = True
        # The command's children (pipelines, sudo, ssh) share its process group: end them all.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            output, _ = proc.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            output, _ = proc.communicate()
    text, truncated = _cap(output or b"", limits.output_cap_bytes)
    result: dict[str, Any] = {
        "exit_code": proc.returncode,
        "output": text,
        "duration_ms": round((time.monotonic() - start) * 1000),
    }
    if truncated:
        result["truncated"] = f"output cut at {limits.output_cap_bytes} bytes of {len(output)}"
    if timed_out:
        result["timed_out"] = f"killed after {seconds:g} s"
    return result


def run_shell(command: str, limits: RunLimits, timeout: float | None = None) -> dict[str, Any]:
    return run_process(["bash", "-c", command], limits, timeout)


def read_file(path: str, max_bytes: int | None, limits: RunLimits) -> dict[str, Any]:
    cap = min(max_bytes or limits.output_cap_bytes, READ_CAP_BYTES)
    target = Path(path).expanduser()
    try:
        with target.open("rb") as fh:
            data = fh.read(cap + 1)
        size = target.stat().st_size
    except OSError as exc:
        return {"error": f"cannot read {path}: {exc.strerror or exc}"}
    if b"\x00" in data[:8192]:
        return {"error": f"{path} looks binary; not shown"}
    text, truncated = _cap(data, cap)
    result: dict[str, Any] = {"path": str(target), "size_bytes": size, "content": text}
    if truncated:
        result["truncated"] = f"first {cap} bytes of {size}"
    return result


def tail_file(path: str, lines: int | None, limits: RunLimits) -> dict[str, Any]:
    wanted = min(lines or 100, TAIL_MAX_LINES)
    target = Path(path).expanduser()
    try:
        with target.open("rb") as fh:
            position = fh.seek(0, os.SEEK_END)
            data = b""
            # Read backwards in blocks until there are enough lines (or the file is read whole).
            while position > 0 and data.count(b"\n") <= wanted:
                step = min(65_536, position)
                position -= step
                fh.seek(position)
                data = fh.read(step) + data
    except OSError as exc:
        return {"error": f"cannot read {path}: {exc.strerror or exc}"}
    tail = b"".join(data.splitlines(keepends=True)[-wanted:])
    shown = tail[-limits.output_cap_bytes :]
    result: dict[str, Any] = {
        "path": str(target),
        "lines": len(shown.splitlines()),
        "content": shown.decode("utf-8", errors="replace"),
    }
    if len(shown) < len(tail):
        result["truncated"] = f"last {limits.output_cap_bytes} bytes of the last {wanted} lines"
    return result


def http_check(url: str, method: str | None, timeout: float | None, limits: RunLimits) -> dict[str, Any]:
    verb = (method or "GET").upper()
    if verb not in ("GET", "HEAD"):
        return {"error": "http_check only sends GET or HEAD"}
    request = urllib.request.Request(url, method=verb, headers={"User-Agent": "opsassist-http-check"})
    start = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout or 10) as response:  # noqa: S310 - http(s) only
            body = response.read(4096) if verb == "GET" else b""
            status, headers = response.status, dict(response.headers)
    except urllib.error.HTTPError as exc:
        body = exc.read(4096) if verb == "GET" else b""
        status, headers = exc.code, dict(exc.headers or {})
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return {"error": f"{verb} {url} failed: {reason}", "latency_ms": round((time.monotonic() - start) * 1000)}
    keep = ("content-type", "content-length", "server", "retry-after", "location", "cache-control")
    return {
        "status": status,
        "latency_ms": round((time.monotonic() - start) * 1000),
        "headers": {k: v for k, v in headers.items() if k.lower() in keep},
        "body_start": body.decode("utf-8", errors="replace"),
    }


_RELATIVE = re.compile(r"^\+\s*(\d+)\s*(m|min|minutes?|h|hours?|d|days?)$", re.IGNORECASE)


def parse_schedule_time(value: str, now: datetime | None = None) -> datetime:
    """'+30m', '+2h', '+1d', 'HH:MM' (UTC, next occurrence) or ISO-8601. Raises ValueError with the reason."""
    now = now or datetime.now(UTC)
    text = value.strip()
    relative = _RELATIVE.match(text)
    if relative:
        amount, unit = int(relative.group(1)), relative.group(2).lower()[0]
        return now + {"m": timedelta(minutes=amount), "h": timedelta(hours=amount), "d": timedelta(days=amount)}[unit]
    clock = re.fullmatch(r"(\d{1,2}):(\d{2})", text)
    if clock:
        hour, minute = int(clock.group(1)), int(clock.group(2))
        if hour > 23 or minute > 59:
            raise ValueError(f"{value!r} is not a time of day")
        due = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
        return due if due > now else due + timedelta(days=1)
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"schedule_time {value!r}: use '+30m', '+2h', 'HH:MM' or an ISO-8601 time") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


Executor = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class Catalog:
    tools: dict[str, ToolSpec] = field(default_factory=dict)
    disabled: frozenset[str] = frozenset()

    @classmethod
    def build(cls, user_tools: list[ToolSpec], disabled: list[str]) -> Catalog:
        tools = {t.name: t for t in BUILTIN_TOOLS}
        tools.update({t.name: t for t in user_tools})
        return cls(tools, frozenset(disabled))

    def search(self, query: str, limit: int = 8) -> list[ToolSpec]:
        words = [w for w in re.findall(r"[a-z0-9]+", query.lower()) if len(w) > 1]
        available = [t for t in self.tools.values() if t.name not in self.disabled]
        if not words:
            return available[:limit]

        def score(tool: ToolSpec) -> int:
            haystack = f"{tool.name} {tool.description} {' '.join(tool.tags)}".lower().replace("_", " ")
            return sum(3 if w in tool.name else 1 for w in words if w in haystack)

        ranked = sorted(available, key=score, reverse=True)
        return [t for t in ranked if score(t) > 0][:limit]

    def describe_command(self, spec: ToolSpec, arguments: dict[str, Any]) -> str:
        """What will run, as the person will read it on the approval card."""
        if spec.name == "run_shell":
            return str(arguments.get("command", ""))
        if spec.command:
            return shlex.join(fill_command(spec, arguments))
        shown = ", ".join(f"{k}={v!r}" for k, v in sorted(arguments.items()))
        return f"{spec.name}({shown})"
