#!/usr/bin/env python3
"""The two commands of the README: `python3 tasks.py run` and `python3 tasks.py test`.

Needs nothing but Python 3.11+: each command creates `.venv/` beside this file on first use, installs the
project into it (again whenever pyproject.toml changes), then runs the app or the test suite in it.
Extra arguments are passed through: `python3 tasks.py run sessions --json`, `python3 tasks.py test -k guard`.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".opsassist-installed"


def _wanted_stamp() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def ensure_venv() -> None:
    if sys.version_info < (3, 11):
        sys.exit(f"opsassist needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    wanted = _wanted_stamp()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not (BIN / "python").exists():
        print("creating .venv ...", file=sys.stderr)
        venv.EnvBuilder(with_pip=True).create(VENV)
    print("installing opsassist and its test dependencies into .venv ...", file=sys.stderr)
    pip = [str(BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "-e", f"{ROOT}[test]"], check=True)
    STAMP.write_text(wanted)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"run", "test"}:
        print(__doc__, file=sys.stderr)
        return 2
    ensure_venv()
    command, rest = argv[0], argv[1:]
    if command == "run":
        args = [str(BIN / "opsassist"), *rest]
    else:
        args = [str(BIN / "python"), "-m", "pytest", *rest]
    os.chdir(ROOT)
    os.execv(args[0], args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
