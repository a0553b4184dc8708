"""Parsers: bytes of one result file -> :class:`evalbot.results.model.Results`.

Each format module exposes ``parse(data: bytes, *, source: str, options: ReadOptions) -> Results``
and ``sniff(name: str, head: bytes) -> bool``. They are pure: no file access.
"""
