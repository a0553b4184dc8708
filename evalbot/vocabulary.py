"""Pure: every default and every closed vocabulary of the plan, defined once: each vocabulary
a ``Literal`` type (its first value the default), with the tuple of its values where code
outside the config checks or offers them. Imports nothing of evalbot's, so :mod:`evalbot.stats`
may import it too."""

from __future__ import annotations

from typing import Literal, get_args

# ---- defaults ---------------------------------------------------------------------------

#: Two-sided significance level (``alpha``).
ALPHA = 0.05
#: Power the plan is sized for and the report's minimum detectable effect is stated at.
POWER = 0.8
#: Resamples of every bootstrap, and sign patterns of a sampled sign-flip test.
RESAMPLES = 10_000
#: Seed of every resampling (results are reproducible).
SEED = 0
#: Level of every confidence interval.
CONFIDENCE = 0.95
#: (The upper bound of ``bootstrap.resamples`` is a size limit: :mod:`evalbot.limits`.)

# ---- vocabularies (the first value of each is the default) ---------------------------------

#: ``mcnemar:`` which McNemar test decides pass/fail items.
McNemarMethod = Literal["exact", "midp", "asymptotic"]
MCNEMAR_METHODS: tuple[McNemarMethod, ...] = get_args(McNemarMethod)

#: ``test:`` the primary test: McNemar's (pass/fail; the paired test valid at every n for
#: scores), or the paired bootstrap for every metric.
PrimaryTest = Literal["mcnemar", "bootstrap"]

#: ``bootstrap.method``: percentile or bias-corrected and accelerated (BCa) intervals.
BootstrapMethod = Literal["percentile", "bca"]
BOOTSTRAP_METHODS: tuple[BootstrapMethod, ...] = get_args(BootstrapMethod)

#: ``policy.mode``: a fixed-size test, or an always-valid sequential one.
Mode = Literal["fixed", "sequential"]

#: ``policy.looks``: a look past ``max_looks`` is refused, or every look is tested at
#: ``alpha / max_looks``.
LooksRule = Literal["refuse", "bonferroni"]

#: ``policy.missing`` (``--missing``): items present on one side only.
Missing = Literal["error", "fail", "drop"]
MISSING_RULES: tuple[Missing, ...] = get_args(Missing)

#: ``policy.errors`` (``--errors``): items a run did not evaluate (never run, skipped, cancelled,
#: a harness error) are left out, or count as failures of that run (the leaderboard convention).
ErrorsRule = Literal["drop", "fail"]
ERRORS_RULES: tuple[ErrorsRule, ...] = get_args(ErrorsRule)

#: ``gate.fail_on``: which outcome fails the check.
FailOn = Literal["significant_regression", "not_significant_improvement", "never"]

#: ``gate.on_refused`` and ``gate.on_no_baseline``: a verdict the plan refused, or a pull
#: request with nothing to compare with (no baseline run on its base branch, or an expired one),
#: fails the check or leaves it neutral.
FailOrNeutral = Literal["fail", "neutral"]
