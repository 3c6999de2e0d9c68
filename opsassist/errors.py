"""The one error type a person is shown as a single line (exit code 2), never as a traceback."""

from __future__ import annotations


class OpsassistError(Exception):
    """Bad input, a bad file or an unknown id: something the person can act on. The message is one line."""
