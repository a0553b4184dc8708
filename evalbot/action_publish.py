"""What a run publishes: a verdict, a notice without one, or a failure.

Every outcome writes the job summary and the step's outputs. A verdict is rendered once
(:func:`render_verdict`: comment, check and job summary from one view) before anything is
published, then the check is completed first (its digest is the look's record, whatever happens
to the comment) and evalbot's own sticky comment is written; a comment created then is named
in the record too, so that its deletion is known. A notice (no baseline, a refusal) keeps the
earlier looks in the comment as they were; a failure leaves the comment alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import signal
from dataclasses import replace

from evalbot.action_context import RunContext
from evalbot.action_records import Neutral, Rendered, Verdict
from evalbot.action_text import history_rows
from evalbot.errors import EXIT_BAD_INPUT, EXIT_GATE_FAILED, EXIT_OK, Cancelled, EvalbotError
from evalbot.formats.model import Results
from evalbot.github.checks import FORK_WARNING, own_comment
from evalbot.github.client import CommentInfo
from evalbot.github.errors import GitHubRequestError
from evalbot.limits import MAX_COMMENT_CHARS
from evalbot.plan.config import Config
from evalbot.plan.ledger import Digest, State, distinct_looks
from evalbot.plan.state import parse_state, render_state
from evalbot.report import text as md
from evalbot.report.docs import ACTION_DOCS as DOCS
from evalbot.report.numbers import pvalue_output
from evalbot.report.render import render_check, render_comment, render_notice, render_summary
from evalbot.report.text import Markdown
from evalbot.report.view import Provenance, build_view

__all__ = [
    "MAX_IDS",
    "fail_check",
    "publish_cancelled",
    "publish_failure",
    "publish_internal_error",
    "publish_neutral",
    "publish_unpublished",
    "publish_verdict",
    "render_verdict",
    "summarise_only",
]

#: Item ids the view keeps per list: the comment shows a few and counts the rest, the job
#: summary (up to 1 MiB) shows them all.
MAX_IDS = 2000


def render_verdict(run: RunContext, verdict: Verdict) -> Rendered:
    """The comment, the check's title and summary and the job summary, from one view;
    before anything is published (a user's template can fail)."""
    s, event, plan = run.settings, run.event, verdict.plan
    change = verdict.record.look.change if verdict.record and verdict.record.look else None
    head = change or event.head_sha.lower()
    earlier = distinct_looks(look for look in verdict.state.looks if look.change != head)
    candidate_run = s.run_url
    if event.mode == "workflow_run" and event.run_id is not None:
        candidate_run = f"{s.server_url}/{s.repository}/actions/runs/{event.run_id}"
    view = build_view(
        verdict.comparison,
        verdict.decision,
        max_ids=MAX_IDS,
        item_url=plan.config.report.item_url,
        config=plan.config,
        config_change=plan.config_change,
        config_path=s.config,
        provenance=Provenance(
            baseline_commit=verdict.baseline.commit,
            baseline_run_url=verdict.baseline.run_url,
            candidate_commit=event.head_sha or None,
            candidate_run_url=candidate_run,
        ),
        history=history_rows(earlier, commit_url=run.commit_url, pull=run.pull_number),
        notes=verdict.notes,
    )
    comment = render_comment(
        view,
        marker=s.marker,
        state_block=_hidden(verdict.state, _verdict_says(verdict)),
        max_chars=MAX_COMMENT_CHARS,
        template=plan.template,
    )
    title, check_summary = render_check(view)
    return Rendered(
        comment=comment,
        check_title=title,
        check_summary=check_summary,
        summary=render_summary(view, template=plan.template),
    )


def _says(*what: object) -> str:
    """The hidden line naming what a comment says (``what``: its kind, the conclusion, the
    verdict, the broken items): with ``comment: on-change`` a comment that already carries it
    is left as it is."""
    digest = hashlib.sha256(json.dumps(what).encode("utf-8")).hexdigest()
    return f"<!-- evalbot-says:v1 {digest} -->"


def _verdict_says(verdict: Verdict) -> str:
    d = verdict.decision
    return _says("verdict", d.conclusion, d.outcome, d.gate, sorted(verdict.comparison.broken_ids))


def _hidden(state: State, says: str) -> str:
    """What a comment carries unseen: the looks' state block, then what it says."""
    return f"{render_state(state)}\n{says}" if state.looks else says


def _upsert(run: RunContext, body: str, says: str) -> CommentInfo | None:
    """Write evalbot's own sticky comment as input ``comment`` asks (never; on a change of what
    it says; always); ``None`` where none is written (no pull request, a fork's read-only
    token: then a warning says why)."""
    number, status, mode = run.pull_number, run.status, run.settings.comment
    if number is None or status is None or status.read_only or status.identity is None:
        return None
    if mode == "never":
        return None
    if mode == "on-change":
        own = own_comment(
            run.gh,
            run.pull_number,
            run.status.identity if run.status else None,
            run.settings.marker,
        )
        if own is not None and says in own.body:
            run.env.info("evalbot: comment left as it is (comment: on-change, nothing changed)")
            return own
    try:
        return run.gh.upsert_sticky_comment(
            number,
            run.settings.marker,
            body,
            author=status.identity.login,
            author_type=status.identity.user_type,
        )
    except GitHubRequestError as error:
        if run.fork_pull_request and error.status == 403:
            run.env.warning(FORK_WARNING, title="evalbot: read-only token")
            status.read_only = True
            return None
        raise


def publish_verdict(run: RunContext, verdict: Verdict, rendered: Rendered) -> int:
    """The check (first: its digest is the look's record), the comment, the job summary and
    the outputs; the exit code of the gate."""
    c, d, status = verdict.comparison, verdict.decision, run.status
    digest = verdict.record or run.no_look()
    finish = {"title": rendered.check_title, "summary": rendered.check_summary}
    if status is not None:
        status.finish(d.conclusion, digest=digest, **finish)
    comment = _upsert(run, rendered.comment, _verdict_says(verdict))
    look = digest.look
    if status and not status.use_status and comment and look and look.comment != comment.id:
        try:  # the record names the comment it was published in
            named = Digest.of_look(replace(look, comment=comment.id))
            status.finish(d.conclusion, digest=named, **finish)
        except EvalbotError as error:
            run.env.warning(f"the check's record does not name the comment ({error})")
    comment_url = comment.html_url if comment is not None else ""
    summary = rendered.summary
    if status is not None and status.read_only:
        summary = f"> [!WARNING]\n> {FORK_WARNING}\n\n{summary}"
    run.env.add_summary(summary)
    ci = c.difference.confidence_interval
    outputs = {
        "verdict": d.outcome,
        "gate": d.gate,
        "p-value": pvalue_output(c.pvalue),
        "difference": f"{c.difference.statistic:.6g}",
        "ci-low": f"{ci.low:.6g}",
        "ci-high": f"{ci.high:.6g}",
        "fixed": str(len(c.fixed_ids)),
        "broken": str(len(c.broken_ids)),
        "comment-url": comment_url,
        "conclusion": d.conclusion,
    }
    for key, value in outputs.items():
        run.env.set_output(key, value)
    run.env.info(f"evalbot: {rendered.check_title}")
    return EXIT_GATE_FAILED if d.gate == "fail" else EXIT_OK


def publish_neutral(run: RunContext, neutral: Neutral, config: Config | None) -> int:
    """No verdict: nothing to compare, a refusal or a failed eval run; the check fails unless
    the plan, when it was read, says otherwise (:meth:`Neutral.fails`)."""
    fail = neutral.fails(config, pull_request=run.event.on_pull_request)
    conclusion = "failure" if fail else "neutral"
    name = run.settings.name
    title = md.format("evalbot: {}", name) if name != "evalbot" else "evalbot"
    headline = md.format("{} {}", Markdown("❌" if fail else "➖"), neutral.title)
    message = neutral.message
    if fail and neutral.opt_out:
        message = md.format(
            "{} Until then the check fails, so that a pull request without a baseline is "
            "never a way past a required check ({} in the plan leaves it neutral).",
            message,
            md.code(f"{neutral.opt_out}: neutral"),
        )
    if run.status is not None:
        run.status.finish(conclusion, title=neutral.title, summary=message, digest=run.no_look())
    comment = None
    if run.pull_number is not None and run.settings.comment != "never":
        says = _says("notice", fail, neutral.title.plain)
        notice = _notice_comment(run, neutral.title, message, failed=fail, says=says)
        comment = _upsert(run, notice, says)
    url = comment.html_url if comment is not None else ""
    report = run.env.error if fail else run.env.warning
    report(message.plain, title=f"evalbot: {neutral.title.plain}")
    run.env.add_summary(md.format("## {}\n\n### {}\n\n{}\n", title, headline, message))
    for key in ("p-value", "difference", "ci-low", "ci-high", "fixed", "broken"):
        run.env.set_output(key, "")
    run.env.set_output("verdict", "inconclusive")
    run.env.set_output("gate", "fail" if fail else "pass")
    run.env.set_output("comment-url", url)
    run.env.set_output("conclusion", conclusion)
    return EXIT_GATE_FAILED if fail else EXIT_OK


def _notice_comment(
    run: RunContext, title: Markdown, message: Markdown, *, failed: bool, says: str
) -> str:
    """The comment saying why there is no verdict; not a look: the earlier ones stay as they
    were (an unreadable block is kept as is)."""
    own = own_comment(
        run.gh, run.pull_number, run.status.identity if run.status else None, run.settings.marker
    )
    state = parse_state(own.body) if own is not None else State()
    return render_notice(
        title,
        message,
        marker=run.settings.marker,
        state_block=_hidden(state, says),
        history=history_rows(
            distinct_looks(state.looks), commit_url=run.commit_url, pull=run.pull_number
        ),
        max_chars=MAX_COMMENT_CHARS,
        failed=failed,
    )


def fail_check(
    run: RunContext, title: str, summary: Markdown, *, conclusion: str = "failure"
) -> None:
    """Complete the check as failure, keeping its record (a look already shown, or being
    sent, stays a look). When GitHub keeps refusing that, a new check run is created completed
    as failure in its place. An error on the way is annotated, never raised over the original
    one."""
    status = run.status
    if status is None:
        return
    digest = status.recorded if status.recorded is not None else run.no_look()
    try:
        status.finish(conclusion, title=title, summary=summary, digest=digest)
        return
    except Exception as error:  # the original error says more
        run.env.error(f"could not complete the check: {error}", title="evalbot")
        why = str(error)
    instead = md.format(
        "{}\n\nevalbot could not complete its check run ({}), so this one, created completed, "
        "takes its place.\n",
        summary,
        why,
    )
    try:
        if status.replace(title=title, summary=instead, digest=digest):
            run.env.warning("created a completed check run in place of the one GitHub kept open")
    except Exception as error:
        run.env.error(f"could not create a completed check run either: {error}", title="evalbot")


def publish_failure(run: RunContext, error: EvalbotError) -> int:
    """Bad input: the check fails, the summary says what to fix; the comment stays as it was."""
    message = str(error)  # it quotes input: escaped in Markdown
    title = Markdown("evalbot could not compare: fix the input")
    summary = md.format(
        "### ❌ {}\n\n{}\n\nNothing was compared and the comment was left as it was. Fix "
        "the problem above and re-run. Inputs and setup: {}\n",
        title,
        message,
        Markdown(DOCS),
    )
    run.env.error(message, title="evalbot")
    fail_check(run, title, summary)
    run.env.add_summary(summary)
    run.env.set_output("verdict", "")
    run.env.set_output("gate", "fail")
    run.env.set_output("conclusion", "failure")
    return EXIT_BAD_INPUT


def publish_cancelled(run: RunContext, cancelled: Cancelled) -> int:
    """SIGTERM or SIGINT (a cancelled job, a newer run of its concurrency group): the check is
    completed ``cancelled`` (unless it already carries the result) and the summary says so."""
    signal_name = signal.Signals(cancelled.signum).name
    status = run.status
    title = Markdown("evalbot was stopped before it finished")
    summary = md.format(
        "### ❌ {}\n\nThe job got {} (cancelled, or replaced by a newer run of its concurrency "
        "group) before evalbot {}. Re-run the job for a verdict.\n",
        title,
        signal_name,
        Markdown(
            "had updated its comment"
            if status is not None and status.completed
            else "had published a verdict"
        ),
    )
    run.env.error(f"stopped by {signal_name} before the run finished", title="evalbot")
    if status is not None and not status.completed:
        fail_check(run, title, summary, conclusion="cancelled")
    with contextlib.suppress(OSError):
        run.env.add_summary(summary)
    run.env.set_output("gate", "fail")
    run.env.set_output("conclusion", "cancelled")
    return cancelled.exit_code


def publish_internal_error(run: RunContext, error: BaseException) -> None:
    """A bug of evalbot's: complete the check and say so in the summary; the caller
    re-raises (the CLI prints one line and exits 3)."""
    what = f"{type(error).__name__}: {error}"
    if len(what) > 500:
        what = what[:499] + "…"
    title = Markdown("evalbot hit an internal error")
    summary = md.format(
        "### ❌ {}\n\n{}\n\nNothing was published as a verdict. This is a bug of evalbot, "
        "not of your setup: please report it (set `EVALBOT_DEBUG=1` for the traceback).\n",
        title,
        md.code_block(what, "text"),
    )
    run.env.error(f"internal error ({what})", title="evalbot")
    fail_check(run, title, summary)
    with contextlib.suppress(OSError):
        run.env.add_summary(summary)
    run.env.set_output("gate", "fail")
    run.env.set_output("conclusion", "failure")


def publish_unpublished(run: RunContext, error: EvalbotError) -> None:
    """GitHub refused part of the publishing (say the comment): the check is not left as it
    was but completed as failure with the reason; the caller re-raises."""
    title = Markdown("evalbot could not publish its result")
    summary = md.format("{}\n\nInputs, permissions and setup: {}\n", str(error), Markdown(DOCS))
    fail_check(run, title, summary)
    with contextlib.suppress(OSError):
        run.env.add_summary(md.format("### ❌ {}\n\n{}", title, summary))
    run.env.set_output("conclusion", "failure")


def summarise_only(run: RunContext, candidate: Results, notes: list[Markdown]) -> None:
    """No baseline was asked for (a push, a dispatch): the candidate is valid, nothing more."""
    n = len(set(candidate.ids))
    if candidate.kind == "binary":
        rate = float(candidate.scores.mean()) if len(candidate) else 0.0
        line = f"pass rate {rate * 100:.1f} % over {n} items ({len(candidate)} rows)"
    else:
        mean = float(candidate.scores.mean()) if len(candidate) else 0.0
        line = f"mean score {mean:.3f} over {n} items ({len(candidate)} rows)"
    text = md.format("{} is valid: {}.", md.code(run.settings.candidate or ""), Markdown(line))
    extra = md.join("", (md.format("\n{}\n", note) for note in notes))
    run.env.add_summary(
        md.format(
            "## evalbot: {}\n\n{}\n\nNo baseline was asked for (input `baseline` or "
            "`baseline-artifact`), so nothing was compared.\n{}",
            run.settings.name,
            text,
            extra,
        )
    )
    run.env.info(f"evalbot: {text.plain}")
    run.env.set_output("verdict", "")
    run.env.set_output("gate", "pass")
    run.env.set_output("conclusion", "validated")
