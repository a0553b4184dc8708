"""One reader per section of ``.evalbot.yml``, each returning its frozen record.

The rules that tie keys of one section together are checked here (``plan.fix_rate`` +
``plan.break_rate`` <= 1, ``policy.looks: bonferroni`` needs ``policy.max_looks`` ...); those
that tie sections together in :func:`evalbot.plan.config.parse.parse_config`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from evalbot.errors import ConfigError, InputError
from evalbot.formats.builder import show
from evalbot.formats.options import FieldNames
from evalbot.limits import MAX_RESAMPLES
from evalbot.pairing.fingerprint import fingerprint
from evalbot.plan.config.keys import (
    F1_KEYS,
    FIELD_KEYS,
    HOLDOUT_KEYS,
    PLAN_KEYS,
    POLICY_KEYS,
    REPORT_KEYS,
)
from evalbot.plan.config.reader import Reader, ReadText
from evalbot.plan.config.records import (
    BootstrapConfig,
    F1Config,
    GateConfig,
    HoldoutConfig,
    PlanConfig,
    PolicyConfig,
    ReportConfig,
)
from evalbot.vocabulary import (
    BOOTSTRAP_METHODS,
    CONFIDENCE,
    ERRORS_RULES,
    FAIL_ON_CHOICES,
    LOOKS_RULES,
    MISSING_RULES,
    MODES,
    ON_NO_BASELINE_CHOICES,
    ON_REFUSED_CHOICES,
    POWER,
    RESAMPLES,
    SEED,
)

__all__ = [
    "field_names",
    "parse_bootstrap",
    "parse_f1",
    "parse_fields",
    "parse_format",
    "parse_gate",
    "parse_holdout",
    "parse_plan",
    "parse_policy",
    "parse_report",
    "parse_secondary",
]


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


def parse_fields(top: Reader) -> FieldNames:
    """``fields:`` the field each role reads."""
    names = top.section("fields", FIELD_KEYS)
    return field_names(
        {name: value for name in FIELD_KEYS if (value := names.text(name, None)) is not None},
        f"{top.source}: `fields`",
    )


def parse_plan(top: Reader) -> PlanConfig | None:
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


def _plan_from_difference(top: Reader, plan: Reader) -> tuple[float, float]:
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


def _design_effect(plan: Reader) -> float:
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


def parse_policy(top: Reader, read_text: ReadText | None) -> PolicyConfig:
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
        sample_size=policy.integer("sample_size", None, 1),
        max_looks=policy.integer("max_looks", None, 1),
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


def parse_holdout(top: Reader, read_text: ReadText | None) -> HoldoutConfig | None:
    if not top.given("holdout"):
        return None
    holdout = top.section("holdout", HOLDOUT_KEYS)
    ids_file = holdout.text("ids_file", None)
    if ids_file is None:
        raise ConfigError(f"{top.source}: `holdout.ids_file` is required when `holdout` is given")
    return HoldoutConfig(
        ids_file=ids_file,
        max_uses=holdout.integer("max_uses", None, 1),
        ids=holdout.ids_file("ids_file", read_text),
    )


def parse_bootstrap(boot: Reader) -> BootstrapConfig:
    """``bootstrap:`` resamples, seed, confidence and method (its section already opened)."""
    return BootstrapConfig(
        resamples=_resamples(boot),
        seed=boot.integer("seed", SEED, 0) or SEED,
        confidence=boot.prob("confidence", CONFIDENCE, low=0.5),
        method=boot.choice("method", BOOTSTRAP_METHODS),
    )


def _resamples(boot: Reader) -> int:
    value = boot.integer("resamples", RESAMPLES, 100) or RESAMPLES
    if value > MAX_RESAMPLES:
        raise boot.fail(
            "resamples", f"an integer from 100 to {MAX_RESAMPLES:,} (more adds no precision)"
        )
    return value


def parse_format(top: Reader) -> str | None:
    name = top.text("format", None)
    if name is None:
        return None
    from evalbot.formats import FORMATS, resolve

    try:
        resolve(name)
    except InputError:
        raise top.fail("format", "one of " + ", ".join(sorted(FORMATS))) from None
    return name


def parse_secondary(top: Reader) -> tuple[str, ...]:
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


def parse_f1(top: Reader) -> F1Config | None:
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


def parse_report(top: Reader) -> ReportConfig:
    report = top.section("report", REPORT_KEYS)
    item_url = report.text("item_url", None)
    if item_url is not None and (
        "{id}" not in item_url or not item_url.startswith(("https://", "http://"))
    ):
        raise report.fail("item_url", 'an http(s) URL containing "{id}"')
    return ReportConfig(item_url=item_url, template=report.text("template", None))


def parse_gate(gate: Reader, max_broken: tuple[int | None, float | None]) -> GateConfig:
    """``gate:`` when the check fails (its section already opened, ``max_broken`` read)."""
    count, rate = max_broken
    return GateConfig(
        fail_on=gate.choice("fail_on", FAIL_ON_CHOICES),
        max_broken=count,
        max_broken_rate=rate,
        margin=gate.optional_prob("margin"),
        on_refused=gate.choice("on_refused", ON_REFUSED_CHOICES),
        on_no_baseline=gate.choice("on_no_baseline", ON_NO_BASELINE_CHOICES),
    )
