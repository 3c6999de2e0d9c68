"""The code is formatted and linted as pyproject.toml says (ruff), so style never drifts between sessions."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    return subprocess.run([exe, *args, "opsassist", "tests", "bench"], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check() -> None:
    result = ruff("check")
    assert result.returncode == 0, result.stdout


def test_ruff_format() -> None:
    result = ruff("format", "--check")
    assert result.returncode == 0, result.stdout
