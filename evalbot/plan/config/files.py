"""The plan read from disk: ``load_config`` and the reader of the files it names.

The only module of :mod:`evalbot.plan.config` that reads files; the action reads the plan from the
pull request's base commit instead (:mod:`evalbot.action`), with the same parser.
"""

from __future__ import annotations

from pathlib import Path

from evalbot.errors import ConfigError
from evalbot.plan.config.parse import parse_config
from evalbot.plan.config.reader import ReadText
from evalbot.plan.config.records import Config

__all__ = ["file_reader", "load_config"]


def file_reader(config_path: str) -> ReadText:
    """``read_text`` for :func:`parse_config`: names are relative to the config file's folder."""
    folder = Path(config_path).parent

    def read_text(name: str) -> str:
        return (folder / name).read_text(encoding="utf-8")

    return read_text


def load_config(path: str | None) -> Config:
    """Read a config file; ``None`` means defaults (and ``.evalbot.yml`` if it exists here)."""
    if path is None:
        default = Path(".evalbot.yml")
        if not default.is_file():
            return Config()
        path = str(default)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid UTF-8") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read ({error.strerror})") from None
    return parse_config(text, path, read_text=file_reader(path))
