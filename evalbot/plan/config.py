"""Pure: ``.evalbot.yml``, the pre-registered plan, read strictly into frozen records.

One reader: unknown keys are refused with a "did you mean" hint, a wrong type or range with the
key's dotted path and the value given; the keys are the records' fields, and a test keeps them
and the JSON Schema (``evalbot/schema/evalbot.schema.json``) in agreement. Rates are read
by :mod:`evalbot.plan.rates`, as the flags read them. Files the plan names are read
through a ``read_text`` callback, so the same parser serves a checkout and a base commit.
"""

from __future__ import annotations

import difflib
import functools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, TypeVar, cast, get_args, get_origin, get_type_hints

from evalbot import vocabulary as vocab
from evalbot.errors import ConfigError, InputError
from evalbot.formats.builder import show
from evalbot.formats.ids import parse_id_list
from evalbot.formats.model import FieldNames, ReadOptions
from evalbot.limits import MAX_NUMBER_DIGITS, MAX_RESAMPLES
from evalbot.pairing.fingerprint import fingerprint
from evalbot.plan.rates import DIFFERENCE_HINT, RATE_HINT, parse_difference, parse_rate, split

ReadText = Callable[[str], str]


def _at_least(minimum: int, default: int | None = None, *, most: int | None = None) -> Any:
    """A field read as an integer from ``minimum`` (to ``most``)."""
    return field(default=default, metadata={"minimum": minimum, "most": most})


def _rate(default: float | None = None, *, low: float = 0.0, high: float = 1.0) -> Any:
    """A field read as a rate strictly between ``low`` and ``high`` (:mod:`evalbot.plan.rates`)."""
    return field(default=default, metadata={"low": low, "high": high})


# ---- the plan, one frozen record per section -----------------------------------------------


