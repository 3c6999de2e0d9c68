#!/usr/bin/env python3
"""The agent loop's own cost per round, excluding the model (issue 5's target: under 20 ms).

A scripted OpenAI-compatible server on 127.0.0.1 answers instantly; each turn runs search -> schema ->
execute (read_file) -> answer. Time spent inside the model call (litellm, HTTP, SSE) is measured and
subtracted; what is left is compiling the context, the gateway, the guard and the record.
Run: `.venv/bin/python bench/bench_agent.py`.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> int:
    home = tempfile.mkdtemp(prefix="opsassist-bench-")
    os.environ["OPSASSIST_HOME"] = home
    from opsassist.agent.llm import token_counter
    from opsassist.agent.loop import AgentLoop
    from opsassist.agent.model import ModelConfig
    from opsassist.config import load_settings
    from opsassist.gateway import open_gateway
    from opsassist.store import open_store
    from tests.fake_llm import ScriptedLLM, Step

    server = ScriptedLLM()
    loaded = load_settings()
    store = open_store(loaded.paths.database)
    session = store.create_session("bench")
    pinned = store.add_message(session, "user", "Production read-only: never kill -9 anything.")
    store.pin(pinned.id)
    for i in range(200):  # a session with history, as mid-incident
        store.add_message(session, "user" if i % 2 == 0 else "assistant", f"round {i}: pgbouncer cl_waiting {i}")
    loop = AgentLoop(
        store,
        session,
        loaded.settings,
        open_gateway(store, session, loaded),
        ModelConfig("openai/scripted", server.base_url, "x", 10, 0, True),
        token_counter("gpt-4o"),
        "gpt-4o",
    )
    per_round: list[float] = []

    async def turn() -> None:
        server.add(
            Step(tool_calls=[("search_tool_catalog", {"query": "read file"})]),
            Step(tool_calls=[("get_tool_schema", {"tool_names": ["read_file"]})]),
            Step(tool_calls=[("execute_tool", {"tool_name": "read_file", "arguments": {"path": "/etc/hostname"}})]),
            Step(text="The host is up."),
        )
        start = time.perf_counter()
        async for _ in loop.run_turn("what is the hostname?"):
            pass
        total = time.perf_counter() - start
        per_round.append((total - loop.stats.model_seconds) / loop.stats.rounds)

    for _ in range(12):
        asyncio.run(turn())
    server.close()
    samples = per_round[2:]  # the first turns warm litellm and the caches
    median, worst = statistics.median(samples), max(samples)
    ok = worst < 0.020
    print(
        f"loop overhead per round, excluding the model: median {median * 1000:.1f} ms, worst {worst * 1000:.1f} ms "
        f"(target < 20 ms) {'OK' if ok else 'MISSED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
