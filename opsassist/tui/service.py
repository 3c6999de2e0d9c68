"""The TUI's way to the record, off the UI thread.

sqlite connections belong to the thread that opened them, and the UI thread must never wait on a query.
`StoreThread` owns one connection on one worker thread for the quick reads and writes the UI needs (load a
session, pin, list approvals); `await service.run(fn)` runs `fn(store)` there. Long jobs (an agent turn, an
approved command that may run for 30 s) open their own connection in their own thread worker, so they never
hold up a pin or an approval.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from opsassist.store import Store, open_store

T = TypeVar("T")


class StoreThread:
    def __init__(self, database: Path) -> None:
        self.database = database
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="opsassist-store")
        self._store: Store | None = None

    def _call(self, fn: Callable[[Store], T]) -> T:
        if self._store is None:
            self._store = open_store(self.database)
        return fn(self._store)

    async def run(self, fn: Callable[[Store], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, self._call, fn)

    def close(self) -> None:
        def shut() -> None:
            if self._store is not None:
                self._store.close()
                self._store = None

        self._executor.submit(shut).result(timeout=5)
        self._executor.shutdown(wait=True)