@dataclass(frozen=True, kw_only=True)
class BootstrapConfig:
    resamples: int = _at_least(100, vocab.RESAMPLES, most=MAX_RESAMPLES)
    seed: int = _at_least(0, vocab.SEED)
    confidence: float = _rate(vocab.CONFIDENCE, low=0.5)
    # percentile, or bias-corrected and accelerated (BCa)
    method: vocab.BootstrapMethod = "percentile"


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

    ``design_effect`` (>= 1, Kish's ``1 + (m - 1) ICC``) multiplies the planned items, and
    divides the items in the minimum detectable effect of results without cluster labels.
    """

    fix_rate: float
    break_rate: float
    power: float = _rate(vocab.POWER, low=0.5)
    design_effect: float = 1.0


@dataclass(frozen=True, kw_only=True)
class PolicyConfig:
    sample_size: int | None = _at_least(1)
    max_looks: int | None = _at_least(1)
    missing: vocab.Missing = "error"
    mode: vocab.Mode = "fixed"
    looks: vocab.LooksRule = "refuse"
    items_sha256: str | None = None
    items_file: str | None = None
    min_effect: float | None = _rate()
    errors: vocab.ErrorsRule = "drop"


@dataclass(frozen=True, kw_only=True)
class HoldoutConfig:
    """``holdout:`` a sealed set of item ids, analysed only on request and counted per use."""

    ids_file: str
    max_uses: int | None = _at_least(1)
    ids: tuple[str, ...] | None = None  # the ids read from ``ids_file`` (None: not read)


@dataclass(frozen=True, kw_only=True)
class GateConfig:
    fail_on: vocab.FailOn = "significant_regression"
    max_broken: int | None = None  # an item count
    max_broken_rate: float | None = None  # or a share of the items (``5%`` or ``0.05``)
    margin: float | None = _rate()  # non-inferiority margin, in the metric's units
    # a verdict the plan refused: ``fail`` the check (the default) or leave it ``neutral``
    on_refused: vocab.FailOrNeutral = "fail"
    on_no_baseline: vocab.FailOrNeutral = "fail"


@dataclass(frozen=True, kw_only=True)
class ReportConfig:
    """``report:`` how the comment shows items: a link template and an optional own template."""

    item_url: str | None = None  # e.g. "https://logs.example/{id}"; the id is URL-quoted
    template: str | None = None  # a jinja2 template file replacing the bundled comment


@dataclass(frozen=True, kw_only=True)
class Config:
    """The whole plan; every field has the default a user gets without a config file."""

    metric: str | None = None
    alpha: float = _rate(vocab.ALPHA, high=0.5)
    test: vocab.PrimaryTest = "mcnemar"
    mcnemar: vocab.McNemarMethod = "exact"
    format: str | None = None
    scorer: str | None = None
    filter: str | None = None
    all_ids: str | None = None
    secondary_metrics: tuple[str, ...] = ()
    f1: F1Config | None = None
    fields: FieldNames = field(default_factory=FieldNames)
    bootstrap: BootstrapConfig = field(default_factory=BootstrapConfig)
    plan: PlanConfig | None = None
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    holdout: HoldoutConfig | None = None
    gate: GateConfig = field(default_factory=GateConfig)
    report: ReportConfig = field(default_factory=ReportConfig)
    # the ids the ``all_ids`` file names (the action: read at the base commit); None: not read
    all_ids_list: tuple[str, ...] | None = None
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


def _keys(record: type, *, besides: tuple[str, ...] = ()) -> tuple[str, ...]:
    return tuple(f.name for f in fields(record) if f.name not in besides)


#: The keys each section accepts ("": the top level), in the order hints list them.
KEYS: dict[str, tuple[str, ...]] = {
    "": _keys(Config, besides=("all_ids_list", "source")),
    "fields": _keys(FieldNames),
    "bootstrap": _keys(BootstrapConfig),
    "f1": _keys(F1Config),
    "plan": ("fix_rate", "break_rate", "difference", "discordance", "power", "design_effect"),
    "policy": _keys(PolicyConfig),
    "holdout": _keys(HoldoutConfig, besides=("ids",)),
    "gate": _keys(GateConfig, besides=("max_broken_rate",)),
    "report": _keys(ReportConfig),
}

# ---- the YAML, strictly --------------------------------------------------------------------

#: Most ``[`` and ``{`` a plan may hold: PyYAML's scanner is quadratic in the depth of nested
#: flow collections, a plan needs a handful, and counting them is linear.
MAX_FLOW_BRACKETS = 1_000


@functools.cache
def _strict_loader() -> type[Any]:
    """``yaml.SafeLoader`` refusing aliases (a "billion laughs" grows to gigabytes once a
    message quotes it), repeated keys (PyYAML keeps the last) and overlong integers. Made on
    first use: a run without a config file never imports yaml."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        source = ".evalbot.yml"

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                line = self.peek_event().start_mark.line + 1  # type: ignore[no-untyped-call]
                raise ConfigError(f"{self.source}:{line}: YAML alias refused; write the value out")
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                        continue
                    # a scalar is a str, int, float, bool, None, bytes or date (all hashable),
                    # or its constructor raises: a collection tag on a scalar is refused
                    key = self.construct_object(key_node, deep=True)
                    line = key_node.start_mark.line + 1
                    if (first := seen.get(key)) is not None:
                        raise ConfigError(
                            f"{self.source}:{line}: duplicate key {show(key)} (first given on line "
                            f"{first}); which one counts?"
                        )
                    seen[key] = line
            return super().construct_mapping(node, deep=deep)

        def construct_object(self, node: Any, deep: bool = False) -> Any:
            try:
                return super().construct_object(node, deep=deep)
            except (KeyError, IndexError, ValueError, AttributeError):  # PyYAML's own, unwrapped
                raise ConfigError(
                    f"{self.source}:{node.start_mark.line + 1}: not valid YAML (its tag "
                    f"{show(node.tag)} does not read {show(node.value)})"
                ) from None

        def construct_yaml_int(self, node: Any) -> Any:
            digits = sum(c.isdigit() for c in node.value)
            if digits > MAX_NUMBER_DIGITS:
                raise ConfigError(
                    f"{self.source}:{node.start_mark.line + 1}: a number of {digits} digits "
                    f"(more than {MAX_NUMBER_DIGITS}): no setting takes one that long"
                )
            return super().construct_yaml_int(node)

    StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_yaml_int)
    return StrictLoader


def load_yaml(text: str, source: str) -> Mapping[str, Any]:
    """The mapping of settings in ``text``, read strictly; ``source`` names it in messages."""
    brackets = text.count("[") + text.count("{")
    if brackets > MAX_FLOW_BRACKETS:
        raise ConfigError(
            f"{source}: {brackets} `[`/`{{` characters; a plan may hold {MAX_FLOW_BRACKETS:,}"
        )
    import yaml

    loader = _strict_loader()(text)
    loader.source = source
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = (getattr(error, "problem", None) or "malformed YAML").replace("\n", " ")
        if len(problem) > 200:
            problem = problem[:197] + "..."
        raise ConfigError(f"{where}: not valid YAML ({problem})") from None
    except RecursionError:
        raise ConfigError(f"{source}: not valid YAML (nested too deeply)") from None
    finally:
        loader.dispose()
    if data is not None and not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a mapping of settings, got {show(data)}")
    return {} if data is None else data


