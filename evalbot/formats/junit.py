"""JUnit XML (pytest ``--junitxml``, Maven surefire, Jest, Go's gotestsum, ...).

Each ``<testcase>`` is an item ``classname::name`` (``name`` alone without a classname), in the
slice of its ``<testsuite name>``. A ``<failure>`` child is a fail; an ``<error>`` or a
``<skipped>`` child means the test was not evaluated (the ``errors`` column: ``policy.errors``
decides), not a fail. Anything else passed.

The XML is untrusted: a document with a DTD (``<!DOCTYPE``) or an entity declaration
(``<!ENTITY``) is refused before parsing (no billion laughs, no external entities), and only
UTF-8 (or ASCII) documents are read, so that check sees the text the parser sees.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from evalbot.errors import InputError
from evalbot.formats.builder import ResultsBuilder, show
from evalbot.formats.jsontext import UnreadableError, decode_text
from evalbot.formats.model import ReadOptions, Results
from evalbot.formats.probe import Probe

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

NAME = "junit"

_DECLARED = re.compile(r"""^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']*)["']""")
_UTF8 = frozenset({"utf-8", "utf8", "us-ascii", "ascii"})
_DANGEROUS = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
#: Elements nested deeper than this are refused (a JUnit report nests four or five).
MAX_DEPTH = 200
_PIECE = 1 << 12


def sniff(probe: Probe) -> bool:
    return probe.kind == "xml" or probe.lowered.endswith(".xml")


def _root(data: bytes, source: str) -> ET.Element:
    import xml.etree.ElementTree as ET  # here: only an XML input needs it (start-up time)

    text = decode_text(data, source)
    declared = _DECLARED.match(text)
    if declared and declared.group(1).strip().lower() not in _UTF8:
        raise InputError(
            f"{source}: XML declares encoding {show(declared.group(1))}; only UTF-8 is read"
        )
    dangerous = _DANGEROUS.search(text)
    if dangerous:
        line = text.count("\n", 0, dangerous.start()) + 1
        raise InputError(
            f"{source}:{line}: XML with a DTD or entity declaration is refused (<!"
            f"{dangerous.group(1).upper()})"
        )
    raw = text.encode("utf-8", "surrogatepass")
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(("start", "end"))
    depth, roots = 0, list[ET.Element]()
    try:  # a piece at a time: a document nested too deep is refused before it costs more
        for start in range(0, len(raw), _PIECE):
            parser.feed(raw[start : start + _PIECE])
            for event, element in parser.read_events():  # type: ignore[misc]
                if event == "start" and depth == 0 and isinstance(element, ET.Element):
                    roots.append(element)
                depth += 1 if event == "start" else -1
                if depth > MAX_DEPTH:
                    raise InputError(f"{source}: XML nested deeper than {MAX_DEPTH} elements")
        parser.close()
    except ET.ParseError as error:
        line = error.position[0] if error.position else 1
        message = str(error).split(":", 1)[0]
        raise UnreadableError(f"{source}:{line}: not valid XML ({message})") from None
    except (ValueError, RecursionError) as error:
        raise UnreadableError(f"{source}: not valid XML ({error})") from None
    return roots[0]


def parse_probe(probe: Probe, options: ReadOptions) -> Results:
    """Parse a JUnit XML report."""
    source = probe.name
    root = _root(probe.data, source)
    if root.tag not in ("testsuites", "testsuite", "testcase"):
        raise UnreadableError(f"{source}: root element is <{show(root.tag, 30)}>, not <testsuites>")
    builder = ResultsBuilder(source)
    number = 0
    suites = [root] if root.tag == "testcase" else list(root.iter("testsuite"))
    if root.tag == "testsuites":
        suites.insert(0, root)
    for suite in suites:
        cases = [suite] if suite.tag == "testcase" else suite.findall("testcase")
        suite_name = suite.get("name") if suite.tag == "testsuite" else None
        for case in cases:
            number += 1
            where = f"{source}: testcase {number}"
            name = case.get("name")
            if not name:
                raise InputError(f"{where}: <testcase> has no `name`")
            classname = case.get("classname") or ""
            item_id = f"{classname}::{name}" if classname else name
            children = {child.tag for child in case}
            errored = "error" in children or "skipped" in children  # counts 0, not a fail
            score = float("failure" not in children)
            builder.add(where, item_id, score, slice=suite_name or None, error=errored)
    return builder.build()
