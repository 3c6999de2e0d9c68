"""Modal screens: the context inspector and the session browser."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from opsassist.render import short_time
from opsassist.store import SearchHit, SessionSummary
from opsassist.textsafe import terminal_safe


class InspectorScreen(ModalScreen[None]):
    """Exactly what the model receives next: sources with weights, the payload, tokens compiled vs raw."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close", id="inspector.close", tooltip="Close the context inspector"),
    ]
    DEFAULT_CSS = """
    InspectorScreen { align: center middle; }
    InspectorScreen > VerticalScroll {
        width: 96%; height: 92%; border: round $primary; background: $surface; padding: 0 1;
    }
    #inspector-body { width: 100%; }
    """

    def __init__(self, view: RenderableType) -> None:
        super().__init__()
        self.view = view

    def compose(self) -> ComposeResult:
        with VerticalScroll() as scroll:
            scroll.border_title = "Context inspector — what the model receives next (esc closes)"
            yield Static(self.view, id="inspector-body")


class SessionBrowser(ModalScreen[str | None]):
    """Past sessions, newest first; typing searches every message. Enter opens the highlighted session."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss(None)", "Close", id="browser.close", tooltip="Close without opening"),
    ]
    DEFAULT_CSS = """
    SessionBrowser { align: center middle; }
    SessionBrowser > Vertical {
        width: 90%; height: 85%; border: round $primary; background: $surface; padding: 0 1;
    }
    SessionBrowser OptionList { height: 1fr; }
    """

    def __init__(self, sessions: list[SessionSummary], search: Any) -> None:
        super().__init__()
        self.sessions = sessions
        self._search = search

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Sessions — type to search messages, enter opens, esc closes"
            yield Input(placeholder="search all messages…", id="browser-search")
            yield OptionList(*self._session_options(self.sessions), id="browser-list")

    @staticmethod
    def _session_options(sessions: list[SessionSummary]) -> list[Option]:
        options = []
        for s in sessions:
            label = Text()
            label.append(f"{s.id}  ", style="bold")
            label.append(f"{short_time(s.updated_at)}  ", style="dim")
            label.append(terminal_safe(s.title or "(untitled)"))
            label.append(f"   {s.messages} msgs", style="dim")
            if s.pins:
                label.append(f" · 📌 {s.pins}", style="bold")
            options.append(Option(label, id=s.id))
        return options or [Option("No sessions yet.", id="", disabled=True)]

    @staticmethod
    def _hit_options(hits: list[SearchHit]) -> list[Option]:
        options = []
        for index, hit in enumerate(hits):
            label = Text()
            label.append(f"{hit.session_id}  #{hit.message_id}  ", style="bold")
            label.append(terminal_safe(hit.snippet.replace("\ue000", "«").replace("\ue001", "»")).replace("\n", " "))
            options.append(Option(label, id=f"{hit.session_id}:{index}"))
        return options or [Option("No message matches.", id="", disabled=True)]

    async def on_input_changed(self, event: Input.Changed) -> None:
        listing = self.query_one(OptionList)
        listing.clear_options()
        if not event.value.strip():
            listing.add_options(self._session_options(self.sessions))
            return
        hits = await self._search(event.value)
        listing.add_options(self._hit_options(hits))

    def on_input_submitted(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id:
            self.dismiss(event.option.id.split(":")[0])
