"""`opsassist guard explain TEXT`: the rules a pin yields, each with commands it blocks and allows.

The examples are not decoration: each one is run through the guard under that rule alone when the
explanation is built, and the result is reported beside it, so a rule that does not do what it says shows
up at once (the way Codex checks the examples of its execution policies when it loads them).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from opsassist.guard.check import PinRules, check_command
from opsassist.guard.rules import ANY, Rule, derive_rules

SQL_EXAMPLES = {
    "DROP": "DROP TABLE orders",
    "DELETE": "DELETE FROM orders WHERE created_at < now() - interval '30 days'",
    "TRUNCATE": "TRUNCATE orders",
    "UPDATE": "UPDATE orders SET status = 'cancelled' WHERE id = 42",
    "ALTER": "ALTER TABLE orders ADD COLUMN note text",
    "INSERT": "INSERT INTO orders (id) VALUES (42)",
    "GRANT": "GRANT ALL ON orders TO app",
    "REVOKE": "REVOKE ALL ON orders FROM app",
    "MERGE": "MERGE INTO orders o USING staged s ON o.id = s.id WHEN MATCHED THEN DELETE",
    "CREATE": "CREATE TABLE orders_copy AS SELECT * FROM orders",
}


@dataclass
class Example:
    command: str
    expect_block: bool
    decision: str

    @property
    def holds(self) -> bool:
        return (self.decision == "block") == self.expect_block


@dataclass
class RuleExplanation:
    rule: Rule
    examples: list[Example]

    @property
    def holds(self) -> bool:
        return all(e.holds for e in self.examples)


def _examples(rule: Rule) -> tuple[list[str], list[str]]:
    """(commands the rule must block, commands it must not block)."""
    if rule.kind == "sql_verb":
        statement = SQL_EXAMPLES.get(rule.verb, f"{rule.verb} orders")
        return (
            [
                f"psql -h db-prod-3 -c {shlex.quote(statement)}",
                f"mysql -e {shlex.quote(f'/*!50000 {statement} */')}",
            ],
            ['psql -h db-prod-3 -c "SELECT count(*) FROM orders"', f"grep -c {rule.verb} /var/log/app.log"],
        )
    if rule.kind == "sigkill":
        return (
            ["kill -9 4821", "sudo pkill -KILL -f worker", "kill -s SIGKILL 4821"],
            ["kill -0 4821", "ps -o pid,stat,cmd -p 4821"],
        )
    if rule.kind == "kill_any":
        return (["kill 4821", "pkill -f worker"], ["kill -0 4821", "pgrep -a worker"])
    if rule.kind == "service":
        if rule.target_words == (ANY,):
            return (["systemctl restart nginx", "sudo reboot"], ["systemctl status nginx"])
        name = "-".join(rule.target_words)
        return (
            [
                f"systemctl restart {name}",
                f"kubectl -n prod rollout restart deploy/{name}",
                f"ssh gw-1 'sudo docker restart {name}'",
            ],
            [f"systemctl status {name}", f"kubectl -n prod logs deploy/{name} --since=10m"],
        )
    if rule.kind == "read_only":
        return (
            ["rm -rf /tmp/cache", "curl -X POST https://api.internal/cache/flush", "redis-cli FLUSHALL"],
            [
                "kubectl get pods -A",
                "journalctl -u nginx --since '10 min ago'",
                "tail -n 200 /var/log/syslog",
            ],
        )
    if rule.kind == "delete":
        return (["rm -rf /var/backups/2026-11-28", "aws s3 rm s3://backups/db.dump"], ["ls -la /var/backups"])
    return ([], [])


def explain_rule(rule: Rule, pin_text: str) -> RuleExplanation:
    pin = PinRules(0, pin_text, (rule,))
    blocks, allows = _examples(rule)
    examples = [Example(c, True, check_command(c, [pin], suggest=False).decision) for c in blocks]
    examples += [Example(c, False, check_command(c, [pin], suggest=False).decision) for c in allows]
    return RuleExplanation(rule, examples)


def explain_pin(text: str, patterns: list[str] | None = None) -> list[RuleExplanation]:
    return [explain_rule(rule, text) for rule in derive_rules(text, patterns or [])]
