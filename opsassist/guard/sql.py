"""What a piece of SQL would do, judged by parsing it (sqlglot), not by grepping it.

`SELECT count(*) FROM orders WHERE status = 'deleted'` reads; `WITH d AS (DELETE ...) SELECT ...` deletes.
Traps handled before parsing: MySQL executable comments (`/*!50000 DROP TABLE t */` runs on MySQL, and
sqlglot reads it as nothing), comment-split keywords (`DR/**/OP`), `EXPLAIN` (reads, unless `ANALYZE`,
which executes the statement), and psql meta-commands (`\\dt` reads, `\\i file` runs unseen SQL, `\\! cmd`
runs a shell command).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

# Statement verbs that change data, schema, privileges or server state.
WRITE_VERBS = frozenset(
    [
        "DROP",
        "DELETE",
        "TRUNCATE",
        "UPDATE",
        "INSERT",
        "ALTER",
        "CREATE",
        "GRANT",
        "REVOKE",
        "MERGE",
        "REPLACE",
        "UPSERT",
        "COPY",
        "VACUUM",
        "REINDEX",
        "CLUSTER",
        "LOCK",
        "COMMENT",
        "REFRESH",
        "RENAME",
        "CALL",
        "DO",
        "LOAD",
        "IMPORT",
        "OPTIMIZE",
        "KILL",
        "SHUTDOWN",
        "FLUSH",
        "PURGE",
        "RESET",
        "ANALYZE",
        "DISCARD",
    ]
)
READ_VERBS = frozenset(
    ["SELECT", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "VALUES", "TABLE", "WITH", "PRAGMA", "HELP", "USE"]
)
NEUTRAL_VERBS = frozenset(["BEGIN", "START", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE", "SET"])
# Functions that act on the server even inside a SELECT.
WRITE_FUNCTIONS = frozenset(
    [
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "set_config",
        "nextval",
        "setval",
        "lo_unlink",
        "pg_drop_replication_slot",
        "dblink_exec",
        "pg_promote",
        "pg_switch_wal",
        "pg_wal_replay_pause",
        "pg_wal_replay_resume",
    ]
)
READ_META = re.compile(
    r"^\\(?:d[a-zA-Z+]*|l\+?|list|conninfo|x|timing|pset|encoding|echo|q|\?|h|copyright|dn|du|dp|z|sf|sv|watch)\b"
)

_MYSQL_EXEC_COMMENT = re.compile(r"/\*!\d*\s?(.*?)\*/", re.DOTALL)
_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_LINE_COMMENT = re.compile(r"--[^\n]*|#[^\n]*")
_STRINGS = re.compile(r"'(?:[^']|'')*'|\$(\w*)\$.*?\$\1\$", re.DOTALL)
_WORD = re.compile(r"[A-Za-z_]+")
_EXPLAIN = re.compile(
    r"^\s*EXPLAIN\b(?P<opts>\s*\([^)]*\)|(?:\s+(?:ANALYZE|ANALYSE|VERBOSE|COSTS|BUFFERS|FORMAT\s+\w+|QUERY\s+PLAN))*)\s*(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)

logging.getLogger("sqlglot").setLevel(logging.ERROR)


@dataclass
class SqlReport:
    verbs: list[str] = field(default_factory=list)
    """Write verbs found (DROP, DELETE, ...), in order, deduplicated."""
    reads: bool = False
    functions: list[str] = field(default_factory=list)
    """Server-acting functions called (pg_terminate_backend, ...)."""
    shell: list[str] = field(default_factory=list)
    """Shell commands the SQL client would run (psql `\\!`, sqlite `.shell`)."""
    unverifiable: str | None = None

    def add_verb(self, verb: str) -> None:
        if verb not in self.verbs:
            self.verbs.append(verb)

    @property
    def writes(self) -> bool:
        return bool(self.verbs or self.functions)


def split_statements(sql: str) -> list[str]:
    """Split on semicolons outside quotes and dollar-quoted bodies."""
    out, buf, quote, i = [], [], "", 0
    while i < len(sql):
        ch = sql[i]
        if quote:
            buf.append(ch)
            if sql.startswith(quote, i):
                buf.extend(quote[1:])
                i += len(quote)
                quote = ""
                continue
        elif ch in "'\"`":
            quote = ch
            buf.append(ch)
        elif ch == "$" and (m := re.match(r"\$\w*\$", sql[i:])):
            quote = m.group()
            buf.append(quote)
            i += len(quote)
            continue
        elif ch == ";":
            out.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    out.append("".join(buf))
    return [s.strip() for s in out if s.strip()]


def _leading_keyword(statement: str) -> str:
    text = _LINE_COMMENT.sub(" ", _COMMENT.sub(" ", statement)).strip().lstrip("(")
    match = _WORD.match(text)
    return match.group().upper() if match else ""


def _scan_keywords(statement: str, report: SqlReport) -> None:
    """Conservative fallback for what the parser cannot structure: any write verb anywhere counts."""
    found = False
    for word in _WORD.findall(_LINE_COMMENT.sub(" ", statement)):
        upper = word.upper()
        if upper in WRITE_VERBS and upper not in ("ANALYZE", "RESET", "COMMENT", "END"):
            report.add_verb(upper)
            found = True
    lowered = statement.lower()
    for function in WRITE_FUNCTIONS:
        if function in lowered:
            report.functions.append(function)
            found = True
    if not found:
        report.reads = True


def _parse_into(statement: str, dialect: str, report: SqlReport) -> bool:
    """Classify one statement with sqlglot; False if it could not be parsed."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        trees = sqlglot.parse(statement, read=dialect)
    except (SqlglotError, RecursionError, ValueError):
        return False
    nodes = {
        exp.Drop: "DROP",
        exp.Delete: "DELETE",
        exp.TruncateTable: "TRUNCATE",
        exp.Update: "UPDATE",
        exp.Insert: "INSERT",
        exp.Alter: "ALTER",
        exp.Create: "CREATE",
        exp.Grant: "GRANT",
        exp.Merge: "MERGE",
        exp.Copy: "COPY",
    }
    for tree in trees:
        if tree is None:
            continue
        if isinstance(tree, exp.Command):
            keyword = str(tree.this).upper()
            if keyword in READ_VERBS:
                report.reads = True
            elif keyword in NEUTRAL_VERBS:
                pass
            else:
                _scan_keywords(statement, report)
                if keyword in WRITE_VERBS:
                    report.add_verb(keyword)
            continue
        known = False
        for node_type, verb in nodes.items():
            for node in tree.find_all(node_type):
                known = True
                if verb == "COPY" and not node.args.get("kind"):
                    report.reads = True  # COPY ... TO: an export
                    continue
                report.add_verb(verb)
        if isinstance(tree, exp.Merge) and re.search(r"\bTHEN\s+DELETE\b", statement, re.IGNORECASE):
            report.add_verb("DELETE")
        if isinstance(tree, exp.Select) and tree.args.get("into"):
            report.add_verb("CREATE")
        for func in tree.find_all(exp.Anonymous, exp.Func):
            name = (func.name or "").lower()
            if name in WRITE_FUNCTIONS and name not in report.functions:
                report.functions.append(name)
        if isinstance(tree, exp.Pragma) and "=" in statement:
            report.add_verb("PRAGMA")
        elif isinstance(tree, exp.Query | exp.Show | exp.Describe | exp.Pragma | exp.Use):
            report.reads = True
        elif isinstance(tree, exp.Set | exp.Transaction):
            pass
        elif not known:
            return False  # parsed as a bare expression, not a statement: judge it by its keyword
    return True


