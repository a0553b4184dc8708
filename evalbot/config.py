"""``.evalbot.yml``: the pre-registered analysis plan, parsed strictly into frozen objects.

Unknown keys are refused with a "did you mean" hint; wrong types and out-of-range values are
reported with their dotted path and the bad value. Only ``yaml.safe_load`` is ever used.

The accepted keys are also described by ``evalbot/schema/evalbot.schema.json``; a test keeps
the two in agreement. Files named by the plan (``all_ids``, ``policy.items_file``,
``holdout.ids_file``) are read through a ``read_text`` callback, relative to the config file, so
the same parser serves a local checkout and the pull request's base commit fetched from GitHub.
"""

from __future__ import annotations

import builtins
import difflib
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from evalbot.errors import ConfigError, InputError
from evalbot.limits import MAX_RESAMPLES
from evalbot.rates import DIFFERENCE_HINT, parse_difference, parse_rate
from evalbot.results.builder import show
from evalbot.results.ids import parse_id_list
from evalbot.results.options import FieldNames, ReadOptions
from evalbot.results.pairing import fingerprint
from evalbot.vocabulary import (
    ALPHA,
    BOOTSTRAP_METHODS,
    CONFIDENCE,
    ERRORS_RULES,
    FAIL_ON_CHOICES,
    LOOKS_RULES,
    MCNEMAR_METHODS,
    MISSING_RULES,
    MODES,
    ON_REFUSED_CHOICES,
    POWER,
    PRIMARY_TESTS,
    RESAMPLES,
    SEED,
    BootstrapMethod,
    ErrorsRule,
    FailOn,
    LooksRule,
    McNemarMethod,
    Missing,
    Mode,
    OnRefused,
    PrimaryTest,
)

#: The old names of the bootstrap method's vocabulary (kept for importers); ``MAX_RESAMPLES``
#: is re-exported for the same reason.
CiMethod = BootstrapMethod
CI_METHODS = BOOTSTRAP_METHODS
__all__ = [
    "BOOTSTRAP_KEYS",
    "CI_METHODS",
    "F1_KEYS",
    "FIELD_KEYS",
    "GATE_KEYS",
    "HOLDOUT_KEYS",
    "MAX_RESAMPLES",
    "PLAN_KEYS",
    "POLICY_KEYS",
    "REPORT_KEYS",
    "TOP_KEYS",
    "BootstrapConfig",
    "CiMethod",
    "Config",
    "F1Config",
    "GateConfig",
    "HoldoutConfig",
    "PlanConfig",
    "PolicyConfig",
    "ReportConfig",
    "file_reader",
    "load_config",
    "parse_config",
    "with_overrides",
    "with_reading",
]

ReadText = Callable[[str], str]


@dataclass(frozen=True, kw_only=True)
class BootstrapConfig:
    resamples: int = RESAMPLES
    seed: int = SEED
    confidence: float = CONFIDENCE
    method: BootstrapMethod = BOOTSTRAP_METHODS[
        0
    ]  # percentile or bias-corrected and accelerated (BCa)


@dataclass(frozen=True, kw_only=True)
class F1Config:
    """``f1:`` the per-item fields holding true positives, false positives, false negatives."""

    tp: str = "tp"
    fp: str = "fp"
    fn: str = "fn"

    @property
    def columns(self) -> tuple[str, str, str]:
        return (self.tp, self.fp, self.fn)


@dataclass(frozen=True, kw_only=True)
class PlanConfig:
    """``plan:`` the effect the eval must be able to detect; the item count is computed from it.

    ``design_effect`` (>= 1) is the variance inflation of clustered items (Kish's
    ``1 + (m - 1) ICC``): the planned items are multiplied by it, and the report's minimum
    detectable effect divides the items by it when the results carry no cluster labels to
    estimate it from.
    """

    fix_rate: float
    break_rate: float
    power: float = POWER
    # variance inflation of clustered items (Kish: 1 + (m - 1) ICC): items needed times it
    design_effect: float = 1.0