# ---- one mapping, read with its dotted path -------------------------------------------------

_Choice = TypeVar("_Choice", bound=str)
_Record = TypeVar("_Record")
_SHA256 = re.compile(r"[0-9a-f]{64}")


class Reader:
    """Reads one mapping of the YAML, tracking the dotted path for messages."""

    def __init__(
        self, source: str, data: Mapping[str, Any], path: str, read_text: ReadText | None
    ) -> None:
        self.source, self.data, self.path, self.read_text = source, data, path, read_text
        allowed = KEYS[path]
        for key in data:
            if not isinstance(key, str) or key not in allowed:
                hint = f"allowed: {', '.join(allowed)}"
                if close := difflib.get_close_matches(str(key), allowed, n=1):
                    hint = f"did you mean `{self.dotted(close[0])}`?"
                raise ConfigError(f"{source}: unknown key `{self.dotted(str(key))}`; {hint}")

    def dotted(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.source}: `{self.dotted(key)}` {message}")

    def fail(self, key: str, expected: str) -> ConfigError:
        return self.error(key, f"must be {expected}, got {show(self.data[key])}")

    def given(self, key: str) -> bool:
        return self.data.get(key) is not None

    def section(self, key: str) -> Reader:
        value = {} if self.data.get(key) is None else self.data[key]
        if not isinstance(value, Mapping):
            raise self.fail(key, "a mapping")
        return Reader(self.source, value, self.dotted(key), self.read_text)

    def record(self, kind: Callable[..., _Record], **given: Any) -> _Record:
        """``kind`` read from this mapping, the fields in ``given`` as given and each other key
        by its rule in :data:`READERS` (only when given: absent or null, it keeps its default),
        else by its field: a ``Literal`` one of its values, an integer or a rate within the
        field's bounds, else a non-empty string; an absent key keeps the field's default."""
        hints = get_type_hints(kind)
        values = dict(given)
        for item in fields(kind):  # type: ignore[arg-type]
            key, meta, default = item.name, item.metadata, cast(Any, item.default)
            read = READERS.get(self.dotted(key))
            if key in values or (read is not None and not self.given(key)):
                continue
            if read is not None:
                values[key] = read(self, key)
            elif get_origin(hints[key]) is Literal:
                values[key] = self.choice(key, get_args(hints[key]))
            elif "minimum" in meta:
                values[key] = self.integer(key, default, meta["minimum"], meta["most"])
            elif "low" in meta:
                values[key] = self.prob(key, default, low=meta["low"], high=meta["high"])
            else:
                values[key] = self.text(key, default)
        return kind(**values)

    def integer(
        self, key: str, default: int | None, minimum: int, most: int | None = None
    ) -> int | None:
        if not self.given(key):
            return default
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(key, f"an integer >= {minimum}")
        if most is not None and value > most:
            raise self.fail(key, f"an integer from {minimum} to {most:,} (more adds no precision)")
        return value

    def prob(self, key: str, default: Any, *, low: float = 0.0, high: float = 1.0) -> float:
        """A rate strictly between ``low`` and ``high``, read as the flags read it; ``default``
        when absent (or null, for a rate without one)."""
        if key not in self.data or (default is None and self.data[key] is None):
            return cast(float, default)
        expected = f"a number strictly between {low:g} and {high:g} (a fraction or a percentage)"
        return self._read(key, parse_rate, lambda value: low < value < high, expected)

    def difference(self, key: str) -> float:
        """A signed difference in pass rate (``3pp``, ``+3%``, ``0.03``), not 0."""
        expected = f"{DIFFERENCE_HINT} (not 0, under 100 pp)"
        return self._read(key, parse_difference, lambda value: 0 < abs(value) < 1.0, expected)

    def _read(
        self, key: str, parse: Callable[[object], float], ok: Callable[[float], bool], expected: str
    ) -> float:
        """``key``'s value read by ``parse``, refused (with ``expected``) unless ``ok``."""
        try:
            value = parse(self.data[key])
        except ValueError:
            raise self.fail(key, expected) from None
        if not ok(value):
            raise self.fail(key, expected)
        return value

    def choice(self, key: str, choices: tuple[_Choice, ...]) -> _Choice:
        """One of a vocabulary of :mod:`evalbot.vocabulary` (its first value is the default)."""
        if key not in self.data:
            return choices[0]
        value = self.data[key]
        if isinstance(value, str) and value in choices:
            return value
        raise self.fail(key, "one of " + ", ".join(choices))

    def text(self, key: str, default: str | None = None) -> str | None:
        if not self.given(key):
            return default
        value = self.data[key]
        if not isinstance(value, str) or not value:
            raise self.fail(key, "a non-empty string")
        return value

    def sha256(self, key: str) -> str:
        value = self.data[key]
        if not isinstance(value, str) or not _SHA256.fullmatch(value):
            raise self.fail(key, "64 lowercase hexadecimal digits (a sha256)")
        return value

    def count_or_rate(self, key: str) -> tuple[int | None, float | None]:
        """An item count (``10``) or a share of the items (``5%`` or ``0.05``)."""
        if not self.given(key):
            return None, None
        value = self.data[key]
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value, None
        share = isinstance(value, float) or (isinstance(value, str) and value.strip().endswith("%"))
        expected = f"an integer >= 0 (items) or {RATE_HINT}"
        return None, self._read(key, parse_rate, lambda rate: share and 0.0 <= rate < 1.0, expected)

    def ids_file(self, key: str) -> tuple[str, ...] | None:
        """The item ids listed in the file named by ``key``, relative to the config file."""
        name = self.text(key)
        if name is None or self.read_text is None:
            return None
        try:
            content = self.read_text(name)
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


