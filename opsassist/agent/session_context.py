"""Compile a stored session for the next request: the bridge between the store and the pure compiler.

Token counts are cached per message in the store, keyed by the model they were counted for, so each
message's text goes through the tokenizer once.
"""

from __future__ import annotations

from dataclasses import replace

from opsassist.config import Settings
from opsassist.context import ActivePin, CompiledContext, DecayPolicy, compile_context
from opsassist.context.compiler import TokenCounter
from opsassist.store import Message, Store


def decay_policy(settings: Settings) -> DecayPolicy:
    return DecayPolicy(
        mode=settings.decay_mode,
        decay_rate=settings.decay_rate,
        min_weight=settings.min_weight,
        half_life_minutes=settings.half_life_minutes,
        verbatim_threshold=settings.verbatim_threshold,
    )


def active_pins(store: Store, session_id: str, messages: list[Message]) -> list[ActivePin]:
    by_id = {m.id: m for m in messages}
    pins = []
    for pin in store.pins(session_id):
        message = by_id.get(pin.message_id) or store.message(pin.message_id)
        pins.append(ActivePin(pin_id=pin.id, message_id=pin.message_id, text=message.content))
    return pins


def with_token_counts(store: Store, messages: list[Message], model: str, count: TokenCounter) -> list[Message]:
    """Fill in token counts for `model`, counting and caching only the messages that lack one."""
    fresh: dict[int, int] = {}
    out = []
    for message in messages:
        if message.tokens is None or message.token_model != model:
            n = count(message.content)
            fresh[message.id] = n
            message = replace(message, tokens=n, token_model=model)
        out.append(message)
    store.set_token_counts(model, fresh)
    return out


def compile_session(
    store: Store,
    session_id: str,
    settings: Settings,
    count: TokenCounter,
    *,
    token_model: str,
    query: str | None = None,
    system: str | None = None,
) -> CompiledContext:
    messages = with_token_counts(store, store.messages(session_id), token_model, count)
    return compile_context(
        messages,
        active_pins(store, session_id, messages),
        count_tokens=count,
        policy=decay_policy(settings),
        query=query,
        system=system,
        budget=settings.token_budget,
    )
