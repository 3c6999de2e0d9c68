"""Settings: one typed object, read from a TOML file and overridden by `OPSASSIST_*` environment variables.

The environment wins, so an on-call engineer can change one thing for one command without editing a file.
Every field is documented here; `opsassist config` shows the effective value of each and where it came from.
A bad file (unreadable, not TOML, unknown key, wrong type) or a bad variable is a `ConfigError` whose text
names the file or variable and the key.
"""

from __future__ import annotations

import json
import os
import tomllib
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from opsassist.errors import OpsassistError
from opsassist.paths import Paths, resolve_paths

ENV_PREFIX = "OPSASSIST_"
# Variables with the prefix that are not settings fields.
RESERVED_ENV = {"OPSASSIST_HOME"}


class ConfigError(OpsassistError):
    """The settings could not be loaded; the message is one line naming the source and key."""


class Settings(BaseModel):
    """Everything a user can set. Field docstrings are the documentation."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, frozen=True)

    model: str | None = None
    """litellm model string, e.g. `gpt-4o-mini`, `anthropic/claude-3-5-sonnet-latest`, `openai/<name>`."""

    api_base: str | None = None
    """Base URL of an OpenAI-compatible endpoint (vLLM, LM Studio, a local server)."""

    api_key_env: str | None = None
    """Name of the environment variable holding the API key; the key itself is never stored."""

    decay_mode: Literal["turns", "minutes"] = "turns"
    """How a message ages: by turns since it was sent, or by wall-clock minutes (half-life)."""

    decay_rate: float = Field(default=0.05, ge=0.0)
    """Per-turn decay rate in `w = max(min_weight, exp(-decay_rate * age))`."""

    min_weight: float = Field(default=0.2, ge=0.0, le=1.0)
    """Floor of a message's weight, so old references still resolve."""

    half_life_minutes: float = Field(default=30.0, gt=0.0)
    """With `decay_mode = "minutes"`: minutes after which a message's weight halves."""

    verbatim_threshold: float = Field(default=0.4, ge=0.0, le=1.0)
    """Messages weighing more than this go out verbatim; the rest go out condensed."""

    token_budget: int | None = Field(default=None, gt=0)
    """Optional cap on tokens of the whole compiled payload; over it, older history is condensed further."""

    request_timeout: float = Field(default=120.0, gt=0)
    """Seconds to wait for the model before the request fails."""

    retries: int = Field(default=2, ge=0, le=10)
    """How often a failed model request is retried (connection errors, 429, 5xx) before an error is shown."""

    tool_calls: bool = True
    """Whether the model supports tool calling; litellm cannot tell for local models, so say it here."""

    max_tool_rounds: int = Field(default=8, ge=1, le=50)
    """Tool rounds allowed in one turn before the loop stops and says so."""

    max_nudges: int = Field(default=2, ge=0, le=10)
    """Hesitation nudges per turn before the model's text goes to the person with a note."""

    hesitation_markers: list[str] = Field(default_factory=list)
    """Extra phrases that mark a model stalling after a schema, added to the built-in list."""

    approval_ttl_seconds: int = Field(default=300, ge=10, le=86_400)
    """How long a held action can be approved before its challenge expires."""

    shell_timeout_seconds: float = Field(default=30.0, gt=0, le=3600)
    """run_shell kills the command's whole process group after this many seconds."""

    output_cap_bytes: int = Field(default=65_536, ge=1024, le=10_485_760)
    """Tool output kept (and shown to the model) per call; the rest is cut with a note."""

    disabled_tools: list[str] = Field(default_factory=list)
    """Tools the model may not use; the gateway reports them as unauthorized."""

    theme: str | None = None
    """TUI theme; unset, the last one chosen from the palette is used (opsassist-dark at first)."""

    keys: dict[str, str] = Field(default_factory=dict)
    """TUI key remapping: binding id -> key, e.g. {"app.inspector" = "f2"}; `?` in the TUI lists the ids."""


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    sources: dict[str, str]
    """Field name -> where its value came from: `default`, the config file's path, or `env OPSASSIST_X`."""
    paths: Paths


def _first_error(exc: ValidationError) -> tuple[str, str]:
    err = exc.errors()[0]
    key = ".".join(str(p) for p in err["loc"]) or "(top level)"
    return key, err["msg"]


def _read_file(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read config file: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid TOML: file is not UTF-8") from None
    try:
        # Strict: a file that says decay_rate = "0.1" has a type error, not a value.
        Settings.model_validate(data, strict=True)
    except ValidationError as exc:
        key, msg = _first_error(exc)
        if msg.startswith("Extra inputs"):
            msg = "unknown key"
        raise ConfigError(f"{path}: key '{key}': {msg}") from None
    return data


def _parse_env_value(raw: str) -> Any:
    """Environment values are strings; JSON literals (numbers, booleans, lists) are decoded, the rest kept."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _takes_text(field: str) -> bool:
    annotation = Settings.model_fields[field].annotation
    if annotation is str:
        return True
    return get_origin(annotation) in (Union, types.UnionType) and str in get_args(annotation)


def _read_env(environ: dict[str, str] | os._Environ[str]) -> tuple[dict[str, Any], dict[str, str]]:
    values: dict[str, Any] = {}
    names: dict[str, str] = {}
    for var, raw in environ.items():
        if not var.startswith(ENV_PREFIX) or var in RESERVED_ENV:
            continue
        key = var[len(ENV_PREFIX) :].lower()
        if key not in Settings.model_fields:
            raise ConfigError(f"environment variable {var}: unknown setting '{key}'")
        values[key] = raw if _takes_text(key) else _parse_env_value(raw)
        names[key] = var
    return values, names


def load_settings(environ: dict[str, str] | None = None) -> LoadedSettings:
    env = os.environ if environ is None else environ
    paths = resolve_paths(dict(env))
    file_values = _read_file(paths.config_file)
    env_values, env_names = _read_env(env)
    try:
        settings = Settings.model_validate({**file_values, **env_values})
    except ValidationError as exc:
        key, msg = _first_error(exc)
        source = f"environment variable {env_names[key]}" if key in env_names else str(paths.config_file)
        raise ConfigError(f"{source}: key '{key}': {msg}") from None
    sources = {}
    for name in Settings.model_fields:
        if name in env_names:
            sources[name] = f"env {env_names[name]}"
        elif name in file_values:
            sources[name] = str(paths.config_file)
        else:
            sources[name] = "default"
    return LoadedSettings(settings=settings, sources=sources, paths=paths)