@dataclass(frozen=True, kw_only=True)
class PolicyConfig:
    sample_size: int | None = None
    max_looks: int | None = None
    missing: Missing = MISSING_RULES[0]
    mode: Mode = MODES[0]
    looks: LooksRule = LOOKS_RULES[0]
    items_sha256: str | None = None
    items_file: str | None = None
    min_effect: float | None = None
    errors: ErrorsRule = ERRORS_RULES[0]


@dataclass(frozen=True, kw_only=True)
class ReportConfig:
    """``report:`` how the comment shows items: a link template and an optional own template."""

    item_url: str | None = None  # e.g. "https://logs.example/{id}"; the id is URL-quoted
    template: str | None = None  # a jinja2 template file replacing the bundled comment


@dataclass(frozen=True, kw_only=True)
class HoldoutConfig:
    """``holdout:`` a sealed set of item ids, analysed only on request and counted per use."""

    ids_file: str
    max_uses: int | None = None
    ids: tuple[str, ...] | None = None  # the ids read from ``ids_file`` (None: not read)


@dataclass(frozen=True, kw_only=True)
class GateConfig:
    fail_on: FailOn = FAIL_ON_CHOICES[0]
    max_broken: int | None = None  # an absolute item count
    max_broken_rate: float | None = None  # a share of the items (``5%`` or ``0.05``)
    margin: float | None = None  # non-inferiority margin, in the metric's units
    # a verdict the plan refused (an extra look, other items, another item count, a tampered
    # looks ledger): ``fail`` the check (the default) or leave it ``neutral``
    on_refused: OnRefused = ON_REFUSED_CHOICES[0]


@dataclass(frozen=True, kw_only=True)
class Config:
    """The whole plan; every field has the default a user gets without a config file."""

    metric: str | None = None
    alpha: float = ALPHA
    mcnemar: McNemarMethod = MCNEMAR_METHODS[0]
    test: PrimaryTest = PRIMARY_TESTS[0]
    format: str | None = None
    scorer: str | None = None
    filter: str | None = None
    all_ids: str | None = None
    # the ids the ``all_ids`` file names, read relative to the config file (the action: at the
    # base commit); None when not read (no such key, or parsed without a reader)
    all_ids_list: tuple[str, ...] | None = None
    secondary_metrics: tuple[str, ...] = ()
    f1: F1Config | None = None
    fields: FieldNames = field(default_factory=FieldNames)
    bootstrap: BootstrapConfig = field(default_factory=BootstrapConfig)
    plan: PlanConfig | None = None
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    holdout: HoldoutConfig | None = None
    gate: GateConfig = field(default_factory=GateConfig)
    report: ReportConfig = field(default_factory=ReportConfig)
    source: str = "(defaults)"

    def read_options(self) -> ReadOptions:
        """How the result files are read under this plan."""
        return ReadOptions(
            fields=self.fields,
            metric=self.metric,
            format=self.format,
            scorer=self.scorer,
            filter=self.filter,
            all_ids=self.all_ids,
            known_ids=self.all_ids_list,
            secondary=self.secondary_metrics,
            columns=() if self.f1 is None else self.f1.columns,
        )


def _hint(key: str, allowed: list[str], prefix: str) -> str:
    close = difflib.get_close_matches(key, allowed, n=1)
    return f"; did you mean `{prefix}{close[0]}`?" if close else f"; allowed: {', '.join(allowed)}"


