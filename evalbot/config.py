"""``.evalbot.yml``: the pre-registered analysis plan, parsed strictly into frozen objects.

Unknown keys are refused with a "did you mean" hint; wrong types and out-of-range values are
reported with their dotted path and the bad value. Only ``yaml.safe_load`` is ever used.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from evalbot.errors import ConfigError
from evalbot.results.builder import show
from evalbot.results.options import FieldNames

FailOn = Literal["significant_regression", "not_significant_improvement", "never"]
McNemarMethod = Literal["exact", "midp", "asymptotic"]


@dataclass(frozen=True, kw_only=True)
class BootstrapConfig:
    resamples: int = 10_000
    seed: int = 0
    confidence: float = 0.95


@dataclass(frozen=True, kw_only=True)
class PolicyConfig:
    sample_size: int | None = None
    max_looks: int | None = None
    missing: Literal["error", "fail", "drop"] = "error"


@dataclass(frozen=True, kw_only=True)
class GateConfig:
    fail_on: FailOn = "significant_regression"
    max_broken: int | None = None


@dataclass(frozen=True, kw_only=True)
class Config:
    """The whole plan; every field has the default a user gets without a config file."""

    metric: str | None = None
    alpha: float = 0.05
    mcnemar: McNemarMethod = "exact"
    format: str | None = None
    fields: FieldNames = field(default_factory=FieldNames)
    bootstrap: BootstrapConfig = field(default_factory=BootstrapConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    gate: GateConfig = field(default_factory=GateConfig)
    source: str = "(defaults)"


def _hint(key: str, allowed: list[str], prefix: str) -> str:
    close = difflib.get_close_matches(key, allowed, n=1)
    return f"; did you mean `{prefix}{close[0]}`?" if close else f"; allowed: {', '.join(allowed)}"


class _Reader:
    """Reads one mapping of the YAML, tracking the dotted path for messages."""

    def __init__(self, source: str, data: Mapping[str, Any], path: str, allowed: list[str]):
        self.source, self.data, self.path = source, data, path
        for key in data:
            if not isinstance(key, str) or key not in allowed:
                hint = _hint(str(key), allowed, self.dotted(""))
                raise ConfigError(f"{source}: unknown key `{self.dotted(str(key))}`{hint}")

    def dotted(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, expected: str) -> ConfigError:
        return ConfigError(
            f"{self.source}: `{self.dotted(key)}` must be {expected}, got {show(self.data[key])}"
        )

    def int(self, key: str, default: int | None, minimum: int) -> int | None:
        if key not in self.data or self.data[key] is None:
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(key, f"an integer >= {minimum}")
        return value

    def prob(self, key: str, default: float, *, low: float = 0.0, high: float = 1.0) -> float:
        if key not in self.data:
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or not low < value < high:
            raise self.fail(key, f"a number strictly between {low:g} and {high:g}")
        return float(value)

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        if key not in self.data:
            return default
        value = self.data[key]
        if value not in choices:
            raise self.fail(key, "one of " + ", ".join(choices))
        return str(value)

    def text(self, key: str, default: str | None) -> str | None:
        if key not in self.data or self.data[key] is None:
            return default
        value = self.data[key]
        if not isinstance(value, str) or not value:
            raise self.fail(key, "a non-empty string")
        return value

    def section(self, key: str, allowed: list[str]) -> _Reader:
        value = self.data.get(key, {})
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            raise self.fail(key, "a mapping")
        return _Reader(self.source, value, self.dotted(key), allowed)


TOP_KEYS = ["metric", "alpha", "mcnemar", "format", "fields", "bootstrap", "policy", "gate"]


def parse_config(text: str, source: str) -> Config:
    """Parse the text of ``.evalbot.yml``."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(error, "problem", None) or "malformed YAML"
        raise ConfigError(f"{where}: not valid YAML ({problem})") from None
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a mapping of settings, got {show(data)}")
    top = _Reader(source, data, "", TOP_KEYS)
    names = top.section("fields", list(FieldNames.__dataclass_fields__))
    fields = FieldNames(
        **{
            name: names.text(name, None) or getattr(FieldNames(), name)
            for name in FieldNames.__dataclass_fields__
        }
    )
    boot = top.section("bootstrap", ["resamples", "seed", "confidence"])
    policy = top.section("policy", ["sample_size", "max_looks", "missing"])
    gate = top.section("gate", ["fail_on", "max_broken"])
    return Config(
        metric=top.text("metric", None),
        alpha=top.prob("alpha", 0.05, high=0.5),
        mcnemar=top.choice("mcnemar", "exact", ("exact", "midp", "asymptotic")),  # type: ignore[arg-type]
        format=top.text("format", None),
        fields=fields,
        bootstrap=BootstrapConfig(
            resamples=boot.int("resamples", 10_000, 100) or 10_000,
            seed=boot.int("seed", 0, 0) or 0,
            confidence=boot.prob("confidence", 0.95, low=0.5),
        ),
        policy=PolicyConfig(
            sample_size=policy.int("sample_size", None, 1),
            max_looks=policy.int("max_looks", None, 1),
            missing=policy.choice("missing", "error", ("error", "fail", "drop")),  # type: ignore[arg-type]
        ),
        gate=GateConfig(
            fail_on=gate.choice(  # type: ignore[arg-type]
                "fail_on",
                "significant_regression",
                ("significant_regression", "not_significant_improvement", "never"),
            ),
            max_broken=gate.int("max_broken", None, 0),
        ),
        source=source,
    )


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
    return parse_config(text, path)


def with_overrides(config: Config, **bootstrap: Any) -> Config:
    """The config with command-line bootstrap overrides (``None`` values are ignored)."""
    given = {k: v for k, v in bootstrap.items() if v is not None}
    if not given:
        return config
    return replace(config, bootstrap=replace(config.bootstrap, **given))
