"""Parse a shell command line into the simple commands that would actually run.

tree-sitter-bash does the parsing; this module walks the tree and produces `Invocation`s: argv after quote
removal (`k'i'll` -> `kill`, `\\kill` -> `kill`, `$'\\x6b'` -> `k`), with every part that is only known at
run time replaced by DYNAMIC, plus where the command's standard input comes from (a heredoc, a here-string,
the output of `echo` earlier in a pipeline, or something unseen) and which files it redirects output to.
Command substitutions, subshells, lists and pipelines are walked: each command inside runs, so each is
judged. tree-sitter always returns a tree, even after a syntax error, and parts of the command can vanish
from it; any error makes the whole line unverifiable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

DYNAMIC = "\ufffc"
"""Stands in for any part of a word that is only known at run time ($VAR, $(...), `...`)."""

_DYNAMIC_NODES = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion"}
)
_HARMLESS_SINKS = re.compile(r"^(/dev/null|/dev/stdout|/dev/stderr|/dev/tty|&?-?\d*|&-)$")
_ANSI_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "e": "\x1b",
    "E": "\x1b",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


@dataclass
class Stdin:
    """Where a command reads its standard input from."""

    text: str | None
    """The content, when it is in the command line itself (heredoc, here-string, `echo ... |`)."""
    source: str
    """Human wording: 'a heredoc', 'the output of cat', 'file dump.sql'."""


@dataclass
class Invocation:
    argv: list[str]
    text: str
    """The command as written (source text), for messages."""
    stdin: Stdin | None = None
    writes: list[str] = field(default_factory=list)
    """Files its output is redirected into."""
    via: tuple[str, ...] = ()
    """Wrappers it runs inside, outermost first (`ssh db-prod-3`, `sudo`, `bash -c`)."""
    substituted: list[list[str]] = field(default_factory=list)
    """argv of the commands inside its arguments' substitutions: `kill $(pgrep core-gateway)`."""
    assignments: list[tuple[str, str]] = field(default_factory=list)
    """Variables set for this command (`PAGER='...' man ls`): some of them name a program that will run."""


@dataclass
class ParsedLine:
    invocations: list[Invocation]
    error: str | None = None


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def _text(node: Any) -> str:
    return node.text.decode("utf-8", errors="replace")