_Choice = TypeVar("_Choice", bound=str)
_SHA256 = re.compile(r"[0-9a-f]{64}")


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

    def error(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.source}: `{self.dotted(key)}` {message}")

    def fail(self, key: str, expected: str) -> ConfigError:
        return self.error(key, f"must be {expected}, got {show(self.data[key])}")

    def given(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def int(self, key: str, default: int | None, minimum: int) -> int | None:
        if not self.given(key):
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(key, f"an integer >= {minimum}")
        return value

    def prob(self, key: str, default: float, *, low: float = 0.0, high: float = 1.0) -> float:
        """A rate strictly between ``low`` and ``high``: a number (``0.05``) or a percentage
        (``5%``), read by :func:`evalbot.rates.parse_rate` as the flags are."""
        if key not in self.data:
            return default
        expected = f"a number strictly between {low:g} and {high:g} (a fraction or a percentage)"
        try:
            value = parse_rate(self.data[key])
        except ValueError:
            raise self.fail(key, expected) from None
        if not low < value < high:
            raise self.fail(key, expected)
        return value

    def difference(self, key: str) -> float | None:
        """A signed difference in pass rate: ``3pp``, ``+3%``, ``0.03``; not 0."""
        if not self.given(key):
            return None
        expected = f"{DIFFERENCE_HINT} (not 0, under 100 pp)"
        try:
            value = parse_difference(self.data[key])
        except ValueError:
            raise self.fail(key, expected) from None
        if value == 0 or not -1.0 < value < 1.0:
            raise self.fail(key, expected)
        return value

    def optional_prob(self, key: str, *, low: float = 0.0, high: float = 1.0) -> float | None:
        return self.prob(key, 0.0, low=low, high=high) if self.given(key) else None

    def choice(self, key: str, choices: tuple[_Choice, ...]) -> _Choice:
        """One of ``choices`` (a vocabulary of :mod:`evalbot.vocabulary`; the first is the
        default)."""
        if key not in self.data:
            return choices[0]
        value = self.data[key]
        for choice in choices:
            if value == choice and isinstance(value, str):
                return choice
        raise self.fail(key, "one of " + ", ".join(choices))

    def text(self, key: str, default: str | None) -> str | None:
        if not self.given(key):
            return default
        value = self.data[key]
        if not isinstance(value, str) or not value:
            raise self.fail(key, "a non-empty string")
        return value

    def sha256(self, key: str) -> str | None:
        if not self.given(key):
            return None
        value = self.data[key]
        if not isinstance(value, str) or not _SHA256.fullmatch(value):
            raise self.fail(key, "64 lowercase hexadecimal digits (a sha256)")
        return value

    def count_or_rate(self, key: str) -> tuple[builtins.int | None, float | None]:
        """An item count (``10``) or a share of the items (``5%`` or ``0.05``)."""
        if not self.given(key):
            return None, None
        value = self.data[key]
        expected = "an integer >= 0 (items) or a rate such as 5% or 0.05"
        if isinstance(value, bool):
            raise self.fail(key, expected)
        if isinstance(value, int):
            if value < 0:
                raise self.fail(key, expected)
            return value, None
        if isinstance(value, float):
            if not 0.0 <= value < 1.0:
                raise self.fail(key, expected)
            return None, value
        if isinstance(value, str):
            try:
                rate = parse_rate(value) if value.strip().endswith("%") else -1.0
            except ValueError:
                rate = -1.0
            if 0.0 <= rate < 1.0:
                return None, rate
        raise self.fail(key, expected)

    def section(self, key: str, allowed: list[str]) -> _Reader:
        value = self.data.get(key, {})
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            raise self.fail(key, "a mapping")
        return _Reader(self.source, value, self.dotted(key), allowed)

    def ids_file(self, key: str, read_text: ReadText | None) -> tuple[str, ...] | None:
        """The item ids listed in the file named by ``key`` (one per line)."""
        name = self.text(key, None)
        if name is None or read_text is None:
            return None
        try:
            content = read_text(name)
        except FileNotFoundError:
            raise self.error(
                key, f"names {name!r}, which does not exist (read relative to the config file)"
            ) from None
        except UnicodeDecodeError:
            raise self.error(key, f"names {name!r}, which is not valid UTF-8") from None
        except OSError as error:
            raise self.error(key, f"names {name!r}, which cannot be read ({error})") from None
        try:
            return parse_id_list(content, source=f"{name} (`{self.dotted(key)}`)")
        except InputError as error:  # the file is part of the plan
            raise ConfigError(str(error)) from None


FIELD_KEYS = list(FieldNames.__dataclass_fields__)


def field_names(given: Mapping[str, str], where: str, base: FieldNames | None = None) -> FieldNames:
    """``base`` (default: the default names) with ``given`` replacing some; two roles naming
    one field are refused (``passed`` and ``score`` both ``correct``: which is compared?)."""
    names = replace(base or FieldNames(), **dict(given))
    roles: dict[str, str] = {}
    for role in FIELD_KEYS:
        name = getattr(names, role)
        if name in roles:
            raise ConfigError(
                f"{where}: `{roles[name]}` and `{role}` both name the field {show(name)}; "
                "each role needs its own field"
            )
        roles[name] = role
    return names


TOP_KEYS = [
    "metric",
    "alpha",
    "test",
    "mcnemar",
    "format",
    "scorer",
    "filter",
    "all_ids",
    "secondary_metrics",
    "f1",
    "fields",
    "bootstrap",
    "plan",
    "policy",
    "holdout",
    "gate",
    "report",
]
REPORT_KEYS = ["item_url", "template"]
BOOTSTRAP_KEYS = ["resamples", "seed", "confidence", "method"]
F1_KEYS = ["tp", "fp", "fn"]
PLAN_KEYS = ["fix_rate", "break_rate", "difference", "discordance", "power", "design_effect"]
POLICY_KEYS = [
    "sample_size",
    "max_looks",
    "missing",
    "mode",
    "looks",
    "items_sha256",
    "items_file",
    "min_effect",
    "errors",
]
HOLDOUT_KEYS = ["ids_file", "max_uses"]
GATE_KEYS = ["fail_on", "max_broken", "margin", "on_refused"]


@functools.cache
def _strict_loader() -> type[Any]:
    """The YAML loader class, made on first use: yaml is imported only when a config file is
    read (a run without one never loads it)."""
    import yaml

    class _StrictLoader(yaml.SafeLoader):
        """``yaml.safe_load`` that refuses aliases and repeated keys, with the file's name.

        Aliases (``*name``) are refused where they appear, before anything is expanded: the plan
        has no use for them, and an alias-of-aliases ("billion laughs") would otherwise be a few
        hundred bytes that grow to gigabytes once printed (an error message quoting a value does).
        A key given twice in one mapping is refused (YAML itself forbids it; PyYAML keeps the last).
        """

        source = ".evalbot.yml"

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()  # type: ignore[no-untyped-call]
                raise ConfigError(
                    f"{self.source}:{event.start_mark.line + 1}: YAML aliases are not accepted "
                    f"(alias {show(event.anchor)}); write the value out"
                )
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                        continue
                    key = self.construct_object(key_node, deep=True)
                    line = key_node.start_mark.line + 1
                    try:
                        first = seen.get(key)
                    except TypeError:
                        continue  # unhashable: the base constructor reports it
                    if first is not None:
                        raise ConfigError(
                            f"{self.source}:{line}: duplicate key {show(key)} (first given on line "
                            f"{first}); which one counts?"
                        )
                    seen[key] = line
            return super().construct_mapping(node, deep=deep)

    return _StrictLoader


#: Most ``[`` and ``{`` a plan may hold. PyYAML's scanner costs time quadratic in the depth of
#: nested flow collections (``[[[[...``: 100,000 characters took seconds), and a plan needs a
#: handful; counting them is linear and cannot be fooled by quoting.
MAX_FLOW_BRACKETS = 1_000


def _load_yaml(text: str, source: str) -> Mapping[str, Any]:
    brackets = text.count("[") + text.count("{")
    if brackets > MAX_FLOW_BRACKETS:
        raise ConfigError(
            f"{source}: {brackets} `[`/`{{` characters, more than the {MAX_FLOW_BRACKETS} a "
            "plan may hold (refused unread: deeply nested flow collections are slow to parse)"
        )
    import yaml

    loader = _strict_loader()(text)
    loader.source = source
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(error, "problem", None) or "malformed YAML"
        problem = problem.replace("\n", " ")
        if len(problem) > 200:
            problem = problem[:197] + "..."
        raise ConfigError(f"{where}: not valid YAML ({problem})") from None
    except RecursionError:
        raise ConfigError(f"{source}: not valid YAML (nested too deeply)") from None
    finally:
        loader.dispose()
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a mapping of settings, got {show(data)}")
    return data


def _parse_plan(top: _Reader) -> PlanConfig | None:
    """``plan:``: the change to detect, as fix and break rates or as the net difference and
    the discordance (the share of items that change outcome; fix/break = (R +- D) / 2)."""
    if not top.given("plan"):
        return None
    plan = top.section("plan", PLAN_KEYS)
    by_rates = [key for key in ("fix_rate", "break_rate") if key in plan.data]
    by_difference = [key for key in ("difference", "discordance") if key in plan.data]
    if by_rates and by_difference:
        raise ConfigError(
            f"{top.source}: give `plan.fix_rate` and `plan.break_rate`, or `plan.difference` "
            "and `plan.discordance`, not both"
        )
    if by_difference:
        fix_rate, break_rate = _plan_from_difference(top, plan)
    else:
        for key in ("fix_rate", "break_rate"):
            if key not in plan.data:
                raise ConfigError(
                    f"{top.source}: `plan.{key}` is required when `plan` is given (or give "
                    "`plan.difference` and `plan.discordance`)"
                )
        fix_rate = plan.prob("fix_rate", 0.0)
        break_rate = plan.prob("break_rate", 0.0, high=1.0)
    if fix_rate + break_rate > 1.0:
        raise ConfigError(
            f"{top.source}: `plan.fix_rate` + `plan.break_rate` must be at most 1, "
            f"got {fix_rate:g} + {break_rate:g}"
        )
    if fix_rate == break_rate:
        raise ConfigError(
            f"{top.source}: `plan.fix_rate` equals `plan.break_rate` ({fix_rate:g}), "
            "so there is no change to detect"
        )
    return PlanConfig(
        fix_rate=fix_rate,
        break_rate=break_rate,
        power=plan.prob("power", POWER, low=0.5),
        design_effect=_design_effect(plan),
    )


def _plan_from_difference(top: _Reader, plan: _Reader) -> tuple[float, float]:
    for key in ("difference", "discordance"):
        if key not in plan.data:
            raise ConfigError(
                f"{top.source}: `plan.{key}` is required with "
                f"`plan.{'discordance' if key == 'difference' else 'difference'}`"
            )
    difference = plan.difference("difference")
    assert difference is not None
    discordance = plan.prob("discordance", 0.0, high=1.0000001)
    if discordance < abs(difference) - 1e-12:
        raise ConfigError(
            f"{top.source}: `plan.discordance` ({discordance:g}) must be at least the size of "
            f"`plan.difference` ({difference:+g}): a net change needs that many items to change"
        )
    fix = float(f"{(discordance + difference) / 2:.12g}")
    brk = float(f"{max(0.0, (discordance - difference) / 2):.12g}")
    return fix, brk


def _design_effect(plan: _Reader) -> float:
    if not plan.given("design_effect"):
        return 1.0
    value = plan.data["design_effect"]
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not 1.0 <= value < float("inf")
    ):
        raise plan.fail("design_effect", "a number >= 1 (1 + (m - 1) ICC for clusters of m)")
    return float(value)


