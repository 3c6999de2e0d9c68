"""Settings: TOML file, environment overrides, sources, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opsassist.config import ConfigError, load_settings


def write_config(home: Path, text: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    path = home / "config.toml"
    path.write_text(text)
    return path


def test_defaults_when_no_file(home: Path) -> None:
    loaded = load_settings()
    assert loaded.settings.decay_rate == 0.05
    assert loaded.settings.min_weight == 0.2
    assert set(loaded.sources.values()) == {"default"}
    assert loaded.paths.database == home / "opsassist.db"


def test_environment_overrides_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_config(home, 'model = "gpt-4o-mini"\ndecay_rate = 0.1\n')
    monkeypatch.setenv("OPSASSIST_DECAY_RATE", "0.2")
    monkeypatch.setenv("OPSASSIST_MODEL", "openai/local")
    loaded = load_settings()
    assert loaded.settings.decay_rate == 0.2
    assert loaded.settings.model == "openai/local"
    assert loaded.sources["decay_rate"] == "env OPSASSIST_DECAY_RATE"
    monkeypatch.delenv("OPSASSIST_MODEL")
    assert load_settings().sources["model"] == str(path)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("decay_rat = 0.1\n", "key 'decay_rat': unknown key"),
        ('decay_rate = "fast"\n', "key 'decay_rate'"),
        ("min_weight = 3.0\n", "key 'min_weight'"),
        ("decay_rate = [\n", "not valid TOML"),
    ],
)
def test_bad_file_names_file_and_key(home: Path, text: str, expected: str) -> None:
    path = write_config(home, text)
    with pytest.raises(ConfigError) as info:
        load_settings()
    message = str(info.value)
    assert str(path) in message and expected in message
    assert "\n" not in message


def test_bad_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSASSIST_DECAY_RATE", "fast")
    with pytest.raises(ConfigError, match="OPSASSIST_DECAY_RATE"):
        load_settings()
    monkeypatch.delenv("OPSASSIST_DECAY_RATE")
    monkeypatch.setenv("OPSASSIST_MODLE", "x")
    with pytest.raises(ConfigError, match="OPSASSIST_MODLE: unknown setting"):
        load_settings()


def test_unreadable_file(home: Path) -> None:
    path = write_config(home, "")
    path.unlink()
    path.mkdir()  # a directory where the file should be
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings()


def test_config_command(cli, home: Path) -> None:  # type: ignore[no-untyped-def]
    write_config(home, "decay_rate = 0.07\n")
    out = json.loads(cli("config", "--json").out)
    assert out["settings"]["decay_rate"] == {"value": 0.07, "source": str(home / "config.toml")}
    write_config(home, "nonsense = 1\n")
    result = cli("config")
    assert result.code == 2 and "nonsense" in result.err and len(result.err.splitlines()) == 1