# ---- the document, section by section -------------------------------------------------------


def parse_config(text: str, source: str, *, read_text: ReadText | None = None) -> Config:
    """Parse the text of ``.evalbot.yml``.

    ``read_text(name)`` returns the text of a file the plan names (``all_ids``,
    ``policy.items_file``, ``holdout.ids_file``); without it their ids are not read. The keys
    are read in the order :data:`KEYS` lists them, so a document with several mistakes is
    always told the same first one.
    """
    top = Reader(source, load_yaml(text, source), "", read_text)
    config = top.record(Config, all_ids_list=top.ids_file("all_ids"), source=source)
    if config.plan is not None and config.policy.sample_size is not None:
        raise ConfigError(f"{source}: give `policy.sample_size` or `plan`, not both")
    if config.test == "bootstrap" and config.policy.mode == "sequential":
        raise ConfigError(f"{source}: `policy.mode: sequential` needs `test: mcnemar`")
    return config


def field_names(given: Mapping[str, str], where: str, base: FieldNames | None = None) -> FieldNames:
    """``base`` (default: the default names) with ``given`` replacing some; two roles naming
    one field are refused (``passed`` and ``score`` both ``correct``: which is compared?)."""
    names = replace(base or FieldNames(), **dict(given))
    roles: dict[str, str] = {}
    for role in KEYS["fields"]:
        name = getattr(names, role)
        if name in roles:
            raise ConfigError(
                f"{where}: `{roles[name]}` and `{role}` both name {show(name)}; give each its own"
            )
        roles[name] = role
    return names


def _fields(top: Reader, key: str) -> FieldNames:
    return field_names({}, f"{top.source}: `{key}`", base=top.section(key).record(FieldNames))


#: The two ways ``plan:`` gives the change: fix and break rates, or the net difference and the
#: discordance (the share of items that change outcome; fix/break = (D +- R) / 2).
_BY_RATES, _BY_DIFFERENCE = {"fix_rate", "break_rate"}, {"difference", "discordance"}


def _plan(top: Reader, key: str) -> PlanConfig:
    """``plan:`` the change to detect, by its fix and break rates or its difference."""
    plan = top.section(key)
    given = set(plan.data) & (_BY_RATES | _BY_DIFFERENCE)
    if given not in (_BY_RATES, _BY_DIFFERENCE):
        raise ConfigError(
            f"{top.source}: `plan` needs `fix_rate` and `break_rate`, or `difference` and "
            "`discordance`"
        )
    if given == _BY_DIFFERENCE:
        fix_rate, break_rate = _plan_from_difference(top, plan)
    else:
        fix_rate, break_rate = plan.prob("fix_rate", 0.0), plan.prob("break_rate", 0.0)
    if fix_rate + break_rate > 1.0:
        raise ConfigError(
            f"{top.source}: `plan.fix_rate` + `plan.break_rate` must be at most 1, "
            f"got {fix_rate:g} + {break_rate:g}"
        )
    if fix_rate == break_rate:
        raise ConfigError(
            f"{top.source}: `plan.fix_rate` equals `plan.break_rate`: there is no change to detect"
        )
    return plan.record(PlanConfig, fix_rate=fix_rate, break_rate=break_rate)