def _parse_policy(top: _Reader, read_text: ReadText | None) -> PolicyConfig:
    policy = top.section("policy", POLICY_KEYS)
    items_sha256 = policy.sha256("items_sha256")
    listed = policy.ids_file("items_file", read_text)
    if listed is not None:
        computed = fingerprint(list(listed))
        if items_sha256 is not None and items_sha256 != computed:
            raise ConfigError(
                f"{top.source}: `policy.items_sha256` is {items_sha256[:12]}... but the ids in "
                f"`policy.items_file` hash to {computed[:12]}...; keep one, or make them agree"
            )
        items_sha256 = computed
    config = PolicyConfig(
        sample_size=policy.int("sample_size", None, 1),
        max_looks=policy.int("max_looks", None, 1),
        missing=policy.choice("missing", MISSING_RULES),
        mode=policy.choice("mode", MODES),
        looks=policy.choice("looks", LOOKS_RULES),
        items_sha256=items_sha256,
        items_file=policy.text("items_file", None),
        min_effect=policy.optional_prob("min_effect"),
        errors=policy.choice("errors", ERRORS_RULES),
    )
    if config.looks == "bonferroni" and config.max_looks is None:
        raise ConfigError(
            f"{top.source}: `policy.looks: bonferroni` divides alpha by `policy.max_looks`, "
            "which is not set"
        )
    if config.looks == "bonferroni" and config.mode == "sequential":
        raise ConfigError(
            f"{top.source}: `policy.looks: bonferroni` does not apply to "
            "`policy.mode: sequential`, whose p-value is valid at every look"
        )
    return config


