"""Command-line entry points (contracts in DESIGN.md).

Start-up is a feature: this module imports only the standard library at the top; each command imports
what it needs, and no review command loads litellm or Textual. Bad input exits 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
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
    from opsassist import review

    store = _open_store()
    sessions = store.list_sessions(limit=args.limit)
    if args.json:
        _print_json([review.session_json(s) for s in sessions])
    else:
        review.print_renderable(review.sessions_table(sessions))
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    from opsassist import review

    store = _open_store()
    session_id = store.resolve_session(args.id)
    if args.json:
        _print_json(review.session_document(store, session_id))
    else:
        review.print_renderable(review.transcript(store, session_id))
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    from opsassist import review

    store = _open_store()
    hits = store.search(args.query, limit=args.limit)
    if args.json:
        _print_json([review.hit_json(h) for h in hits])
    else:
        review.print_renderable(review.search_table(args.query, hits))
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from opsassist import review

    store = _open_store()
    session_id = store.resolve_session(args.id)
    if args.format == "json":
        _print_json(review.session_document(store, session_id))
    else:
        sys.stdout.write(review.export_markdown(store, session_id))
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    from opsassist.store.importer import import_records, parse_jsonl

    path = Path(args.file)
    records = parse_jsonl(path)  # checks the whole file before opening the database
    store = _open_store()
    session_id = import_records(store, records, title=args.title or path.stem, derive_rules=_rule_deriver())
    print(session_id)
    return EXIT_OK


def _rule_deriver() -> Callable[[str], tuple[list[dict[str, Any]], list[str]]] | None:
    """The guard's rule derivation, when the guard is installed (it is pure: text in, rules out)."""
    try:
        from opsassist.guard.rules import derive_rules_for_store
    except ImportError:
        return None
    return derive_rules_for_store


def cmd_context(args: argparse.Namespace) -> int:
    from opsassist import review
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
        _print_json(review.context_json(session_id, token_model, compiled))
    else:
        review.print_renderable(review.context_view(session_id, token_model, compiled))
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

    from opsassist.review import print_renderable

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

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        args = parser.parse_args(["sessions"])
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
