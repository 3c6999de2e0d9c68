"""Rules derived from pinned text, in English and Chinese.

A pin is prose a person wrote in the middle of an incident. Rules come only from what it forbids: a
prohibition ("never", "do not", "must not", 「严禁」「禁止」「不得」…) opens a scope that runs to the end of its
sentence, or to a word that opens an exception ("but", "except", 「除了」「但」). Inside that scope:

* SQL verbs named in capitals, or in lower case next to their object ("drop table", "delete rows");
* "kill -9" / SIGKILL / 「强制杀」 -> SIGKILL; killing at all ("kill", 「杀」) -> any signal;
* "restart", "stop", "bounce", 「重启」「停止」 + a name -> those actions on services matching the name
  ("the core gateway", 「核心网关」 -> core-gateway, core_gateway, core-gw ...); without a name, any service;
* "delete anything / files" -> deleting files, objects and rows.

"read-only" / 「只读」 anywhere (unless negated) forbids every write. Explicit patterns a person attaches to
a pin are regular expressions matched against each command the guard judges.

`derive_rules` is pure and deterministic: the same text always yields the same rules, in the same order.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

RuleKind = Literal["sql_verb", "sigkill", "kill_any", "service", "read_only", "delete", "pattern", "fail_closed"]

SQL_VERBS = ("DROP", "DELETE", "TRUNCATE", "UPDATE", "ALTER", "INSERT", "GRANT", "REVOKE", "MERGE", "CREATE")
_PROHIBITION = re.compile(
    r"\b(?:never|do\s+not|don'?t|must\s+not|mustn'?t|shall\s+not|should\s+not|shouldn'?t|cannot|can'?t|no\s+one\s+may|"
    r"may\s+not|not\s+allowed\s+to|forbidden|prohibited|banned|avoid|under\s+no\s+circumstances?|no)\b"
    r"|严禁|禁止|不得|不准|不要|不能|不许|不可|切勿|勿|别|杜绝",
    re.IGNORECASE,
)
_EXCEPTION = re.compile(
    r"\b(?:but|except|unless|however|other\s+than|apart\s+from)\b|除了|除非|但是|但|不过|允许|可以",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[.;!?。；！？\n]+(?:\s|$)|[。；！？\n]")
_READ_ONLY = re.compile(r"read[\s-]?only|readonly|只读|no\s+writes|no\s+changes|唯读", re.IGNORECASE)
_NEGATED_READ_ONLY = re.compile(
    r"(?:not|no\s+longer|isn'?t|非|不是|不再)\s*(?:in\s+)?(?:read[\s-]?only|readonly|只读)", re.IGNORECASE
)
_SQL_UPPER = re.compile(r"(?<![A-Za-z])(" + "|".join(SQL_VERBS) + r")(?![A-Za-z])")
_SQL_VERB_WORD = r"(?:drop|delete|truncate|update|alter|insert)"
# "drop tables", "truncate or alter tables", "delete, update or insert rows": verbs in lower case count only
# next to an SQL object, so "drop the subject" is not a rule.
_SQL_LOWER = re.compile(
    rf"\b{_SQL_VERB_WORD}(?:\s*(?:,|\bor\b|\band\b)\s*{_SQL_VERB_WORD})*\s+(?:any\s+|the\s+|a\s+)?"
    r"(?:tables?|databases?|schemas?|rows?|records?|from|into|indexes|index|columns?|users?)\b",
    re.IGNORECASE,
)
_SQL_CHINESE = [
    (re.compile(r"删表|删库|删除表|删除数据库|drop"), "DROP"),
    (re.compile(r"删除数据|删数据|删除记录"), "DELETE"),
    (re.compile(r"清空表|清表"), "TRUNCATE"),
    (re.compile(r"改表结构|修改表结构"), "ALTER"),
]
_SIGKILL = re.compile(
    r"kill\s+-(?:9|KILL|SIGKILL)\b|kill\s+-s\s+(?:9|KILL|SIGKILL)\b|\bSIGKILL\b|\bsignal\s+9\b|force[\s-]?kill|"
    r"hard[\s-]?kill|强制杀|强杀|强制结束|强制终止",
    re.IGNORECASE,
)
_KILL_ANY = re.compile(r"\bkill(?:ing)?\b|杀掉?|结束进程|终止进程", re.IGNORECASE)
_DELETE_ANY = re.compile(
    r"\b(?:delete|remove|rm|erase|wipe)\s+(?:any(?:thing)?|everything|files?|data|objects?|resources?|buckets?)\b|"
    r"删除(?:任何|文件|数据|资源)?",
    re.IGNORECASE,
)
_SERVICE_VERB = re.compile(
    r"\b(re-?start(?:ing)?|reboot(?:ing)?|bounc(?:e|ing)|stop(?:ping)?|shut\s*down|shutdown|cycl(?:e|ing)|"
    r"redeploy(?:ing)?|roll(?:ing)?\s+restart|take\s+down|scale\s+down)\b|(重启|重新启动|停止|停掉|关闭|关停|下线)",
    re.IGNORECASE,
)
_OBJECT_STOP = re.compile(
    r"^(?:or|and|nor|,|unless|in|on|during|while|without|before|after|for|to|because|even|at|from|until|if|"
    r"pods?|processes|process|instances?|containers?|service|services|deployment|units?)$",
    re.IGNORECASE,
)
_OBJECT_SKIP = frozenset({"the", "a", "an", "any", "our", "your", "production", "prod", "live", "main", "running"})
_ANY_OBJECT = frozenset(
    {
        "anything",
        "everything",
        "services",
        "service",
        "any",
        "all",
        "something",
        "hosts",
        "host",
        "servers",
        "server",
        "machines",
        "nodes",
        "it",
        "them",
        "服务",
        "任何服务",
        "任何",
        "所有服务",
    }
)
# Chinese names of the things an SRE pins, for matching unit, container and deployment names.
GLOSSARY = {
    "核心": "core",
    "网关": "gateway",
    "数据库": "database",
    "主库": "primary",
    "从库": "replica",
    "缓存": "cache",
    "负载均衡": "lb",
    "消息队列": "queue",
    "队列": "queue",
    "集群": "cluster",
    "支付": "payment",
    "订单": "order",
    "用户": "user",
    "认证": "auth",
    "鉴权": "auth",
    "搜索": "search",
    "前端": "frontend",
    "后端": "backend",
    "接口": "api",
    "服务": "",
    "生产": "",
    "线上": "",
}
# Different spellings of one word in service names.
ALIASES = {
    "gateway": ["gateway", "gw"],
    "database": ["database", "db"],
    "postgres": ["postgres", "postgresql", "pg"],
    "primary": ["primary", "master"],
    "replica": ["replica", "slave", "standby"],
    "kubernetes": ["kubernetes", "k8s"],
    "loadbalancer": ["loadbalancer", "lb"],
    "lb": ["lb", "loadbalancer"],
}
ANY = "*"


@dataclass(frozen=True)
class Rule:
    id: str
    kind: RuleKind
    summary: str
    """What it blocks, in a few words: 'SQL DROP', 'SIGKILL (kill -9)', 'restart of core-gateway'."""
    verb: str = ""
    target_words: tuple[str, ...] = ()
    """For service rules: the name's words, e.g. ('core', 'gateway'); ('*',) for any service."""
    pattern: str = ""
    source: str = ""
    """The words of the pin the rule came from."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rule:
        data = dict(data)
        data["target_words"] = tuple(data.get("target_words", ()))
        return cls(**data)

    def target_regex(self) -> re.Pattern[str] | None:
        """Matches service, unit, container and deployment names for this rule's target; None for any."""
        if self.kind != "service" or self.target_words == (ANY,):
            return None
        parts = ["(?:" + "|".join(re.escape(a) for a in ALIASES.get(w, [w])) + ")" for w in self.target_words]
        return re.compile(r"(?<![a-z0-9])" + r"[-_. ]?".join(parts), re.IGNORECASE)