def _statement(statement: str, dialect: str, report: SqlReport) -> None:
    stripped = statement.strip()
    if stripped.startswith("\\"):
        _meta_command(stripped, report)
        return
    if stripped.startswith(".") and dialect == "sqlite":
        _sqlite_dot_command(stripped, report)
        return
    explain = _EXPLAIN.match(stripped)
    if explain:
        if re.search(r"\bANALY[SZ]E\b", explain.group("opts"), re.IGNORECASE):
            _statement(explain.group("rest"), dialect, report)  # EXPLAIN ANALYZE executes the statement
        else:
            report.reads = True
        return
    keyword = _leading_keyword(stripped)
    if keyword in NEUTRAL_VERBS and keyword != "SET":
        return
    if not _parse_into(stripped, dialect, report):
        if keyword in WRITE_VERBS:
            report.add_verb(keyword)
        elif keyword in READ_VERBS:
            _scan_keywords(stripped, report)
        else:
            report.unverifiable = f"SQL that could not be parsed: {stripped[:80]!r}"


def _meta_command(command: str, report: SqlReport) -> None:
    if command.startswith("\\!"):
        report.shell.append(command[2:].strip())
    elif re.match(r"\\(?:i|ir|include|include_relative|o|out|w|write|copy|g\s*\|)", command):
        if command.startswith("\\copy") and re.search(r"\bfrom\b", command, re.IGNORECASE):
            report.add_verb("COPY")
        elif command.startswith("\\copy"):
            report.reads = True
        else:
            report.unverifiable = f"psql meta-command {command.split()[0]} runs or writes content that is not seen"
    elif READ_META.match(command):
        report.reads = True
    else:
        report.unverifiable = f"unknown psql meta-command {command.split()[0]}"


def _sqlite_dot_command(command: str, report: SqlReport) -> None:
    name = command.split()[0]
    if name in (".shell", ".system"):
        report.shell.append(command[len(name) :].strip())
    elif name in (".read", ".import", ".restore", ".load"):
        report.unverifiable = f"sqlite {name} runs or loads content that is not seen"
    elif name in (".output", ".once", ".save", ".backup", ".excel"):
        report.add_verb("WRITE FILE")
    else:
        report.reads = True


def analyse_sql(sql: str, dialect: str = "postgres") -> SqlReport:
    """Every write verb and server-acting function in `sql`, or why it could not be judged."""
    report = SqlReport()
    unwrapped = _MYSQL_EXEC_COMMENT.sub(r" \1 ", sql)
    variants = [unwrapped]
    # `DR/**/OP`: a comment inside a keyword; judge the text with comments removed as well.
    joined = _COMMENT.sub("", unwrapped)
    if joined != unwrapped:
        variants.append(joined)
    for variant in variants:
        lines = []
        for statement in _statements_with_meta(variant):
            lines.append(statement)
        for statement in lines:
            _statement(statement, dialect, report)
    if report.unverifiable and report.writes:
        report.unverifiable = None  # a known write decides the verdict already
    return report


def _statements_with_meta(sql: str) -> list[str]:
    """psql meta-commands end at the end of their line; everything else splits on semicolons."""
    out: list[str] = []
    buffer: list[str] = []
    for line in sql.split("\n"):
        if line.lstrip().startswith("\\") or (line.lstrip().startswith(".") and not buffer):
            if buffer:
                out.extend(split_statements("\n".join(buffer)))
                buffer = []
            out.append(line.strip())
        else:
            buffer.append(line)
    if buffer:
        out.extend(split_statements("\n".join(buffer)))
    return out
