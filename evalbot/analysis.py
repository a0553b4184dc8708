"""Pure: two parsed runs and the plan -> the comparison and the decision.

The one sequence every entry point shares (the CLI's ``compare`` and the GitHub Action):
pair by id, apply the plan's rule for harness errors, set the sealed holdout apart, compute
every statistic, decide. The action runs it in two steps (:func:`prepare`, then :func:`decide`)
because it declares the paired item set in its check run before it reads the earlier looks.
"""

from __future__ import annotations

from evalbot.compare import Comparison, compute_comparison
from evalbot.errors import ConfigError
from evalbot.formats.model import Paired, Results
from evalbot.pairing.errors_rule import apply_errors
from evalbot.pairing.pair import pair
from evalbot.pairing.restrict import restrict_items
from evalbot.plan.config import Config
from evalbot.plan.ledger import State
from evalbot.plan.policy import Decision, evaluate
from evalbot.vocabulary import Missing


def prepare(
    baseline: Results,
    candidate: Results,
    config: Config,
    *,
    missing: Missing | None = None,
    holdout: bool = False,
) -> Paired:
    """The items the plan analyses, paired: ``missing`` overrides ``policy.missing``."""
    paired = pair(baseline, candidate, missing=missing or config.policy.missing)
    paired = apply_errors(paired, config.policy.errors)
    return analysed_items(paired, config, holdout=holdout)


def analysed_items(paired: Paired, config: Config, *, holdout: bool) -> Paired:
    """The items the plan analyses: only the sealed holdout with ``holdout``, else all but it.

    Without a ``holdout:`` section this is ``paired`` itself. Raises ``ConfigError`` when the
    holdout is requested but not configured, ``PairingError`` when none of its ids are present.
    """
    section = config.holdout
    if section is None or section.ids is None:
        if holdout:
            raise ConfigError(
                f"{config.source}: the holdout was requested but the plan has no readable "
                "`holdout.ids_file`"
            )
        return paired
    return restrict_items(paired, section.ids, holdout=holdout, ids_file=section.ids_file)


def decide(
    paired: Paired,
    config: Config,
    *,
    holdout: bool = False,
    state: State | None = None,
    head_sha: str | None = None,
    tree: str | None = None,
) -> tuple[Comparison, Decision]:
    """Every statistic of ``paired``, and the plan's decision given the earlier looks."""
    comparison = compute_comparison(paired, config, holdout=holdout)
    decision = evaluate(
        comparison, config, state=state, head_sha=head_sha, tree=tree, holdout=holdout
    )
    return comparison, decision


def analyse(
    baseline: Results,
    candidate: Results,
    config: Config,
    *,
    missing: Missing | None = None,
    holdout: bool = False,
    state: State | None = None,
    head_sha: str | None = None,
) -> tuple[Comparison, Decision]:
    """Compare ``candidate`` with ``baseline`` under ``config``; ``missing`` overrides the plan."""
    paired = prepare(baseline, candidate, config, missing=missing, holdout=holdout)
    return decide(paired, config, holdout=holdout, state=state, head_sha=head_sha)
