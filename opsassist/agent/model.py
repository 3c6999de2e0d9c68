"""Streaming model calls through litellm, with tool calling, assembled as the fragments arrive.

Any litellm model string works: `gpt-4o-mini`, `anthropic/...`, `ollama/llama3.1`, or `openai/<name>` with an
`api_base` for vLLM, LM Studio or any OpenAI-compatible server. Provider failures become `ModelError`s with
a message a person can act on; a stream that stops mid-way keeps what arrived (`partial_text`).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from opsassist.agent.llm import load_litellm
from opsassist.config import Settings


class ModelError(Exception):
    def __init__(self, message: str, partial_text: str = "") -> None:
        super().__init__(message)
        self.partial_text = partial_text


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str
    """The raw JSON text, exactly as streamed; it may be malformed, the gateway says so."""

    def to_message(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function", "function": {"name": self.name, "arguments": self.arguments}}


@dataclass
class ModelReply:
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: dict[str, int] = field(default_factory=dict)
    finish_reason: str | None = None


@dataclass(frozen=True)
class ModelConfig:
    model: str
    api_base: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    retries: int = 2
    tool_calls: bool = True

    @classmethod
    def from_settings(cls, settings: Settings, model: str | None = None, api_base: str | None = None) -> ModelConfig:
        chosen = model or settings.model
        if not chosen:
            raise ModelError(
                "no model is configured: set OPSASSIST_MODEL (e.g. gpt-4o-mini, anthropic/claude-3-5-sonnet-latest, "
                "or openai/<name> with OPSASSIST_API_BASE for a local server), or 'model' in config.toml"
            )
        key = None
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env)
            if not key:
                raise ModelError(f"api_key_env names {settings.api_key_env}, but that variable is empty or unset")
        base = api_base or settings.api_base
        if key is None and base and chosen.startswith("openai/"):
            key = "no-key-needed"  # litellm's openai route insists on some key, even for a local server
        return cls(chosen, base, key, settings.request_timeout, settings.retries, settings.tool_calls)


def explain_provider_error(exc: Exception, config: ModelConfig) -> str:
    """One sentence a person can act on, for whatever litellm raised."""
    litellm = load_litellm()
    where = config.api_base or config.model
    first_line = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, litellm.exceptions.MidStreamFallbackError) or "before a finish_reason" in str(exc):
        return "the model's stream stopped mid-way; what arrived is kept, retry the turn"
    if _caused_by(exc, ("ConnectError", "ConnectionRefusedError", "APIConnectionError")) or (
        "Connection error" in str(exc)
    ):
        return f"cannot reach the model at {where}: connection refused or the network is down"
    if isinstance(exc, litellm.exceptions.AuthenticationError):
        return f"the provider rejected the API key for {config.model} (401); check the key variable. {first_line}"
    if isinstance(exc, litellm.exceptions.RateLimitError):
        return f"the provider is rate limiting requests (429); wait a moment and retry. {first_line}"
    if isinstance(exc, litellm.exceptions.Timeout):
        return f"the model did not answer within {config.timeout:g} s ({where}); retry, or raise request_timeout"
    if isinstance(exc, litellm.exceptions.NotFoundError):
        return f"the provider does not know the model {config.model!r} (404). {first_line}"
    if isinstance(exc, litellm.exceptions.APIConnectionError):
        return f"cannot reach the model at {where}: {first_line}"
    if isinstance(exc, litellm.exceptions.InternalServerError | litellm.exceptions.ServiceUnavailableError):
        return f"the provider failed ({getattr(exc, 'status_code', 500)}); retry in a moment. {first_line}"
    if isinstance(exc, litellm.exceptions.BadRequestError):
        return f"the provider refused the request (400): {first_line}"
    return f"the model call failed: {first_line}"


def _caused_by(exc: BaseException, names: tuple[str, ...]) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if type(current).__name__ in names:
            return True
        current = current.__cause__ or current.__context__
    return False


async def stream_reply(
    config: ModelConfig, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> AsyncIterator[str | ModelReply]:
    """Stream one model reply: text deltas as they arrive, then the whole reply with its tool calls assembled."""
    litellm = load_litellm()
    kwargs: dict[str, Any] = {
        "model": config.model,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
        "timeout": config.timeout,
        "num_retries": config.retries,
    }
    if config.api_base:
        kwargs["api_base"] = config.api_base
    if config.api_key:
        kwargs["api_key"] = config.api_key
    if tools and config.tool_calls:
        kwargs["tools"] = tools
    reply = ModelReply()
    fragments: dict[int, dict[str, str]] = {}
    try:
        stream = await litellm.acompletion(**kwargs)
        async for chunk in stream:
            usage = getattr(chunk, "usage", None)
            if usage:
                reply.usage = {
                    k: int(getattr(usage, k) or 0)
                    for k in ("prompt_tokens", "completion_tokens", "total_tokens")
                    if getattr(usage, k, None) is not None
                }
            if not chunk.choices:
                continue
            choice = chunk.choices[0]
            delta = choice.delta
            if getattr(delta, "content", None):
                reply.text += delta.content
                yield delta.content
            for call in getattr(delta, "tool_calls", None) or []:
                slot = fragments.setdefault(call.index or 0, {"id": "", "name": "", "arguments": ""})
                if call.id:
                    slot["id"] = call.id
                function = call.function
                if function is not None:
                    if function.name:
                        slot["name"] = function.name
                    if function.arguments:
                        slot["arguments"] += function.arguments
            if choice.finish_reason:
                reply.finish_reason = choice.finish_reason
    except Exception as exc:  # noqa: BLE001 - every provider failure becomes an actionable error
        raise ModelError(explain_provider_error(exc, config), reply.text) from exc
    if reply.finish_reason is None and not fragments and not reply.text:
        raise ModelError("the model's stream ended before any answer arrived; retry the turn", reply.text)
    if reply.finish_reason is None:
        raise ModelError("the model's stream stopped mid-way; what arrived is kept, retry the turn", reply.text)
    reply.tool_calls = [
        ToolCall(slot["id"] or f"call_{index}", slot["name"], slot["arguments"])
        for index, slot in sorted(fragments.items())
    ]
    yield reply
