"""``.evalbot.yml``'s text -> :class:`Config`: the whole document, and the rules that tie its
sections together (``plan`` excludes ``policy.sample_size``; ``policy.mode: sequential`` needs
``test: mcnemar``). Pure: the files the plan names are read through ``read_text``.
"""

from __future__ import annotations

from evalbot.errors import ConfigError
from evalbot.plan.config.keys import BOOTSTRAP_KEYS, GATE_KEYS, TOP_KEYS
from evalbot.plan.config.reader import Reader, ReadText
from evalbot.plan.config.records import Config, PlanConfig, PolicyConfig
from evalbot.plan.config.sections import (
    parse_bootstrap,
    parse_f1,
    parse_fields,
    parse_format,
    parse_gate,
    parse_holdout,
    parse_plan,
    parse_policy,
    parse_report,
    parse_secondary,
)
from evalbot.plan.config.strict_yaml import load_yaml
from evalbot.vocabulary import ALPHA, MCNEMAR_METHODS, PRIMARY_TESTS, PrimaryTest

__all__ = ["parse_config"]


def parse_config(text: str, source: str, *, read_text: ReadText | None = None) -> Config:
    """Parse the text of ``.evalbot.yml``.

    ``read_text(name)`` returns the text of a file the plan names (``all_ids``,
    ``policy.items_file``, ``holdout.ids_file``), relative to the config file; without it those
    files are not read (their names are kept, their ids are not). The sections are read in a
    fixed order, so a document with several mistakes is always told the same first one.
    """
    data = load_yaml(text, source)
    top = Reader(source, data, "", TOP_KEYS)
    fields = parse_fields(top)
    boot = top.section("bootstrap", BOOTSTRAP_KEYS)
    gate = top.section("gate", GATE_KEYS)
    max_broken = gate.count_or_rate("max_broken")
    plan = parse_plan(top)
    policy = parse_policy(top, read_text)
    test = _parse_test(top, plan, policy)
    return Config(
        metric=top.text("metric", None),
        alpha=top.prob("alpha", ALPHA, high=0.5),
        mcnemar=top.choice("mcnemar", MCNEMAR_METHODS),
        test=test,
        format=parse_format(top),
        scorer=top.text("scorer", None),
        filter=top.text("filter", None),
        all_ids=top.text("all_ids", None),
        all_ids_list=top.ids_file("all_ids", read_text),
        secondary_metrics=parse_secondary(top),
        f1=parse_f1(top),
        fields=fields,
        bootstrap=parse_bootstrap(boot),
        plan=plan,
        policy=policy,
        holdout=parse_holdout(top, read_text),
        gate=parse_gate(gate, max_broken),
        report=parse_report(top),
        source=source,
    )


def _parse_test(top: Reader, plan: PlanConfig | None, policy: PolicyConfig) -> PrimaryTest:
    """``test``, and the rules that tie sections together: a plan computes the sample size
    (so it is not given too), and the sequential mode tests the discordant pairs."""
    if plan is not None and policy.sample_size is not None:
        raise ConfigError(
            f"{top.source}: give either `policy.sample_size` or `plan` (from which the sample "
            "size is computed), not both"
        )
    test = top.choice("test", PRIMARY_TESTS)
    if test == "bootstrap" and policy.mode == "sequential":
        raise ConfigError(
            f"{top.source}: `policy.mode: sequential` tests the discordant pairs, so it needs "
            "`test: mcnemar`, got `test: bootstrap`"
        )
    return test
