from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from opsassist.cli import main
from opsassist.store import Store, open_store
from tests.fake_llm import ScriptedLLM

DATA = Path(__file__).parent / "data"
CORPORA = Path(__file__).parent / "data" / "corpora"
INCIDENT = DATA / "incident_50_rounds.jsonl"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own OPSASSIST_HOME and no stray OPSASSIST_* settings from the caller."""
    for var in list(os.environ):
        if var.startswith("OPSASSIST_"):
            monkeypatch.delenv(var)
    path = tmp_path / "home"
    monkeypatch.setenv("OPSASSIST_HOME", str(path))
    return path


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[ScriptedLLM]:
    """The scripted OpenAI-compatible server, with the settings that point opsassist at it."""
    server = ScriptedLLM()
    monkeypatch.setenv("OPSASSIST_MODEL", "openai/scripted")
    monkeypatch.setenv("OPSASSIST_API_BASE", server.base_url)
    monkeypatch.setenv("OPSASSIST_RETRIES", "0")
    monkeypatch.setenv("OPSASSIST_REQUEST_TIMEOUT", "5")
    yield server
    server.close()


@pytest.fixture
def store(home: Path) -> Iterator[Store]:
    s = open_store(home / "opsassist.db")
    yield s
    s.close()


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run the CLI in-process; returns exit code and captured output."""

    def run(*args: str) -> CliResult:
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse exits on usage errors
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def run_process(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run `python -m opsassist ARGS` as a real process with the test's OPSASSIST_HOME."""
    return subprocess.run(
        [sys.executable, "-m", "opsassist", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )
