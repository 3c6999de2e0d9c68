"""Helpers shared by the benchmarks: timing whole processes and in-process calls."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable


def time_process(args: list[str], env: dict[str, str], runs: int = 7) -> tuple[float, float]:
    """Median and worst wall time (seconds) of a whole `python -m opsassist ARGS` process."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "opsassist", *args],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            check=True,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times), max(times)


def time_call(fn: Callable[[], object], runs: int = 5) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), max(times)


def report(name: str, median: float, worst: float, target: float) -> bool:
    ok = worst < target
    print(
        f"{name:<58} median {median * 1000:8.1f} ms  worst {worst * 1000:8.1f} ms  "
        f"target < {target * 1000:.0f} ms  {'OK' if ok else 'MISSED'}"
    )
    return ok
