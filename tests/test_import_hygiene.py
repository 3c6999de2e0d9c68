"""The core never loads the UI or the model client: checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import INCIDENT

HEAVY = ("litellm", "textual", "prompt_toolkit", "openai")

PROBE = textwrap.dedent(
    """
    import json, sys
    {code}
    print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {heavy!r})))
    """
)


def loaded_after(code: str) -> list[str]:
    script = PROBE.format(code=code, heavy=set(HEAVY))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_importing_the_package_is_light() -> None:
    assert loaded_after("import opsassist, opsassist.store, opsassist.config, opsassist.render") == []


def test_the_core_imports_neither_the_ui_nor_the_model_client() -> None:
    # litellm is imported lazily by the agent, when a model is called; Textual only by the TUI.
    modules = "opsassist.context, opsassist.guard, opsassist.gateway, opsassist.agent.loop, opsassist.cli"
    assert loaded_after(f"import {modules}") == []


@pytest.mark.parametrize("args", [["sessions"], ["search", "pgbouncer"], ["show", "SESSION"], ["export", "SESSION"]])
def test_review_commands_load_neither_litellm_nor_textual(args: list[str]) -> None:
    code = textwrap.dedent(
        f"""
        from opsassist.cli import main
        sid = None
        import contextlib, io
        with contextlib.redirect_stdout(io.StringIO()) as buf:
            main(["import", {str(INCIDENT)!r}])
        sid = buf.getvalue().strip()
        args = [a.replace("SESSION", sid) for a in {args!r}]
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(args) == 0
        """
    )
    assert loaded_after(code) == []