@dataclass
class _Builder:
    rules: list[Rule] = field(default_factory=list)

    def add(self, rule: Rule) -> None:
        if all(r.id != rule.id for r in self.rules):
            self.rules.append(rule)


def _scopes(text: str) -> list[str]:
    """The forbidden parts of the text: from each prohibition word to the end of its sentence or exception."""
    scopes = []
    for sentence in _SENTENCE.split(text):
        match = _PROHIBITION.search(sentence)
        if not match:
            continue
        scope = sentence[match.start() :]
        exception = _EXCEPTION.search(scope, len(match.group()))
        if exception:
            scope = scope[: exception.start()]
        scopes.append(scope)
    return scopes


_NEXT_VERB = re.compile(
    r"^(?:kill|run|drop|delete|truncate|update|alter|touch|modify|change|remove|write|"
    r"execute|exec|reboot|restart|stop|deploy|scale|edit|patch)$",
    re.IGNORECASE,
)
_PHRASE_END = re.compile(
    r"\b(?:unless|in|on|during|while|without|before|after|for|to|because|even|at|from|"
    r"until|if)\b|[:()]",
    re.IGNORECASE,
)


def _english_targets(after: str) -> list[tuple[str, ...]]:
    """`the core gateway or pgbouncer-2 during the incident` -> [('core', 'gateway'), ('pgbouncer', '2')]."""
    end = _PHRASE_END.search(after)
    phrases = re.split(r",|\bor\b|\band\b|\bnor\b", after[: end.start()] if end else after, flags=re.IGNORECASE)
    targets: list[tuple[str, ...]] = []
    for phrase in phrases[:4]:
        tokens = [t.lower().strip(".") for t in re.findall(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", phrase)]
        if tokens and _NEXT_VERB.match(tokens[0]):
            break  # "never restart X or kill Y": the list of objects ended
        words: list[str] = []
        for token in tokens:
            if _OBJECT_STOP.match(token) and words:
                break
            if token in _OBJECT_SKIP or _OBJECT_STOP.match(token):
                continue
            if token in _ANY_OBJECT:
                words = [ANY]
                break
            words += [w for w in re.split(r"[-_.]", token) if w]
        if words:
            targets.append((ANY,) if ANY in words else tuple(words[:4]))
    return targets or [(ANY,)]


def _chinese_targets(after: str) -> list[tuple[str, ...]]:
    match = re.match(r"\s*([\u4e00-\u9fffA-Za-z0-9_\-、]+)", after)
    if not match:
        return [(ANY,)]
    targets = [_chinese_words(phrase) for phrase in re.split(r"或|和|及|与|以及|、", match.group(1)) if phrase]
    return [t for t in targets if t] or [(ANY,)]


def _chinese_words(phrase: str) -> tuple[str, ...]:
    if phrase in _ANY_OBJECT:
        return (ANY,)
    words: list[str] = []
    i = 0
    while i < len(phrase):
        for length in (4, 3, 2):
            chunk = phrase[i : i + length]
            if chunk in GLOSSARY:
                if GLOSSARY[chunk]:
                    words.append(GLOSSARY[chunk])
                i += length
                break
        else:
            latin = re.match(r"[A-Za-z0-9_\-]+", phrase[i:])
            if latin:
                words += [w.lower() for w in re.split(r"[-_]", latin.group()) if w]
                i += len(latin.group())
            else:
                i += 1  # a character with no known translation: it cannot match a unit name
    return tuple(words)


def _service_rules(scope: str, builder: _Builder) -> None:
    for match in _SERVICE_VERB.finditer(scope):
        english = (match.group(1) or "").lower()
        restart = english.startswith(("re", "bounc", "cycl", "roll")) or match.group(2) in (
            "重启",
            "重新启动",
        )
        verb = "restart" if restart else "stop"
        after = scope[match.end() :]
        for target in _chinese_targets(after) if match.group(2) else _english_targets(after):
            name = "any service" if target == (ANY,) else "-".join(target)
            builder.add(
                Rule(
                    id=f"service:{name}",
                    kind="service",
                    summary=f"{verb} of {name}",
                    target_words=target,
                    source=(match.group(0) + after[:40]).strip(),
                )
            )


def _sql_rule(verb: str, source: str) -> Rule:
    return Rule(id=f"sql:{verb}", kind="sql_verb", summary=f"SQL {verb}", verb=verb, source=source)


def derive_rules(text: str, patterns: list[str] | tuple[str, ...] = ()) -> list[Rule]:
    """The enforceable rules in a pin's text, plus one rule per explicit pattern."""
    builder = _Builder()
    if _READ_ONLY.search(text) and not _NEGATED_READ_ONLY.search(text):
        builder.add(
            Rule(
                id="read_only",
                kind="read_only",
                summary="any write (read-only)",
                source=_READ_ONLY.search(text).group(),
            )
        )  # type: ignore[union-attr]
    for scope in _scopes(text):
        for match in _SQL_UPPER.finditer(scope):
            builder.add(_sql_rule(match.group(1), match.group(1)))
        for match in _SQL_LOWER.finditer(scope):
            for word in re.findall(_SQL_VERB_WORD, match.group(), re.IGNORECASE):
                builder.add(_sql_rule(word.upper(), match.group()))
        for pattern, verb in _SQL_CHINESE:
            found = pattern.search(scope)
            if found:
                builder.add(_sql_rule(verb, found.group()))
        sigkill = _SIGKILL.search(scope)
        if sigkill:
            builder.add(Rule(id="signal:KILL", kind="sigkill", summary="SIGKILL (kill -9)", source=sigkill.group()))
        without_sigkill = _SIGKILL.sub(" ", scope)
        kill_any = _KILL_ANY.search(without_sigkill)
        if kill_any:
            builder.add(
                Rule(
                    id="signal:any",
                    kind="kill_any",
                    summary="killing processes (any signal)",
                    source=kill_any.group(),
                )
            )
        delete_any = _DELETE_ANY.search(scope)
        if delete_any and not _SQL_LOWER.search(scope):
            builder.add(
                Rule(
                    id="delete",
                    kind="delete",
                    summary="deleting files, objects or data",
                    source=delete_any.group(),
                )
            )
        _service_rules(scope, builder)
    for pattern in patterns:
        builder.add(
            Rule(
                id=f"pattern:{pattern}",
                kind="pattern",
                summary=f"commands matching /{pattern}/",
                pattern=pattern,
                source=pattern,
            )
        )
    return builder.rules


def check_pattern(pattern: str) -> str | None:
    """Why an explicit pattern is unusable, or None."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"not a valid regular expression: {exc}"
    return None


def derive_rules_for_store(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Rules as stored with a pin (JSON-ready), and the pin's explicit patterns (none from plain text)."""
    return [rule.to_dict() for rule in derive_rules(text)], []
