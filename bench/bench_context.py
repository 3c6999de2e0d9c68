#!/usr/bin/env python3
"""The context compiler on the 50-round incident transcript, and compile time by session size (issue 3).

Token counts use litellm's offline counter for gpt-4o (the fallback when no model is configured).
Run: `.venv/bin/python bench/bench_context.py`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import report, time_call  # noqa: E402
from make_incident_transcript import EARLY_IDS  # noqa: E402
from make_incident_transcript import OUT as TRANSCRIPT

from opsassist.agent.llm import token_counter  # noqa: E402
from opsassist.context import ActivePin, compile_context, condense  # noqa: E402
from opsassist.context.compiler import block_markers  # noqa: E402
from opsassist.store.models import Message  # noqa: E402


def load_transcript(repeat: int = 1) -> tuple[list[Message], list[ActivePin]]:
    rows = [json.loads(line) for line in TRANSCRIPT.read_text().splitlines()]
    messages, pins = [], []
    for n in range(repeat):
        for row in rows:
            mid = len(messages) + 1
            messages.append(
                Message(
                    id=mid,
                    session_id="s",
                    turn=mid,
                    role=row["role"],
                    kind="chat",
                    content=row["content"],
                    created_at=row["created_at"],
                )
            )
            if row.get("pinned") and n == 0:
                pins.append(ActivePin(pin_id=1, message_id=mid, text=row["content"]))
    return messages, pins


def main() -> int:
    count = token_counter("gpt-4o")
    messages, pins = load_transcript()
    counted = [Message(**{**m.__dict__, "tokens": count(m.content), "token_model": "gpt-4o"}) for m in messages]
    compiled = compile_context(counted, pins, count_tokens=count)
    text = "\n".join(item["content"] for item in compiled.payload)
    missing = [i for i in EARLY_IDS if i not in text]
    opening, _ = block_markers(pins)
    block_ok = compiled.payload[compiled.newest_index - 1]["content"].startswith(opening)
    ratio = compiled.compiled_tokens / compiled.raw_tokens
    print(
        f"50-round transcript: raw {compiled.raw_tokens} tokens, compiled {compiled.compiled_tokens} "
        f"({ratio:.1%} of raw, target <= 23%) {'OK' if ratio <= 0.23 else 'MISSED'}"
    )
    print(
        f"early identifiers kept: {len(EARLY_IDS) - len(missing)}/{len(EARLY_IDS)}"
        f"{' missing: ' + ', '.join(missing) if missing else ' OK'}"
    )
    print(f"pin block directly before the newest user message: {'OK' if block_ok else 'MISSED'}")
    ok = ratio <= 0.23 and not missing and block_ok

    for size, target in ((1_000, 0.020), (10_000, 0.200)):
        repeat = size // len(messages) + 1
        big, big_pins = load_transcript(repeat)
        big = [Message(**{**m.__dict__, "tokens": count(m.content)}) for m in big[:size]]
        # Warm the condensation cache, as a live session is; the briefs themselves are counted every time.
        compile_context(big, big_pins, count_tokens=count)

        def cold(b: list[Message] = big, p: list[ActivePin] = big_pins) -> None:
            condense.cache_clear()
            compile_context(b, p, count_tokens=count)

        ok &= report(
            f"compile {size:,} messages (message token counts cached)",
            *time_call(lambda b=big, p=big_pins: compile_context(b, p, count_tokens=count)),
            target,
        )
        median, worst = time_call(cold, runs=3)
        print(f"{'  the same with the condensation cache cold':<58} median {median * 1000:8.1f} ms")
    start = time.perf_counter()
    compile_context(counted, pins, count_tokens=count)
    print(
        f"compile of the 50-round transcript with litellm counting the payload: "
        f"{(time.perf_counter() - start) * 1000:.1f} ms"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
