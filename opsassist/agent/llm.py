"""The one place litellm is imported, lazily and offline.

`import litellm` takes 2-3 s and, left to its defaults, fetches a price list over the network, loads any
`.env` near the working directory into the environment, and may download tokenizers. These variables stop
all of that; they must be set before the first import.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from types import ModuleType

OFFLINE_ENV = {
    "LITELLM_OFFLINE_MODE": "true",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_MODE": "PRODUCTION",
    "HF_HUB_OFFLINE": "1",
}
# Counting tokens for a model litellm has no tokenizer for falls back to this OpenAI encoding.
FALLBACK_TOKEN_MODEL = "gpt-4o"

_lock = threading.Lock()
_litellm: ModuleType | None = None


def load_litellm() -> ModuleType:
    """Import litellm once, offline. Call it off the UI thread: it blocks for seconds."""
    global _litellm
    with _lock:
        if _litellm is None:
            for key, value in OFFLINE_ENV.items():
                os.environ[key] = value
            import litellm

            litellm.suppress_debug_info = True
            litellm.telemetry = False
            _litellm = litellm
    return _litellm


def token_counter(model: str | None) -> Callable[[str], int]:
    """A text -> token count function for `model`, through litellm's offline counter."""
    litellm = load_litellm()
    name = model or FALLBACK_TOKEN_MODEL

    def count(text: str) -> int:
        if not text:
            return 0
        return int(litellm.token_counter(model=name, text=text))

    return count
