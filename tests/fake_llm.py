"""A real OpenAI-compatible HTTP server on 127.0.0.1 that the tests script, turn by turn.

It speaks `POST /v1/chat/completions` with SSE streaming the way OpenAI does: a role chunk, content in small
pieces, tool calls whose JSON arguments arrive in fragments, a finish reason, a usage chunk, `[DONE]`. It can
also answer with an HTTP error, stop a stream mid-way, or stall. Every request body is kept for assertions
(for example, that the pin block sits right before the newest user message).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Step:
    text: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    """(function name, arguments): a dict is sent as JSON; a str is sent as is (so it may be malformed)."""
    status: int = 200
    error: str = "scripted failure"
    chunk: int = 5
    cut_after: int | None = None
    """Close the connection after this many SSE events, with no finish reason and no [DONE]."""
    delay: float = 0.0


class ScriptedLLM:
    def __init__(self) -> None:
        self.script: deque[Step] = deque()
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return None

            def do_GET(self) -> None:  # http_check's target
                body = b"ok\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                request = json.loads(self.rfile.read(length) or b"{}")
                owner.requests.append(request)
                step = owner.script.popleft() if owner.script else Step(status=500, error="the script ran out")
                if step.delay:
                    time.sleep(step.delay)
                if step.status != 200:
                    owner._error(self, step)
                    return
                try:
                    if request.get("stream"):
                        owner._stream(self, step, request)
                    else:
                        owner._whole(self, step)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def add(self, *steps: Step) -> None:
        self.script.extend(steps)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- responses ----------------------------------------------------------------------------------

    @staticmethod
    def _error(handler: BaseHTTPRequestHandler, step: Step) -> None:
        body = json.dumps({"error": {"message": step.error, "type": "scripted", "code": step.status}}).encode()
        handler.send_response(step.status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    @staticmethod
    def _arguments(arguments: Any) -> str:
        return arguments if isinstance(arguments, str) else json.dumps(arguments)

    def _events(self, step: Step, include_usage: bool) -> list[dict[str, Any]]:
        base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1, "model": "scripted"}
        events = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
        for i in range(0, len(step.text), step.chunk):
            piece = step.text[i : i + step.chunk]
            events.append({**base, "choices": [{"index": 0, "delta": {"content": piece}}]})
        for index, (name, arguments) in enumerate(step.tool_calls):
            head = {
                "index": index,
                "id": f"call_{index}_{len(self.requests)}",
                "type": "function",
                "function": {"name": name, "arguments": ""},
            }
            events.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [head]}}]})
            text = self._arguments(arguments)
            for i in range(0, len(text), step.chunk):
                fragment = {"index": index, "function": {"arguments": text[i : i + step.chunk]}}
                events.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}]})
        finish = "tool_calls" if step.tool_calls else "stop"
        events.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        if include_usage:
            events.append(
                {**base, "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}
            )
        return events

    def _stream(self, handler: BaseHTTPRequestHandler, step: Step, request: dict[str, Any]) -> None:
        include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        for count, event in enumerate(self._events(step, include_usage)):
            if step.cut_after is not None and count >= step.cut_after:
                handler.wfile.flush()
                handler.close_connection = True
                return
            handler.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            handler.wfile.flush()
        handler.wfile.write(b"data: [DONE]\n\n")
        handler.wfile.flush()

    def _whole(self, handler: BaseHTTPRequestHandler, step: Step) -> None:
        message: dict[str, Any] = {"role": "assistant", "content": step.text or None}
        if step.tool_calls:
            message["tool_calls"] = [
                {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": self._arguments(a)}}
                for i, (n, a) in enumerate(step.tool_calls)
            ]
        body = json.dumps(
            {
                "id": "chatcmpl-scripted",
                "object": "chat.completion",
                "created": 1,
                "model": "scripted",
                "choices": [
                    {"index": 0, "message": message, "finish_reason": "tool_calls" if step.tool_calls else "stop"}
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            }
        ).encode()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
