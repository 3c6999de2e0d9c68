"""Neutralise text before it reaches a terminal.

Stored content is kept byte for byte; only what is printed is made safe, so a pasted log or a model reply
cannot move the cursor, retitle the window, or hide text with bidi overrides.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, C1 controls, and the Unicode bidi embedding/override/isolate marks.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code == 0x1B:
        return "␛"
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """Return `text` with every control or bidi character replaced by a visible stand-in."""
    return _UNSAFE.sub(_visible, text)
