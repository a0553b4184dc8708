"""The project's own errors. Every user-fixable problem is an ``EvalbotError``.

Its message is shown verbatim, as one line, by :mod:`evalbot.cli`, which maps the kinds to exit
codes in one place. Messages name the file and, where there is one, the line or the item.
"""

from __future__ import annotations

# The exit codes of every entry point (docs/cli.md, "Exit codes"): the one table.
#: The comparison ran (whatever the verdict) and the gate passed; also: nothing to do.
EXIT_OK = 0
#: The gate failed (by default: a significant regression).
EXIT_GATE_FAILED = 1
#: Bad input, bad config or bad usage: one line on stderr, never a traceback.
EXIT_BAD_INPUT = 2
#: An internal error of evalbot (a bug).
EXIT_INTERNAL = 3
#: Interrupted (Ctrl-C), as shells report SIGINT: 128 + 2.
EXIT_INTERRUPTED = 130
#: Stopped by SIGTERM (a cancelled job, a newer run of its concurrency group): 128 + 15.
EXIT_TERMINATED = 143


class EvalbotError(Exception):
    """A problem the user can fix. ``str(error)`` is the one line shown to them (the CLI exits
    with :data:`EXIT_BAD_INPUT`)."""


class UsageError(EvalbotError):
    """Bad command-line usage."""


class InputError(EvalbotError):
    """A result file is missing, unreadable or malformed."""


class ConfigError(EvalbotError):
    """``.evalbot.yml`` is missing, malformed or invalid."""


class PairingError(EvalbotError):
    """Baseline and candidate cannot be paired item by item."""


class PublishError(EvalbotError):
    """GitHub refused or failed a request that evalbot needed."""


class Cancelled(BaseException):
    """The action was told to stop (SIGTERM or SIGINT: a cancelled job). Like
    ``KeyboardInterrupt`` it is no ``Exception``, so no error handler on the way swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum  # as shells report it: EXIT_INTERRUPTED, EXIT_TERMINATED