def _parse_holdout(top: _Reader, read_text: ReadText | None) -> HoldoutConfig | None:
    if not top.given("holdout"):
        return None
    holdout = top.section("holdout", HOLDOUT_KEYS)
    ids_file = holdout.text("ids_file", None)
    if ids_file is None:
        raise ConfigError(f"{top.source}: `holdout.ids_file` is required when `holdout` is given")
    return HoldoutConfig(
        ids_file=ids_file,
        max_uses=holdout.int("max_uses", None, 1),
        ids=holdout.ids_file("ids_file", read_text),
    )


def parse_config(text: str, source: str, *, read_text: ReadText | None = None) -> Config:
    """Parse the text of ``.evalbot.yml``.

    ``read_text(name)`` returns the text of a file the plan names (``all_ids``,
    ``policy.items_file``, ``holdout.ids_file``), relative to the config file; without it those
    files are not read (their names are kept, their ids are not).
    """
    data = _load_yaml(text, source)
    top = _Reader(source, data, "", TOP_KEYS)
    names = top.section("fields", FIELD_KEYS)
    fields = field_names(
        {name: value for name in FIELD_KEYS if (value := names.text(name, None)) is not None},
        f"{source}: `fields`",
    )
    boot = top.section("bootstrap", BOOTSTRAP_KEYS)
    gate = top.section("gate", GATE_KEYS)
    max_broken, max_broken_rate = gate.count_or_rate("max_broken")
    plan = _parse_plan(top)
    policy = _parse_policy(top, read_text)
    if plan is not None and policy.sample_size is not None:
        raise ConfigError(
            f"{source}: give either `policy.sample_size` or `plan` (from which the sample "
            "size is computed), not both"
        )
    test = top.choice("test", PRIMARY_TESTS)
    if test == "bootstrap" and policy.mode == "sequential":
        raise ConfigError(
            f"{source}: `policy.mode: sequential` tests the discordant pairs, so it needs "
            "`test: mcnemar`, got `test: bootstrap`"
        )
    return Config(
        metric=top.text("metric", None),
        alpha=top.prob("alpha", ALPHA, high=0.5),
        mcnemar=top.choice("mcnemar", MCNEMAR_METHODS),
        test=test,
        format=_parse_format(top),
        scorer=top.text("scorer", None),
        filter=top.text("filter", None),
        all_ids=top.text("all_ids", None),
        all_ids_list=top.ids_file("all_ids", read_text),
        secondary_metrics=_parse_secondary(top),
        f1=_parse_f1(top),
        fields=fields,
        bootstrap=BootstrapConfig(
            resamples=_resamples(boot),
            seed=boot.int("seed", SEED, 0) or SEED,
            confidence=boot.prob("confidence", CONFIDENCE, low=0.5),
            method=boot.choice("method", BOOTSTRAP_METHODS),
        ),
        plan=plan,
        policy=policy,
        holdout=_parse_holdout(top, read_text),
        gate=GateConfig(
            fail_on=gate.choice("fail_on", FAIL_ON_CHOICES),
            max_broken=max_broken,
            max_broken_rate=max_broken_rate,
            margin=gate.optional_prob("margin"),
            on_refused=gate.choice("on_refused", ON_REFUSED_CHOICES),
        ),
        report=_parse_report(top),
        source=source,
    )


