"""opsassist: a terminal chat assistant for SREs working an incident.

Importing this package is cheap on purpose: it loads neither litellm nor Textual (a test checks it).
"""

from __future__ import annotations

__version__ = "0.1.0"
