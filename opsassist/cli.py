"""Command-line entry points (contracts in DESIGN.md).

Start-up is a feature: this module imports only the standard library at the top; each command imports
what it needs, and no review command loads litellm or Textual. Bad input exits 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from opsassist.errors import OpsassistError

EXIT_OK = 0
EXIT_USAGE = 2


class UsageError(OpsassistError):
    """Bad input from the person; printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, not argparse's usage dump: the person gets the reason and where to look.
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _open_store() -> Any:
    from opsassist.paths import resolve_paths
    from opsassist.store import open_store

    return open_store(resolve_paths().database)


# -- review ---------------------------------------------------------------------------------------------


def cmd_sessions(args: argparse.Namespace) -> int:
    from opsassist import render

    store = _open_store()
    sessions = store.list_sessions(limit=args.limit)
    if args.json:
        _print_json([render.session_json(s) for s in sessions])
    else:
        render.print_renderable(render.sessions_table(sessions))
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from opsassist import render

    store = _open_store()
    session_id = store.resolve_session(args.id)
    if args.json:
        _print_json(render.session_document(store, session_id))
    else:
        render.print_renderable(render.transcript(store, session_id))
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    from opsassist import render

    store = _open_store()
    hits = store.search(args.query, limit=args.limit)
    if args.json:
        _print_json([render.hit_json(h) for h in hits])
    else:
        render.print_renderable(render.search_table(args.query, hits))
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from opsassist import render

    store = _open_store()
    session_id = store.resolve_session(args.id)
    if args.format == "json":
        _print_json(render.session_document(store, session_id))
    else:
        sys.stdout.write(render.export_markdown(store, session_id))
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    from opsassist.guard.rules import derive_rules_for_store
    from opsassist.store.importer import import_records, parse_jsonl

    path = Path(args.file)
    records = parse_jsonl(path)  # checks the whole file before opening the database
    store = _open_store()
    session_id = import_records(store, records, title=args.title or path.stem, derive_rules=derive_rules_for_store)
    print(session_id)
    return EXIT_OK


def cmd_context(args: argparse.Namespace) -> int:
    from opsassist import render
    from opsassist.agent.llm import FALLBACK_TOKEN_MODEL, token_counter
    from opsassist.agent.session_context import compile_session
    from opsassist.config import load_settings

    settings = load_settings().settings
    store = _open_store()
    session_id = store.resolve_session(args.id)
    token_model = settings.model or FALLBACK_TOKEN_MODEL
    compiled = compile_session(
        store, session_id, settings, token_counter(token_model), token_model=token_model, query=args.query
    )
    if args.json:
        _print_json(render.context_json(session_id, token_model, compiled))
    else:
        render.print_renderable(render.context_view(session_id, token_model, compiled))
    return EXIT_OK


# -- guard --------------------------------------------------------------------------------------------