def _resamples(boot: _Reader) -> int:
    value = boot.int("resamples", RESAMPLES, 100) or RESAMPLES
    if value > MAX_RESAMPLES:
        raise boot.fail(
            "resamples", f"an integer from 100 to {MAX_RESAMPLES:,} (more adds no precision)"
        )
    return value


def _parse_format(top: _Reader) -> str | None:
    name = top.text("format", None)
    if name is None:
        return None
    from evalbot.results.formats import FORMATS, resolve

    try:
        resolve(name)
    except InputError:
        raise top.fail("format", "one of " + ", ".join(sorted(FORMATS))) from None
    return name


def _parse_secondary(top: _Reader) -> tuple[str, ...]:
    if not top.given("secondary_metrics"):
        return ()
    value = top.data["secondary_metrics"]
    if isinstance(value, str):
        value = [value]
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(name, str) and name for name in value)
    ):
        raise top.fail("secondary_metrics", "a list of field names")
    if len(set(value)) != len(value):
        raise top.fail("secondary_metrics", "a list of distinct field names")
    return tuple(value)


def _parse_f1(top: _Reader) -> F1Config | None:
    if not top.given("f1"):
        return None
    f1 = top.section("f1", F1_KEYS)
    default = F1Config()
    config = F1Config(
        tp=f1.text("tp", default.tp) or default.tp,
        fp=f1.text("fp", default.fp) or default.fp,
        fn=f1.text("fn", default.fn) or default.fn,
    )
    if len(set(config.columns)) != 3:
        raise ConfigError(
            f"{top.source}: `f1.tp`, `f1.fp` and `f1.fn` must name three different fields, "
            f"got {', '.join(config.columns)}"
        )
    return config


