"""The plan's YAML, read strictly: ``yaml.safe_load`` refusing aliases, repeated keys and
integers longer than :data:`evalbot.limits.MAX_NUMBER_DIGITS`.

Every problem is one :class:`evalbot.errors.ConfigError` line naming the file and the line.
yaml itself is imported only when a config file is read (a run without one never loads it).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from evalbot.errors import ConfigError
from evalbot.formats.builder import show
from evalbot.limits import MAX_NUMBER_DIGITS

__all__ = ["MAX_FLOW_BRACKETS", "load_yaml"]


@functools.cache
def _strict_loader() -> type[Any]:
    """The YAML loader class, made on first use: yaml is imported only when a config file is
    read (a run without one never loads it)."""
    import yaml

    class _StrictLoader(yaml.SafeLoader):
        """``yaml.safe_load`` that refuses aliases and repeated keys, with the file's name.

        Aliases (``*name``) are refused where they appear, before anything is expanded: the plan
        has no use for them, and an alias-of-aliases ("billion laughs") would otherwise be a few
        hundred bytes that grow to gigabytes once printed (an error message quoting a value does).
        A key given twice in one mapping is refused (YAML itself forbids it; PyYAML keeps the last).
        """

        source = ".evalbot.yml"

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()  # type: ignore[no-untyped-call]
                raise ConfigError(
                    f"{self.source}:{event.start_mark.line + 1}: YAML aliases are not accepted "
                    f"(alias {show(event.anchor)}); write the value out"
                )
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: dict[Any, int] = {}
                for key_node, _ in node.value:
                    if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                        continue
                    key = self.construct_object(key_node, deep=True)
                    line = key_node.start_mark.line + 1
                    try:
                        first = seen.get(key)
                    except TypeError:
                        continue  # unhashable: the base constructor reports it
                    if first is not None:
                        raise ConfigError(
                            f"{self.source}:{line}: duplicate key {show(key)} (first given on line "
                            f"{first}); which one counts?"
                        )
                    seen[key] = line
            return super().construct_mapping(node, deep=deep)

        def construct_yaml_int(self, node: Any) -> Any:
            digits = sum(c.isdigit() for c in node.value)
            if digits > MAX_NUMBER_DIGITS:
                raise ConfigError(
                    f"{self.source}:{node.start_mark.line + 1}: a number of {digits} digits "
                    f"(more than {MAX_NUMBER_DIGITS}): no setting takes one that long"
                )
            return super().construct_yaml_int(node)

    _StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
    return _StrictLoader


#: Most ``[`` and ``{`` a plan may hold. PyYAML's scanner costs time quadratic in the depth of
#: nested flow collections (``[[[[...``: 100,000 characters took seconds), and a plan needs a
#: handful; counting them is linear and cannot be fooled by quoting.
MAX_FLOW_BRACKETS = 1_000


def load_yaml(text: str, source: str) -> Mapping[str, Any]:
    """The mapping of settings in ``text`` (``source`` names it in every message): YAML read
    safely, without aliases or repeated keys, and refused unread when it nests too much."""
    brackets = text.count("[") + text.count("{")
    if brackets > MAX_FLOW_BRACKETS:
        raise ConfigError(
            f"{source}: {brackets} `[`/`{{` characters, more than the {MAX_FLOW_BRACKETS} a "
            "plan may hold (refused unread: deeply nested flow collections are slow to parse)"
        )
    import yaml

    loader = _strict_loader()(text)
    loader.source = source
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        problem = getattr(error, "problem", None) or "malformed YAML"
        problem = problem.replace("\n", " ")
        if len(problem) > 200:
            problem = problem[:197] + "..."
        raise ConfigError(f"{where}: not valid YAML ({problem})") from None
    except RecursionError:
        raise ConfigError(f"{source}: not valid YAML (nested too deeply)") from None
    finally:
        loader.dispose()
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a mapping of settings, got {show(data)}")
    return data
