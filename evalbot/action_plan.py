"""The plan of a run: ``.evalbot.yml`` read at the pull request's **base** commit.

The files the plan names (``all_ids``, ``policy.items_file``, ``holdout.ids_file``,
``report.template`` and what the template includes) are read at the same commit, relative to
the config's folder and never outside the repository: a pull request cannot change the plan
it is judged by. When it changes the file, the comment shows the change.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Callable

from evalbot.action_context import RunContext
from evalbot.action_records import Plan
from evalbot.action_text import config_diff
from evalbot.errors import ConfigError, PublishError
from evalbot.github.client import GitHubClient
from evalbot.github.runner import ActionInputError
from evalbot.plan.config import Config, parse_config
from evalbot.report import text as md
from evalbot.report.render import UserTemplate
from evalbot.report.sandbox import TemplateFolder
from evalbot.report.text import Markdown

__all__ = ["load_plan", "plan_reader"]

ReadText = Callable[[str], str]


def load_plan(run: RunContext) -> Plan:
    """The plan at the base commit (a pull request) or this commit (a push), its notes, the
    pull request's change to it and the user's template."""
    event, path = run.event, run.settings.config
    ref = run.base_sha if event.on_pull_request else event.head_sha
    if not ref:
        raise ActionInputError("cannot tell which commit to read the config from")
    where = "the base commit" if event.on_pull_request else "this commit"
    text = run.gh.get_file_at_ref(path, ref)
    read_text = plan_reader(run.gh, path, ref)
    notes: list[Markdown] = []
    if text is None:
        config = Config()
        notes.append(
            md.format(
                "No {} at {} {}: evalbot's defaults apply.",
                md.code(path),
                Markdown(where),
                md.code(ref[:7]),
            )
        )
    else:
        config = parse_config(text, f"{path}@{ref[:7]}", read_text=read_text)
    change = _config_change(run, text, ref)
    template = _user_template(config, read_text, f"{path}@{ref[:7]}", at=where, ref=ref)
    blob = None
    if text is not None:  # git's blob id of the file, as `git hash-object` gives it
        data = text.encode("utf-8")
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
    return Plan(config=config, notes=notes, config_change=change, template=template, blob=blob)


def plan_reader(gh: GitHubClient, config_path: str, ref: str) -> ReadText:
    """``read_text`` for files the plan names (``all_ids``, ``policy.items_file``,
    ``holdout.ids_file``, ``report.template``):
    relative to the config's folder, read at the same commit, never outside the repository."""
    folder = posixpath.dirname(config_path)

    def read_text(name: str) -> str:
        path = posixpath.normpath(posixpath.join(folder, name))
        if posixpath.isabs(name) or path == ".." or path.startswith("../"):
            raise FileNotFoundError(name)
        text = gh.get_file_at_ref(path, ref)
        if text is None:
            raise FileNotFoundError(name)
        return text

    return read_text


def _config_change(run: RunContext, text: str | None, ref: str) -> str | None:
    """A unified diff when the pull request's head changes the config read at ``ref``."""
    event, path = run.event, run.settings.config
    if not event.on_pull_request or event.head_sha == ref:
        return None
    try:
        head_text = run.gh.get_file_at_ref(path, event.head_sha)
    except PublishError:
        head_text = text
    if head_text is None and event.is_fork:
        head_text = text  # a fork's commit may not be readable here: say nothing
    return config_diff(path, text, head_text) if head_text != text else None


def _user_template(
    config: Config, read_text: ReadText, source: str, *, at: str, ref: str
) -> UserTemplate | None:
    """``report.template``, read beside the config at the same commit (and the files of its
    folder it includes)."""
    name = config.report.template
    if name is None:
        return None
    try:
        template_text = read_text(name)
    except FileNotFoundError:
        raise ConfigError(
            f"{source}: `report.template` {name!r}: no such file at {at} "
            "(it is read beside the config, inside the repository)"
        ) from None
    folder = posixpath.dirname(name)

    def beside(relative: str) -> str | None:
        """A file of the template's folder (``relative`` is checked: no ``..``)."""
        try:
            return read_text(posixpath.join(folder, relative))
        except FileNotFoundError:
            return None

    return UserTemplate(name=f"{name}@{ref[:7]}", text=template_text, folder=TemplateFolder(beside))