def _parse_report(top: _Reader) -> ReportConfig:
    report = top.section("report", REPORT_KEYS)
    item_url = report.text("item_url", None)
    if item_url is not None and (
        "{id}" not in item_url or not item_url.startswith(("https://", "http://"))
    ):
        raise report.fail("item_url", 'an http(s) URL containing "{id}"')
    return ReportConfig(item_url=item_url, template=report.text("template", None))


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


def with_reading(
    config: Config,
    *,
    fields: Mapping[str, str | None] | None = None,
    **settings: str | None,
) -> Config:
    """The config with command-line reading overrides: field names (``--id-field`` ...) and
    ``metric``/``scorer``/``filter``/``all_ids``/``format``; ``None`` values are ignored."""
    given_fields = {k: v for k, v in (fields or {}).items() if v is not None}
    changes: dict[str, Any] = {k: v for k, v in settings.items() if v is not None}
    if "all_ids" in changes:  # the flag's file (relative to the cwd) replaces the plan's
        changes["all_ids_list"] = None
    if given_fields:
        changes["fields"] = field_names(given_fields, "command line", base=config.fields)
    return replace(config, **changes) if changes else config


def with_overrides(config: Config, **bootstrap: Any) -> Config:
    """The config with command-line bootstrap overrides (``None`` values are ignored)."""
    given = {k: v for k, v in bootstrap.items() if v is not None}
    if not given:
        return config
    return replace(config, bootstrap=replace(config.bootstrap, **given))
