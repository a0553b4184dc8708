"""The project's own errors. Every user-fixable problem is an ``EvalbotError``.

Its message is shown verbatim, as one line, by :mod:`evalbot.cli`, which maps the kinds to exit
codes in one place. Messages name the file and, where there is one, the line or the item.
"""

from __future__ import annotations


class EvalbotError(Exception):
    """A problem the user can fix. ``str(error)`` is the one line shown to them."""

    exit_code = 2


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
