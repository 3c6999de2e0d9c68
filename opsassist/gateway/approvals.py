"""Layer 4 of seed 001: held actions and the person's decision on them.

A write the guard does not block is held. Its challenge binds (session, tool, canonical arguments, the set of
active pins) and its expiry with HMAC-SHA256 under a per-install secret (a 0600 file under the data folder).
Only a person decides, from the TUI or `opsassist approve/deny`; the model has no way to. A challenge is
single use, and it is refused, with the reason, when it has expired, was already decided (a replay), does
not match its signature (forged or altered in the database), or was issued under other pins than those in
force now (stale).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from opsassist.errors import OpsassistError
from opsassist.store import Store


class ApprovalError(OpsassistError):
    """A challenge cannot be decided; the message says why."""


def load_secret(path: Path) -> bytes:
    """The install's HMAC key, created on first use with permissions 0600."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)  # a key others can read could forge approvals
        return bytes.fromhex(path.read_text().strip())
    with os.fdopen(fd, "w") as fh:
        fh.write(secrets.token_hex(32))
    return bytes.fromhex(path.read_text().strip())


def canonical(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def pin_set_digest(pins: Sequence[tuple[int, str]]) -> str:
    """Digest of the active pins (id and text): any pin added, removed or changed makes a new digest."""
    text = "\x00".join(f"{pin_id}\x01{body}" for pin_id, body in sorted(pins))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Challenge:
    id: str
    session_id: str
    tool: str
    arguments: dict[str, Any]
    summary: str
    expires_at: str
    status: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "approval_id": self.id,
            "tool": self.tool,
            "arguments": self.arguments,
            "summary": self.summary,
            "expires_at": self.expires_at,
            "status": self.status,
        }


def _challenge(row: dict[str, Any]) -> Challenge:
    return Challenge(
        id=row["id"],
        session_id=row["session_id"],
        tool=row["tool"],
        arguments=json.loads(row["arguments"]),
        summary=row["summary"],
        expires_at=row["expires_at"],
        status=row["status"],
    )


class ApprovalBook:
    def __init__(self, store: Store, secret: bytes, ttl_seconds: int) -> None:
        self.store = store
        self.secret = secret
        self.ttl = timedelta(seconds=ttl_seconds)

    def _sign(self, row: dict[str, Any]) -> str:
        message = "\x1f".join(
            [row["id"], row["session_id"], row["tool"], row["arguments"], row["pin_set"], row["expires_at"]]
        )
        return hmac.new(self.secret, message.encode(), hashlib.sha256).hexdigest()

    def issue(
        self,
        session_id: str,
        tool: str,
        arguments: dict[str, Any],
        pin_set: str,
        summary: str,
        why: str = "",
        now: datetime | None = None,
    ) -> Challenge:
        now = now or datetime.now(UTC)
        row = {
            "id": "ap-" + secrets.token_hex(5),
            "session_id": session_id,
            "tool": tool,
            "arguments": canonical(arguments),
            "pin_set": pin_set,
            "created_at": now.isoformat(timespec="milliseconds"),
            "expires_at": (now + self.ttl).isoformat(timespec="milliseconds"),
            "summary": summary,
            "why": why,
        }
        row["signature"] = self._sign(row)
        self.store.add_approval(row)
        return _challenge({**row, "status": "pending"})

    def find(self, session_id: str, tool: str, arguments: dict[str, Any]) -> Challenge | None:
        """The latest challenge for exactly this action in this session."""
        rows = [
            r
            for r in self.store.approvals(session_id, status=None)
            if r["tool"] == tool and r["arguments"] == canonical(arguments)
        ]
        return _challenge(rows[-1]) if rows else None

    def expire_if_due(self, challenge: Challenge, now: datetime | None = None) -> Challenge:
        now = now or datetime.now(UTC)
        if challenge.status == "pending" and datetime.fromisoformat(challenge.expires_at) <= now:
            self.store.decide_approval(challenge.id, "expired", "expired before anyone decided")
            return Challenge(**{**challenge.__dict__, "status": "expired"})
        return challenge

    def verify(self, approval_id: str, current_pin_set: str, now: datetime | None = None) -> Challenge:
        """The challenge if it may be approved now; otherwise ApprovalError saying why not."""
        now = now or datetime.now(UTC)
        row = self.store.approval(approval_id)
        if row is None:
            raise ApprovalError(f"no held action with id '{approval_id}' (see 'opsassist approvals')")
        if row["status"] != "pending":
            when = f" at {row['decided_at'][:19].replace('T', ' ')} UTC" if row["decided_at"] else ""
            raise ApprovalError(f"{approval_id} was already {row['status']}{when}; a challenge can be used once")
        if not hmac.compare_digest(self._sign(row), row["signature"]):
            raise ApprovalError(
                f"{approval_id} does not match its signature: the held action was altered or forged; refused"
            )
        if datetime.fromisoformat(row["expires_at"]) <= now:
            self.store.decide_approval(approval_id, "expired", "expired before anyone decided")
            raise ApprovalError(
                f"{approval_id} expired at {row['expires_at'][:19].replace('T', ' ')} UTC; ask for it again"
            )
        if row["pin_set"] != current_pin_set:
            raise ApprovalError(
                f"{approval_id} was requested under other pinned red lines than those in force now; refused as "
                "stale. Ask for it again so it is checked under the current pins"
            )
        return _challenge(row)

    def deny(self, approval_id: str, reason: str = "denied by the person") -> Challenge:
        row = self.store.approval(approval_id)
        if row is None:
            raise ApprovalError(f"no held action with id '{approval_id}' (see 'opsassist approvals')")
        if not self.store.decide_approval(approval_id, "denied", reason):
            raise ApprovalError(f"{approval_id} was already {row['status']}; a challenge can be decided once")
        return _challenge({**row, "status": "denied"})

    def claim(self, approval_id: str) -> bool:
        """Take the challenge for execution; False if someone else took it first (single use)."""
        return self.store.decide_approval(approval_id, "approved", "approved by the person")
