"""`opsassist chat --plain`: the line mode (prompt-toolkit), for a dumb terminal, a serial console or a pipe.

It consumes the same agent event stream as the TUI and offers the same verbs: a message for the model,
`!cmd` through the guard and approval path, `/pin [N]`, `/unpin N`, `/approvals`, `/approve ID`, `/deny ID`,
`/quit`. Without a model, messages are kept as notes.
"""

from __future__ import annotations

import asyncio
import json
import sys

from opsassist.config import LoadedSettings
from opsassist.errors import OpsassistError
from opsassist.guard.rules import derive_rules_for_store
from opsassist.render import approvals_table, pin_rules_line, print_event, print_renderable
from opsassist.store import Store, open_store
from opsassist.textsafe import terminal_safe

HELP = (
    "message → the model · !cmd → a shell command through the guard · /pin [N] · /unpin N · /approvals · "
    "/approve ID · /deny ID · /quit"
)


class PlainChat:
    def __init__(self, loaded: LoadedSettings, store: Store, session_id: str | None) -> None:
        self.loaded = loaded
        self.store = store
        self.session_id = session_id

    def session(self, first_text: str) -> str:
        if self.session_id is None:
            self.session_id = self.store.create_session(" ".join(first_text.split())[:60])
            print(f"(new session {self.session_id})")
        return self.session_id

    def gateway(self):  # type: ignore[no-untyped-def]
        from opsassist.gateway import open_gateway

        assert self.session_id is not None
        return open_gateway(self.store, self.session_id, self.loaded)

    def handle(self, line: str) -> bool:
        """One line of input; False to stop."""
        text = line.strip()
        if not text:
            return True
        if text in ("/quit", "/exit"):
            return False
        if text == "/help":
            print(HELP)
        elif text.startswith("/pin") or text.startswith("/unpin"):
            self.pin(text)
        elif text == "/approvals":
            print_renderable(approvals_table(self.store.approvals(self.session_id)))
        elif text.startswith(("/approve ", "/deny ")):
            verb, _, approval_id = text.partition(" ")
            self.decide(approval_id.strip(), verb == "/approve")
        elif text.startswith("!"):
            self.shell(text[1:].strip())
        else:
            self.ask(line)
        return True

    def pin(self, text: str) -> None:
        if self.session_id is None:
            print("nothing to pin yet")
            return
        parts = text.split()
        messages = self.store.messages(self.session_id)
        target = messages[-1] if len(parts) == 1 and messages else None
        if len(parts) == 2 and parts[1].lstrip("#").isdigit():
            target = next((m for m in messages if m.id == int(parts[1].lstrip("#"))), None)
        if target is None:
            print("usage: /pin, /pin N or /unpin N, with N a message number of this session")
            return
        if parts[0] == "/unpin":
            print(f"unpinned #{target.id}" if self.store.unpin(target.id) else f"#{target.id} was not pinned")
            return
        rules, patterns = derive_rules_for_store(target.content)
        self.store.pin(target.id, rules=rules, patterns=patterns)
        print(f"📌 pinned #{target.id}: {pin_rules_line(rules)}")

    def decide(self, approval_id: str, approve: bool) -> None:
        row = self.store.approval(approval_id)
        if row is None:
            print(f"no held action {approval_id}")
            return
        from opsassist.gateway import open_gateway

        gateway = open_gateway(self.store, row["session_id"], self.loaded)
        try:
            if approve:
                result = gateway.approve(approval_id)
                print(terminal_safe(str(result.get("output", json.dumps(result)))))
            else:
                gateway.deny(approval_id)
                print(f"denied {approval_id}")
        except OpsassistError as exc:
            print(f"refused: {exc}")

    def shell(self, command: str) -> None:
        session_id = self.session(f"!{command}")
        self.store.add_message(session_id, "user", f"!{command}", kind="note")
        answer = self.gateway().execute("run_shell", {"command": command})
        if answer["status"] == "ok":
            result = answer["result"]
            output = str(result.get("output", ""))
            print(terminal_safe(output), end="" if output.endswith("\n") else "\n")
            self.store.add_message(
                session_id,
                "user",
                f"[!cmd] {command}\nexit {result.get('exit_code')}\n{output}",
                kind="note",
                meta={"shell": result},
            )
        elif answer["status"] == "blocked":
            first = answer["violations"][0]
            print(
                f"⛔ blocked: crosses pin {first['pin']['id']} «{terminal_safe(first['pin']['text'])}»: "
                f"{terminal_safe(first['reason'])}"
            )
            self.store.add_message(session_id, "tool", json.dumps(answer), kind="guard", meta={"command": command})
        else:
            print(f"⏸ held for approval {answer.get('approval_id')}: /approve {answer.get('approval_id')}")

    def ask(self, text: str) -> None:
        session_id = self.session(text)
        if not self.loaded.settings.model:
            self.store.add_message(session_id, "user", text, kind="note")
            print("(saved as a note: no model configured; set OPSASSIST_MODEL to chat)")
            return
        from opsassist.agent.llm import token_counter
        from opsassist.agent.loop import AgentLoop
        from opsassist.agent.model import ModelConfig, ModelError

        try:
            model = ModelConfig.from_settings(self.loaded.settings)
        except ModelError as exc:
            print(f"✗ {exc}")
            return
        loop = AgentLoop(
            self.store, session_id, self.loaded.settings, self.gateway(), model, token_counter(model.model), model.model
        )

        async def run() -> None:
            async for event in loop.run_turn(text):
                print_event(event)

        asyncio.run(run())


def run_plain(loaded: LoadedSettings, session_id: str | None) -> int:
    store = open_store(loaded.paths.database)
    chat = PlainChat(loaded, store, session_id)
    print(f"opsassist line mode · {HELP}")
    if not loaded.settings.model:
        print("No model configured: notes, pins, the guard and !cmd work. Set OPSASSIST_MODEL to chat.")
    if not sys.stdin.isatty():
        for line in sys.stdin:
            if not chat.handle(line.rstrip("\n")):
                break
        return 0
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory

    loaded.paths.data_dir.mkdir(parents=True, exist_ok=True)
    prompt: PromptSession[str] = PromptSession(history=FileHistory(str(loaded.paths.data_dir / "plain-history")))
    while True:
        try:
            line = prompt.prompt("› ")
        except (EOFError, KeyboardInterrupt):
            return 0
        if not chat.handle(line):
            return 0
