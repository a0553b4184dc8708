"""Every size limit evalbot works within, each defined once: GitHub's (it answers 422 beyond
them), the archives' budgets (:class:`evalbot.formats.archive.ArchiveBudget`), a user's
``report.template`` (:mod:`evalbot.report.sandbox`)."""

from __future__ import annotations

# ---- statistics ------------------------------------------------------------------------------

#: Upper bound of ``bootstrap.resamples`` (and ``--resamples``). At a million resamples the
#: Monte Carlo error of a bootstrap p-value near 0.05 is about 0.0002 (sqrt(0.05 * 0.95 / 1e6))
#: and the percentile interval's endpoints move by less than the report rounds them to, so more
#: buys nothing; the resampled totals are (resamples x columns) floats, 8 MB per column at this
#: bound but 8 GB at a billion, and the time grows alike: a typo such as ``1e12`` would hang the
#: job instead of failing fast.
MAX_RESAMPLES = 1_000_000

# ---- numbers ---------------------------------------------------------------------------------

#: Digits of an integer in a results file or the plan; a longer one is refused where it is read.
#: No id, count or score needs more; a float holds 308, and Python converts at most 4,300.
MAX_NUMBER_DIGITS = 100

# ---- GitHub's ---------------------------------------------------------------------------------

#: The body of an issue (pull request) comment.
MAX_COMMENT_CHARS = 65_536
#: evalbot's state block, the end of its comment: half of it, the report has the rest.
MAX_STATE_BLOCK_CHARS = MAX_COMMENT_CHARS // 2
#: A check run's ``output.summary`` and ``output.text``, each.
MAX_CHECK_TEXT_CHARS = 65_535
#: A commit status's ``description``.
MAX_STATUS_DESCRIPTION_CHARS = 140

# ---- archives (evalbot's) ---------------------------------------------------------------------
# Two sets, because the two readers face different senders. Files on disk (the command line, and
# the action's `candidate`/`baseline` workspace paths) are what the runner's own job wrote: the
# limits only stop a runaway. An artifact the action downloads may come from a pull request's
# run, shaped by whoever opened it, and is inflated in the memory of a shared runner: ten times
# tighter, and the bytes can be changed with `EVALBOT_MAX_ARTIFACT_BYTES`
# (:mod:`evalbot.github.runner`), which also caps the download itself.

#: Inflated bytes of one file (or directory entry) on disk, archives nested in it included.
MAX_FILE_ARCHIVE_BYTES = 2 * 1024**3
#: Archive entries of one file on disk, nested archives included.
MAX_FILE_ARCHIVE_MEMBERS = 100_000
#: Bytes of one artifact: downloaded, and inflated (the default of EVALBOT_MAX_ARTIFACT_BYTES).
MAX_ARTIFACT_BYTES = 200 * 1024**2
#: Entries of one artifact's zip, nested archives included.
MAX_ARTIFACT_MEMBERS = 10_000
#: Bytes one artifact may inflate to per byte downloaded. Real result files deflate 9 to 18
#: times (every file of tests/data, level 9); deflate itself reaches 1,032 times, and a reader
#: holds up to ~50 bytes per byte it reads (millions of tiny rows): a 28 KB artifact of tiny
#: CSV rows inflated to 28 MB and cost 1.3 GB of memory.
MAX_ARTIFACT_RATIO = 100
#: ... but any artifact may inflate to this many bytes.
ARTIFACT_INFLATE_FLOOR = 1024**2


def artifact_inflate_limit(downloaded: int, cap: int) -> int:
    """The bytes an artifact of ``downloaded`` bytes may inflate to: proportional to it, so
    memory is too, within ``cap`` (``EVALBOT_MAX_ARTIFACT_BYTES``)."""
    return min(cap, max(ARTIFACT_INFLATE_FLOOR, MAX_ARTIFACT_RATIO * downloaded))


# ---- a user's report template (evalbot's) -----------------------------------------------------
# Each rendering of `report.template` (the plan's own layout of the comment, code that evalbot
# runs): stopped past any of these with one error line naming the template.

#: Seconds one rendering (compiling included) may run.
TEMPLATE_SECONDS = 10.0
#: Characters one rendering may write (the comment is cut to GitHub's limit after it).
TEMPLATE_OUTPUT_CHARS = 1024**2
#: Bytes of memory (address space, on Linux) one rendering may use beyond evalbot's own.
TEMPLATE_MEMORY_BYTES = 1024**3
#: Macro calls nested in one another.
TEMPLATE_MACRO_DEPTH = 100
#: Distinct files it may include or import from its folder, and characters of each.
TEMPLATE_FILES = 50
TEMPLATE_FILE_CHARS = 256 * 1024