class _PinAction(argparse.Action):
    """`--pin TEXT` starts a pin; `--pattern RE` attaches an explicit pattern to the pin before it."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        pins = list(getattr(namespace, "pins", None) or [])
        if option_string == "--pin":
            pins.append({"text": values, "patterns": []})
        elif not pins:
            parser.error("--pattern must follow the --pin it belongs to")
        else:
            pins[-1]["patterns"].append(values)
        namespace.pins = pins


def _guard_pins(args: argparse.Namespace) -> list[Any]:
    from opsassist.guard import PinRules
    from opsassist.guard.rules import check_pattern

    pins: list[PinRules] = []
    if args.session:
        store = _open_store()
        session_id = store.resolve_session(args.session)
        messages = {m.id: m for m in store.messages(session_id)}
        for pin in store.pins(session_id):
            pins.append(PinRules.from_text(pin.id, messages[pin.message_id].content, pin.patterns))
    next_id = max((p.pin_id for p in pins), default=0) + 1
    for offset, spec in enumerate(args.pins or []):
        for pattern in spec["patterns"]:
            problem = check_pattern(pattern)
            if problem:
                raise UsageError(f"--pattern {pattern!r}: {problem}")
        pins.append(PinRules.from_text(next_id + offset, spec["text"], spec["patterns"]))
    return pins


def _guard_commands(args: argparse.Namespace) -> list[str]:
    if sum(x is not None and x != [] for x in (args.command_words or None, args.batch, args.jsonl)) != 1:
        raise UsageError("give exactly one of: -- COMMAND, --batch FILE, --jsonl FILE")
    if args.command_words:
        # One argument is a whole command line as typed; several are argv the calling shell already split.
        words = args.command_words
        return [words[0] if len(words) == 1 else shlex.join(words)]
    path = args.batch or args.jsonl
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if args.batch:
        return [line for line in text.split("\n") if line.strip()]
    commands = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{number}: malformed JSON: {exc.msg}") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("command"), str):
            raise UsageError(f'{path}:{number}: expected {{"command": "..."}}')
        commands.append(obj["command"])
    return commands


def cmd_guard_check(args: argparse.Namespace) -> int:
    from opsassist import render
    from opsassist.guard import check_command

    commands = _guard_commands(args)
    pins = _guard_pins(args)
    if not args.json:
        for pin in pins:
            if not pin.rules:
                render.print_renderable(render.ruleless_pin_warning(pin.pin_id, pin.text))
    for command in commands:
        verdict = check_command(command, pins)
        if args.json:
            sys.stdout.write(json.dumps(verdict.to_dict(), ensure_ascii=False) + "\n")
        else:
            render.print_renderable(render.verdict_view(verdict))
    return EXIT_OK


def cmd_guard_explain(args: argparse.Namespace) -> int:
    from opsassist import render
    from opsassist.guard.explain import explain_pin
    from opsassist.guard.rules import check_pattern

    for pattern in args.pattern or []:
        problem = check_pattern(pattern)
        if problem:
            raise UsageError(f"--pattern {pattern!r}: {problem}")
    explanations = explain_pin(args.text, args.pattern)
    if args.json:
        _print_json(render.explanations_json(args.text, explanations))
    else:
        render.print_renderable(render.explanations_view(args.text, explanations))
    return EXIT_OK


# -- the agent --------------------------------------------------------------------------------------------


def _agent_parts(session_arg: str | None, title: str | None = None) -> tuple[Any, Any, str]:
    from opsassist.config import load_settings

    loaded = load_settings()
    store = _open_store()
    session_id = store.resolve_session(session_arg) if session_arg else store.create_session(title)
    return loaded, store, session_id


def cmd_ask(args: argparse.Namespace) -> int:
    import asyncio

    from opsassist import render
    from opsassist.agent.llm import token_counter
    from opsassist.agent.loop import AgentLoop
    from opsassist.agent.model import ModelConfig, ModelError
    from opsassist.gateway import open_gateway

    loaded, store, session_id = _agent_parts(args.session)
    try:
        model = ModelConfig.from_settings(loaded.settings, args.model, args.api_base)
    except ModelError as exc:
        raise UsageError(str(exc)) from None
    loop = AgentLoop(
        store,
        session_id,
        loaded.settings,
        open_gateway(store, session_id, loaded),
        model,
        token_counter(model.model),
        model.model,
    )

    async def run() -> int:
        failed = False
        async for event in loop.run_turn(args.prompt):
            if args.json:
                sys.stdout.write(json.dumps({**event.to_dict(), "session_id": session_id}, ensure_ascii=False) + "\n")
                sys.stdout.flush()
            else:
                render.print_event(event)
            failed = failed or (event.type == "error" and bool(event.data.get("fatal")))
        if not args.json:
            print(f"\nsession {session_id}", file=sys.stderr)
        return 1 if failed else EXIT_OK

    return asyncio.run(run())


def cmd_approvals(args: argparse.Namespace) -> int:
    from opsassist import render

    store = _open_store()
    session_id = store.resolve_session(args.session) if args.session else None
    rows = store.approvals(session_id, status="pending")
    if args.json:
        _print_json(rows)
    else:
        render.print_renderable(render.approvals_table(rows))
    return EXIT_OK


def _decide(args: argparse.Namespace, approve: bool) -> int:
    from opsassist import render
    from opsassist.gateway import open_gateway

    store = _open_store()
    row = store.approval(args.id)
    if row is None:
        raise UsageError(f"no held action with id '{args.id}' (see 'opsassist approvals')")
    from opsassist.config import load_settings

    gateway = open_gateway(store, row["session_id"], load_settings())
    if approve:
        result = gateway.approve(args.id)
        if args.json:
            _print_json({"approval_id": args.id, "status": "executed", "result": result})
        else:
            render.print_renderable(render.approval_result(args.id, row["summary"], result))
    else:
        gateway.deny(args.id)
        if args.json:
            _print_json({"approval_id": args.id, "status": "denied"})
        else:
            print(f"denied {args.id}: {row['summary']}")
    return EXIT_OK


def cmd_approve(args: argparse.Namespace) -> int:
    return _decide(args, approve=True)


def cmd_deny(args: argparse.Namespace) -> int:
    return _decide(args, approve=False)


def cmd_reminders(args: argparse.Namespace) -> int:
    from opsassist import render

    rows = _open_store().reminders()
    if args.json:
        _print_json(rows)
    else:
        render.print_renderable(render.reminders_table(rows))
    return EXIT_OK


# -- front ends -------------------------------------------------------------------------------------------


def cmd_chat(args: argparse.Namespace) -> int:
    from opsassist.config import load_settings

    loaded = load_settings()  # a bad config is a one-line error before any screen is drawn
    session_id = None
    if args.session:
        session_id = _open_store().resolve_session(args.session)
    if args.plain:
        from opsassist.plain import run_plain

        return run_plain(loaded, session_id)
    from opsassist.tui.app import OpsAssistApp

    OpsAssistApp(loaded, session_id).run()
    return EXIT_OK


# -- settings -------------------------------------------------------------------------------------------


def cmd_config(args: argparse.Namespace) -> int:
    from opsassist.config import Settings, load_settings

    loaded = load_settings()
    values = loaded.settings.model_dump()
    if args.json:
        _print_json(
            {
                "paths": {
                    "config_file": str(loaded.paths.config_file),
                    "database": str(loaded.paths.database),
                },
                "settings": {k: {"value": values[k], "source": loaded.sources[k]} for k in values},
            }
        )
        return EXIT_OK
    from rich.table import Table
    from rich.text import Text

    from opsassist.render import print_renderable

    table = Table(title="Effective settings", title_justify="left")
    table.add_column("setting", style="bold", no_wrap=True)
    table.add_column("value")
    table.add_column("from", style="dim")
    table.add_column("meaning", style="dim")
    for name, field in Settings.model_fields.items():
        table.add_row(name, Text(repr(values[name])), loaded.sources[name], field.description or "")
    print_renderable(table)
    print(f"config file: {loaded.paths.config_file}{'' if loaded.paths.config_file.exists() else ' (absent)'}")
    print(f"database:    {loaded.paths.database}")
    return EXIT_OK


# -- the parser ---------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="opsassist", description="A terminal chat assistant for SREs working an incident.")
    from opsassist import __version__

    parser.add_argument("--version", action="version", version=f"opsassist {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("chat", help="the chat (the TUI; --plain for a line mode)")
    p.add_argument("--plain", action="store_true", help="plain line mode instead of the TUI")
    p.add_argument("--session", metavar="ID", help="resume this session")
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("sessions", help="list sessions, newest activity first")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--limit", type=int, default=None, help="show at most N sessions")
    p.set_defaults(func=cmd_sessions)

    p = sub.add_parser("show", help="print one session: pins, messages, verdicts, approvals")
    p.add_argument("id", help="session id or a unique prefix of it")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("search", help="full-text search over every message")
    p.add_argument("query", help="words that must all appear")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--limit", type=int, default=20, help="at most N hits (default 20)")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("export", help="export a session as a Markdown timeline or JSON")
    p.add_argument("id", help="session id or a unique prefix of it")
    p.add_argument("--format", choices=("md", "json"), default="md")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="import a JSONL transcript as a new session; prints its id")
    p.add_argument("file", help="one JSON object a line: role, content, pinned?, created_at?")
    p.add_argument("--title", help="session title (default: the file name)")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("config", help="show the effective settings and where each came from")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_config)

    p = sub.add_parser("context", help="show exactly what the model would receive next, with weights and tokens")
    p.add_argument("id", help="session id or a unique prefix of it")
    p.add_argument("--query", help="compile as if this were the next user message")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_context)

    p = sub.add_parser("ask", help="one turn with the model, non-interactively")
    p.add_argument("prompt", help="what to ask")
    p.add_argument("--session", metavar="ID", help="continue this session (default: a new one)")
    p.add_argument("--model", help="litellm model string (overrides the setting)")
    p.add_argument("--api-base", help="base URL of an OpenAI-compatible server")
    p.add_argument("--json", action="store_true", help="one JSON event a line")
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("approvals", help="list actions held for approval")
    p.add_argument("--session", metavar="ID", help="only this session's")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_approvals)
    for name, func, text in (
        ("approve", cmd_approve, "approve a held action; it runs then"),
        ("deny", cmd_deny, "deny a held action"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("id", help="the approval id (ap-...)")
        p.add_argument("--json", action="store_true", help="print JSON")
        p.set_defaults(func=func)

    p = sub.add_parser("reminders", help="list reminders created by scheduled_jobs")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_reminders)

    guard = sub.add_parser("guard", help="check commands against pinned red lines")
    guard_sub = guard.add_subparsers(dest="guard_command", metavar="SUBCOMMAND", parser_class=_Parser, required=True)
    p = guard_sub.add_parser("check", help="the verdict for each command: allow, approve or block")
    p.add_argument("--pin", action=_PinAction, dest="pins", metavar="TEXT", help="a red line, as pinned text")
    p.add_argument(
        "--pattern",
        action=_PinAction,
        dest="pins",
        metavar="REGEX",
        help="an explicit pattern attached to the --pin before it",
    )
    p.add_argument("--session", metavar="ID", help="also use the active pins of this session")
    p.add_argument("--json", action="store_true", help="one JSON verdict a line")
    p.add_argument("--batch", metavar="FILE", help="one command a line ('-' for stdin)")
    p.add_argument("--jsonl", metavar="FILE", help='one {"command": ...} a line, for multi-line commands')
    p.add_argument("command_words", nargs="*", metavar="-- COMMAND", help="the command, after --")
    p.set_defaults(func=cmd_guard_check)
    p = guard_sub.add_parser("explain", help="the rules a pin's text yields, with checked examples")
    p.add_argument("text", help="the pin's text")
    p.add_argument("--pattern", action="append", metavar="REGEX", help="an explicit pattern attached to it")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_guard_explain)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["chat"])
    try:
        return int(args.func(args))
    except OpsassistError as exc:
        print(f"opsassist: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # `opsassist export ID | head` closing the pipe early is not an error.
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
