"""Condensing an old message into a brief line that keeps what a later turn may point at.

The seed's sketch keeps the first 80 characters of the first line, which throws away the host, the PID and
the ticket that "the replica you mentioned earlier" refers to. Here a message becomes:

* a gist: its first sentence of prose, cut on a character (never mid-character) and preferably word boundary;
* for pasted logs and tables, their distinct signals: line count, time span, error codes and statuses with
  counts, the few values of low-cardinality fields (upstream, state, route);
* its identifiers: hosts, IPs, PIDs, ticket/change/request ids, error codes, paths, URLs, service and
  Kubernetes resource names; deduplicated, in order, within a small budget, with large families of
  look-alikes (a thousand request ids in a log) collapsed to the first two and a count.

Pure and cached by content: the same text always condenses to the same result.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

GIST_CHARS = 140
MAX_IDENTIFIERS = 14
FAMILY_KEEP = 2

# Order matters: at one position the first alternative that matches wins.
_IDENTIFIER = re.compile(
    r"""
    (?P<url>\bhttps?://[^\s'"<>()\]]+)
  | (?P<path>(?<![\w.:/~-])~?(?:/[\w.@+-]+){2,}/?)
  | (?P<uuid>\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b)
  | (?P<ip>\b(?:\d{1,3}\.){3}\d{1,3}(?::\d{1,5}|/\d{1,2})?\b)
  | (?P<k8s>\b(?:deploy|deployment|pod|po|svc|service|sts|statefulset|ds|daemonset|ns|namespace|node|job
               |cronjob|cm|configmap)/[\w.-]+)
  | (?P<procpid>\b[\w.-]+\[\d{2,7}\])
  | (?P<pid>\b(?:PID|pid)(?:[ =:#]\s?|\s)\d{2,7}\b)
  | (?P<ticket>\b[A-Z][A-Z0-9]{1,9}-\d{1,7}\b)
  | (?P<errcode>\b[A-Z][A-Z0-9]*_[A-Z0-9_]{2,}\b|\bE[A-Z]{4,}\b)
  | (?P<http>\bHTTP[ /]?[1-5]\d\d\b)
  | (?P<reqid>\b(?:req|request|trace|span|txn|job|task|build|run|order|cart)[-_][0-9A-Za-z]{4,}\b)
  | (?P<host>\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+(?:\.[a-z0-9-]+)*\b|\b[a-z][a-z0-9-]*(?:\.[a-z0-9-]+){2,}\b)
  | (?P<hex>\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{8,40}\b)
    """,
    re.VERBOSE,
)

# Hyphenated English that the host pattern would otherwise take for a service name.
_COMMON_COMPOUNDS = frozenset(
    [
        "read-only",
        "read-write",
        "in-flight",
        "follow-up",
        "e-mail",
        "re-run",
        "well-known",
        "up-to-date",
        "real-time",
        "long-running",
        "high-priority",
        "non-zero",
        "one-off",
        "built-in",
        "sign-off",
        "step-by-step",
        "opt-in",
        "opt-out",
        "so-called",
        "first-line",
        "last-resort",
        "on-call",
        "right-away",
        "full-text",
        "pre-execution",
        "post-incident",
        "x-ray",
        "tl-dr",
        "dry-run",
        "low-cardinality",
        "high-cardinality",
        "fail-over",
        "fail-closed",
        "self-healing",
        "rate-limit",
    ]
)

_TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}")
_KEY_VALUE = re.compile(r"\b([a-z_]{2,24})=(\"[^\"]*\"|\S+)")
_LEVEL = re.compile(r"\b(?:level=)?(ERROR|WARN(?:ING)?|FATAL|CRIT(?:ICAL)?|PANIC)\b", re.IGNORECASE)
_TABLE_RULE = re.compile(r"^[\s|+-]*-{3,}[\s|+-]*$")
_ROWS_FOOTER = re.compile(r"^\(\d+ rows?\)$")


@dataclass(frozen=True)
class Condensed:
    gist: str
    """The message's opening prose, short."""
    signals: str
    """For pasted logs and tables: their distinct signals; empty for prose."""
    identifiers: tuple[str, ...]
    """Identifiers a later turn may refer to, in order of first appearance."""


def _cut(text: str, limit: int) -> str:
    """Cut to at most `limit` characters on a word boundary if one is near, never inside a character."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = limit
    space = text.rfind(" ", int(limit * 0.6), limit)
    if space > 0:
        cut = space
    # Do not leave a combining mark without its base character.
    while cut > 0 and unicodedata.combining(text[cut]):
        cut -= 1
    return text[:cut].rstrip() + "…"


def _shape(identifier: str) -> str:
    """Identifiers of one family share a shape: `req-7f3a9c2e` and `req-0b1c2d3e` -> `req-#`."""
    return re.sub(r"[0-9a-f]{4,}|\d+", "#", identifier)


def extract_identifiers(text: str) -> list[str]:
    """Every identifier in `text`, deduplicated, in order of first appearance."""
    seen: dict[str, None] = {}
    for match in _IDENTIFIER.finditer(text):
        kind = match.lastgroup
        value = match.group()
        if kind == "host" and (value in _COMMON_COMPOUNDS or len(value) < 5):
            continue
        if kind == "path":
            value = value.rstrip("/.")
        seen.setdefault(value, None)
    return list(seen)


def collapse_families(identifiers: list[str], keep: int = FAMILY_KEEP) -> list[str]:
    """Keep the first `keep` of each large family of look-alike identifiers and say how many more there were."""
    families: dict[str, list[str]] = {}
    for ident in identifiers:
        families.setdefault(_shape(ident), []).append(ident)
    out: list[str] = []
    emitted: set[str] = set()
    for ident in identifiers:
        shape = _shape(ident)
        members = families[shape]
        if len(members) <= keep + 1:
            out.append(ident)
        elif shape not in emitted:
            emitted.add(shape)
            out.extend(members[:keep])
            out.append(f"+{len(members) - keep} more like {members[0]}")
    return out


def _is_structured(line: str) -> bool:
    stripped = line.strip()
    return bool(
        _TIMESTAMP.match(stripped)
        or len(_KEY_VALUE.findall(stripped)) >= 2
        or stripped.count("|") >= 2
        or _TABLE_RULE.match(stripped)
        or _ROWS_FOOTER.match(stripped)
    )


def _split_prose_and_paste(text: str) -> tuple[str, list[str]]:
    lines = text.split("\n")
    structured = [line for line in lines if line.strip() and _is_structured(line)]
    if len(structured) < 6:
        return text, []
    prose = "\n".join(line for line in lines if line.strip() and not _is_structured(line))
    return prose, structured


def _count_list(counter: Counter[str], limit: int = 4) -> str:
    return ", ".join(f"{value} ×{n}" for value, n in counter.most_common(limit))


def _table_signals(lines: list[str]) -> list[str]:
    rows = [line for line in lines if line.count("|") >= 2 and not _TABLE_RULE.match(line)]
    if len(rows) < 2:
        return []
    header = [cell.strip() for cell in rows[0].split("|")]
    body = [[cell.strip() for cell in row.split("|")] for row in rows[1:] if len(row.split("|")) == len(header)]
    parts = [f"table of {len(body)} rows ({', '.join(h for h in header if h)[:120]})"]
    for col, name in enumerate(header):
        values = Counter(row[col] for row in body if row[col])
        if name and 1 < len(values) <= 5:
            parts.append(f"{name}: {_count_list(values)}")
    return parts


def _log_signals(lines: list[str]) -> list[str]:
    log_lines = [line for line in lines if _TIMESTAMP.search(line) or _KEY_VALUE.search(line)]
    if not log_lines:
        return []
    stamps = [m.group() for line in log_lines if (m := _TIMESTAMP.search(line))]
    span = f", {stamps[0]} … {stamps[-1]}" if len(stamps) >= 2 else ""
    parts = [f"log of {len(log_lines)} lines{span}"]
    codes: Counter[str] = Counter()
    for line in log_lines:
        for match in _IDENTIFIER.finditer(line):
            if match.lastgroup in ("errcode", "http"):
                codes[match.group()] += 1
        level = _LEVEL.search(line)
        if level:
            codes[f"level {level.group(1).lower()}"] += 1
    if codes:
        parts.append(_count_list(codes, 6))
    fields: dict[str, Counter[str]] = {}
    for line in log_lines:
        for key, value in _KEY_VALUE.findall(line):
            fields.setdefault(key, Counter())[value.strip('"')] += 1
    for key, values in fields.items():
        if key in ("level", "code"):
            continue
        if 1 <= len(values) <= 3 and sum(values.values()) >= 3:
            parts.append(f"{key}: {_count_list(values, 3)}")
    return parts


@lru_cache(maxsize=50_000)
def condense(text: str) -> Condensed:
    prose, pasted = _split_prose_and_paste(text)
    gist = _cut(prose, GIST_CHARS) if prose.strip() else ""
    signals: list[str] = []
    if pasted:
        signals = _table_signals(pasted) or _log_signals(pasted)
    identifiers = collapse_families(extract_identifiers(text))
    return Condensed(gist=gist, signals="; ".join(signals), identifiers=tuple(identifiers))