def _design_effect(plan: Reader, key: str) -> float:
    value = plan.data[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not 1.0 <= value < math.inf:
        raise plan.fail(key, "a number >= 1 (1 + (m - 1) ICC for clusters of m)")
    return float(value)


def _plan_from_difference(top: Reader, plan: Reader) -> tuple[float, float]:
    difference = plan.difference("difference")
    discordance = plan.prob("discordance", 0.0, high=1.0000001)
    if discordance < abs(difference) - 1e-12:
        raise ConfigError(
            f"{top.source}: `plan.discordance` ({discordance:g}) must be at least the size of "
            f"`plan.difference` ({difference:+g}): a net change needs that many items to change"
        )
    return split(difference, discordance)


def _policy(top: Reader, key: str) -> PolicyConfig:
    policy = top.section(key)
    config = policy.record(PolicyConfig)
    if (listed := policy.ids_file("items_file")) is not None:
        computed, given = fingerprint(list(listed)), config.items_sha256
        if given is not None and given != computed:
            raise ConfigError(
                f"{top.source}: `policy.items_sha256` is {given[:12]}... but the ids in "
                f"`policy.items_file` hash to {computed[:12]}...; keep one, or make them agree"
            )
        config = replace(config, items_sha256=computed)
    if config.looks == "bonferroni" and config.max_looks is None:
        raise ConfigError(f"{top.source}: `policy.looks: bonferroni` needs `policy.max_looks`")
    if config.looks == "bonferroni" and config.mode == "sequential":
        raise ConfigError(
            f"{top.source}: `policy.looks: bonferroni` does not apply to `policy.mode: sequential`"
        )
    return config


def _holdout(top: Reader, key: str) -> HoldoutConfig:
    holdout = top.section(key)
    if holdout.text("ids_file") is None:
        raise ConfigError(f"{top.source}: `holdout.ids_file` is required when `holdout` is given")
    return holdout.record(HoldoutConfig, ids=holdout.ids_file("ids_file"))


def _gate(top: Reader, key: str) -> GateConfig:
    gate = top.section(key)
    count, rate = gate.count_or_rate("max_broken")
    return gate.record(GateConfig, max_broken=count, max_broken_rate=rate)


def _format(top: Reader, key: str) -> str:
    from evalbot.formats import FORMATS, resolve

    try:
        resolve(name := cast(str, top.text(key)))  # read only when given: a string
    except InputError:
        raise top.fail(key, "one of " + ", ".join(sorted(FORMATS))) from None
    return name


def _secondary(top: Reader, key: str) -> tuple[str, ...]:
    value = top.data[key]
    names = [value] if isinstance(value, str) else value if isinstance(value, list) else [None]
    if not all(isinstance(v, str) and v for v in names) or not 0 < len(set(names)) == len(names):
        raise top.fail(key, "a list of distinct field names")
    return tuple(names)


def _f1(top: Reader, key: str) -> F1Config:
    config = top.section(key).record(F1Config)
    if len(set(config.columns)) != 3:
        raise top.error(key, f"must name three different fields, got {', '.join(config.columns)}")
    return config


def _report(top: Reader, key: str) -> ReportConfig:
    report = top.section(key)
    config = report.record(ReportConfig)
    url = config.item_url
    if url is not None and ("{id}" not in url or not url.startswith(("https://", "http://"))):
        raise report.fail("item_url", 'an http(s) URL containing "{id}"')
    return config


#: The keys read by a rule of their own (by dotted path), when given; :meth:`Reader.record`
#: reads the others by their fields.
READERS: dict[str, Callable[[Reader, str], Any]] = {
    "format": _format,
    "secondary_metrics": _secondary,
    "f1": _f1,
    "fields": _fields,
    "bootstrap": lambda top, key: top.section(key).record(BootstrapConfig),
    "plan": _plan,
    "plan.design_effect": _design_effect,
    "policy": _policy,
    "policy.items_sha256": Reader.sha256,
    "holdout": _holdout,
    "gate": _gate,
    "report": _report,
}


# ---- the command line over the plan ---------------------------------------------------------


def with_reading(
    config: Config, *, fields: Mapping[str, str | None] | None = None, **settings: str | None
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
    return replace(config, bootstrap=replace(config.bootstrap, **given)) if given else config