def _unescape_word(raw: str) -> str:
    out, i = [], 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _ansi_c(raw: str) -> str:
    body = raw[2:-1]
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt in _ANSI_ESCAPES:
            out.append(_ANSI_ESCAPES[nxt])
            i += 2
        elif nxt == "x" and (m := re.match(r"[0-9a-fA-F]{1,2}", body[i + 2 :])):
            out.append(chr(int(m.group(), 16)))
            i += 2 + len(m.group())
        elif nxt in "uU" and (m := re.match(r"[0-9a-fA-F]{1,8}", body[i + 2 :])):
            out.append(chr(min(int(m.group(), 16), 0x10FFFF)))
            i += 2 + len(m.group())
        elif nxt in "01234567" and (m := re.match(r"[0-7]{1,3}", body[i + 1 :])):
            out.append(chr(int(m.group(), 8)))
            i += 1 + len(m.group())
        elif nxt == "c" and i + 2 < len(body):
            out.append(chr(ord(body[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + nxt)
            i += 2
    return "".join(out)


def _double_quoted(node: Any) -> str:
    parts = []
    for child in node.children:
        if child.type in ('"',):
            continue
        if child.type in _DYNAMIC_NODES:
            parts.append(DYNAMIC)
        elif child.type == "string_content":
            parts.append(re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), _text(child)))
        else:
            parts.append(_text(child))
    return "".join(parts)


def word_value(node: Any) -> str:
    """The word after quote removal; run-time parts become DYNAMIC."""
    kind = node.type
    if kind in _DYNAMIC_NODES:
        return DYNAMIC
    if kind == "raw_string":
        return _text(node)[1:-1]
    if kind == "ansi_c_string":
        return _ansi_c(_text(node))
    if kind == "string":
        return _double_quoted(node)
    if kind == "translated_string":
        return _double_quoted(node.children[-1]) if node.children else ""
    if kind == "concatenation":
        return "".join(word_value(child) for child in node.children)
    if kind in ("word", "number"):
        return _unescape_word(_text(node))
    if kind == "command_name":
        return "".join(word_value(child) for child in node.children)
    if kind == "brace_expression":
        return _text(node)
    return _unescape_word(_text(node))


def _assignment(node: Any) -> tuple[str, str]:
    """(name, value) of `NAME=value`; the value after quote removal, DYNAMIC where only known at run time."""
    name = ""
    value = ""
    seen_equals = False
    for child in node.children:
        if child.type == "variable_name" and not seen_equals:
            name = _text(child)
        elif child.type == "=":
            seen_equals = True
        elif seen_equals:
            value += word_value(child)
    return name, value


class _Walker:
    def __init__(self, source: str, via: tuple[str, ...]) -> None:
        self.source = source
        self.via = via
        self.invocations: list[Invocation] = []
        self.defines_function = False

    # Each walk returns the invocations it produced for that node, so redirects can be attached.
    def walk(self, node: Any, stdin: Stdin | None = None) -> list[Invocation]:
        kind = node.type
        if kind == "command":
            return self.command(node, stdin)
        if kind == "pipeline":
            return self.pipeline(node, stdin)
        if kind == "redirected_statement":
            return self.redirected(node, stdin)
        if kind in _DYNAMIC_NODES or kind == "comment":
            return self.substitutions(node)
        if kind == "function_definition":
            self.defines_function = True
        if kind == "variable_assignment":
            # `PAGER='kill -9 1'; man ls`: a variable set for the rest of the line may name a program.
            name, value = _assignment(node)
            self.invocations.append(Invocation(argv=[], text=_text(node), via=self.via, assignments=[(name, value)]))
            return self.substitutions(node)
        produced: list[Invocation] = []
        for child in node.children:
            produced += self.walk(child, stdin)
        return produced

    def substitutions(self, node: Any) -> list[Invocation]:
        """Commands inside $(...), `...` and <(...) run too."""
        produced: list[Invocation] = []
        if node.type in ("command_substitution", "process_substitution"):
            for child in node.children:
                produced += self.walk(child)
            return produced
        for child in node.children:
            produced += self.substitutions(child)
        return produced

    def command(self, node: Any, stdin: Stdin | None) -> list[Invocation]:
        argv: list[str] = []
        inner: list[Invocation] = []
        writes: list[str] = []
        substituted: list[list[str]] = []
        assignments: list[tuple[str, str]] = []
        for child in node.children:
            kind = child.type
            if kind == "variable_assignment":
                inner += self.substitutions(child)
                assignments.append(_assignment(child))
            elif kind == "herestring_redirect":
                value = "".join(word_value(c) for c in child.children if c.type != "<<<")
                stdin = Stdin(value + "\n", "a here-string")
            elif kind == "file_redirect":
                writes += self._redirect(child, stdin_holder := [stdin])
                stdin = stdin_holder[0]
                inner += self.substitutions(child)
            elif (
                kind
                in (
                    "command_name",
                    "word",
                    "string",
                    "raw_string",
                    "concatenation",
                    "number",
                    "ansi_c_string",
                    "translated_string",
                    "brace_expression",
                )
                or kind in _DYNAMIC_NODES
            ):
                argv.append(word_value(child))
                made = self.substitutions(child)
                substituted += [m.argv for m in made if m.argv]
                inner += made
            elif kind == "comment":
                continue
            else:
                inner += self.substitutions(child)
        produced = list(inner)
        if argv:
            invocation = Invocation(
                argv=argv,
                text=_text(node),
                stdin=stdin,
                writes=writes,
                via=self.via,
                substituted=substituted,
                assignments=assignments,
            )
            self.invocations.append(invocation)
            produced.append(invocation)
        return produced

    def _redirect(self, node: Any, stdin_holder: list[Stdin | None]) -> list[str]:
        operator = ""
        target = ""
        for child in node.children:
            if child.type in (">", ">>", "&>", "&>>", ">|", "<", "<&", ">&", "<>"):
                operator = child.type
            elif child.type != "file_descriptor":
                target = word_value(child)
        if operator == "<":
            stdin_holder[0] = Stdin(None, f"file {target}")
            return []
        if operator in (">&", "<&") and re.fullmatch(r"\d+|-", target):
            return []
        if _HARMLESS_SINKS.match(target):
            return []
        return [target]

    def redirected(self, node: Any, stdin: Stdin | None) -> list[Invocation]:
        body = None
        writes: list[str] = []
        # tree-sitter-bash hangs whatever follows `<<EOF` on the same line (`| psql`, `&& rm x`) inside the
        # heredoc node; it runs after the command that owns the heredoc.
        after: list[Any] = []
        for child in node.children:
            if child.type == "heredoc_redirect":
                for part in child.children:
                    if part.type == "file_redirect":
                        holder: list[Stdin | None] = [None]
                        writes += self._redirect(part, holder)
                        after.append(part)
                    elif part.type in ("pipeline", "list", "command", "redirected_statement", "subshell"):
                        after.append(part)
                stdin = Stdin(self._heredoc_body(child), "a heredoc")
            elif child.type == "herestring_redirect":
                value = "".join(word_value(c) for c in child.children if c.type != "<<<")
                stdin = Stdin(value + "\n", "a here-string")
            elif child.type == "file_redirect":
                holder = [stdin]
                writes += self._redirect(child, holder)
                stdin = holder[0]
                after.append(child)
            elif body is None:
                body = child
        produced = self.walk(body, stdin) if body is not None else []
        commands = [p for p in produced if p.argv]
        if commands and writes:
            commands[-1].writes.extend(writes)
        for part in after:
            if part.type == "pipeline" and part.children and part.children[0].type in ("|", "|&"):
                produced += self.pipeline(part, stdout_of(commands[-1]) if commands else None)
            else:
                produced += self.walk(part)
        return produced

    def _heredoc_body(self, node: Any) -> str:
        """The body, cut from the source text itself: tree-sitter sometimes parses a body into words and
        leaves its heredoc_body empty (`<<-EOF` with a backslash), which would hide what the body runs."""
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        end = next((c for c in node.children if c.type == "heredoc_end"), None)
        if start is None:
            return ""
        raw = self.source.encode("utf-8")
        body_start = raw.find(b"\n", start.end_byte)
        if body_start < 0:
            return ""
        body = raw[body_start + 1 : end.start_byte if end is not None else len(raw)].decode("utf-8", "replace")
        if any(c.type == "<<-" for c in node.children):
            body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
        return body

    def pipeline(self, node: Any, stdin: Stdin | None) -> list[Invocation]:
        produced: list[Invocation] = []
        current = stdin
        for child in node.children:
            if child.type in ("|", "|&"):
                continue
            made = self.walk(child, current)
            produced += made
            runs = [m for m in made if m.argv]
            current = stdout_of(runs[-1]) if runs else Stdin(None, "an earlier command")
        return produced


def stdout_of(invocation: Invocation) -> Stdin:
    """What a command writes to a pipe, when the command line itself says (echo, printf, cat <<EOF)."""
    argv = invocation.argv
    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    if name == "echo":
        args = argv[1:]
        while args and re.fullmatch(r"-[neE]+", args[0]):
            args = args[1:]
        return Stdin(" ".join(args) + "\n", "the output of echo")
    if name == "printf" and len(argv) >= 2:
        return Stdin(" ".join(argv[1:]), "the output of printf")
    if name == "cat" and len(argv) == 1 and invocation.stdin is not None:
        return Stdin(invocation.stdin.text, invocation.stdin.source)
    return Stdin(None, f"the output of {name or 'a command'}")


def _shield_astral(source: str) -> tuple[str, dict[int, str]] | None:
    """Swap characters outside the BMP for unused private-use BMP characters, and return the way back.

    tree-sitter-bash 0.25.1 can crash the whole process (SIGSEGV) on a `{` followed later by any 4-byte UTF-8
    character (tree-sitter/tree-sitter-bash#337). No such character means anything to the guard, so the
    parser never sees one. None if the line has more distinct ones than there are free stand-ins.
    """
    astral = sorted({ch for ch in source if ord(ch) > 0xFFFF})
    if not astral:
        return source, {}
    used = set(source)
    free = (chr(cp) for cp in range(0xE000, 0xF900) if chr(cp) not in used)
    forward: dict[int, str] = {}
    for ch in astral:
        stand_in = next(free, None)
        if stand_in is None:
            return None
        forward[ord(ch)] = stand_in
    back = {ord(stand_in): chr(cp) for cp, stand_in in forward.items()}
    return source.translate(forward), back


def _restore(invocation: Invocation, back: dict[int, str]) -> None:
    invocation.argv = [a.translate(back) for a in invocation.argv]
    invocation.text = invocation.text.translate(back)
    invocation.writes = [w.translate(back) for w in invocation.writes]
    invocation.substituted = [[a.translate(back) for a in argv] for argv in invocation.substituted]
    invocation.assignments = [(n, v.translate(back)) for n, v in invocation.assignments]
    if invocation.stdin is not None:
        text = invocation.stdin.text
        invocation.stdin = Stdin(
            None if text is None else text.translate(back), invocation.stdin.source.translate(back)
        )


def parse_line(source: str, via: tuple[str, ...] = ()) -> ParsedLine:
    """Every simple command in `source` that would run, or the reason the line cannot be verified."""
    if "\x00" in source:
        return ParsedLine([], "the command contains a NUL byte")
    if any("\ud800" <= ch <= "\udfff" for ch in source):
        return ParsedLine([], "the command contains text that is not valid Unicode (a lone surrogate)")
    shielded = _shield_astral(source)
    if shielded is None:
        return ParsedLine([], "the command has too many distinct characters outside the Basic Multilingual Plane")
    source, back = shielded
    tree = _parser().parse(source.encode("utf-8"))
    root = tree.root_node
    if root.has_error or _has_missing(root):
        return ParsedLine([], "the shell parser found a syntax error, so parts of the command may be hidden")
    walker = _Walker(source, via)
    walker.walk(root)
    if back:
        for invocation in walker.invocations:
            _restore(invocation, back)
    if walker.defines_function:
        # What a function runs depends on how and how often it is called (`:(){ :|:& };:`).
        return ParsedLine(walker.invocations, "the command defines a shell function")
    return ParsedLine(walker.invocations)


def _has_missing(node: Any) -> bool:
    if node.is_missing:
        return True
    return any(_has_missing(child) for child in node.children)
