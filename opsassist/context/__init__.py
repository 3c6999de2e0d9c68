"""Context compilation: decay weights, condensed history, and the pin block before every request.

Pure: no I/O, no litellm; token counts come from an injected counter.
"""

from __future__ import annotations

from opsassist.context.compiler import (
    ActivePin,
    CompiledContext,
    ContextError,
    PayloadAssertionError,
    SourceEntry,
    compile_context,
    render_block,
    verify_payload,
)
from opsassist.context.condense import Condensed, condense, extract_identifiers
from opsassist.context.weights import DecayPolicy

__all__ = [
    "ActivePin",
    "CompiledContext",
    "Condensed",
    "ContextError",
    "DecayPolicy",
    "PayloadAssertionError",
    "SourceEntry",
    "compile_context",
    "condense",
    "extract_identifiers",
    "render_block",
    "verify_payload",
]
