"""Themes are data: TOML files in `themes/` (shipped) and `<config>/themes/` (yours), validated on load.

Each file gives Textual's base colours plus opsassist's own variables (`$pin`, `$blocked`, `$approval`,
`$weight-high`, `$weight-mid`, `$weight-low`, `$think`, `$tool`), so TCSS and rendered rows never hard-code
a colour. A broken user theme is reported and skipped; it never stops the app.
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

REQUIRED_VARIABLES = ("pin", "blocked", "approval", "weight-high", "weight-mid", "weight-low", "think", "tool")
COLOR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "success",
    "warning",
    "error",
)
DEFAULT_THEME = "opsassist-dark"
# Used when a theme without opsassist's variables is active (Textual's built-in ones), and before any is.
FALLBACK_VARIABLES = {
    "pin": "#FF6B6B",
    "blocked": "#E05D5D",
    "approval": "#E0B84F",
    "weight-high": "#6FBF73",
    "weight-mid": "#C9B458",
    "weight-low": "#6B7383",
    "think": "#6B7383",
    "tool": "#7E8CA3",
}


@dataclass
class ThemeLoad:
    themes: list[Theme]
    problems: list[str]


def shipped_theme_dirs() -> list[Path]:
    """The repository's themes/ (source and editable installs) and the installed data-files copy."""
    return [Path(__file__).resolve().parents[2] / "themes", Path(sys.prefix) / "share" / "opsassist" / "themes"]


def theme_from_file(path: Path) -> Theme:
    """A Theme from one TOML file; ValueError naming the key if anything is off."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(f"{path}: cannot read theme: {exc}") from None
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{path}: 'name' is missing")
    unknown = set(data) - {"name", "dark", "variables", *COLOR_KEYS}
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}")
    colors = {}
    for key in COLOR_KEYS:
        if key in data:
            try:
                Color.parse(data[key])
            except (ColorParseError, TypeError):
                raise ValueError(f"{path}: '{key}' is not a colour: {data[key]!r}") from None
            colors[key] = data[key]
    if "primary" not in colors:
        raise ValueError(f"{path}: 'primary' is required")
    variables = data.get("variables", {})
    missing = [v for v in REQUIRED_VARIABLES if v not in variables]
    if missing:
        raise ValueError(f"{path}: variables missing: {', '.join(missing)}")
    for key, value in variables.items():
        try:
            Color.parse(value)
        except (ColorParseError, TypeError):
            raise ValueError(f"{path}: variable '{key}' is not a colour: {value!r}") from None
    return Theme(name=name, dark=bool(data.get("dark", True)), variables=dict(variables), **colors)


def load_themes(user_dir: Path) -> ThemeLoad:
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    for folder in [*shipped_theme_dirs(), user_dir]:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = theme_from_file(path)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            themes[theme.name] = theme
    return ThemeLoad(list(themes.values()), problems)
