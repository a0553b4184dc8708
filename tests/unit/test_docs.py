"""The documents hold together: the README's example plan is the file in docs/ and is coherent,
every relative link (and every repository path named) in the documents exists, and
CONTRIBUTING.md's tree names every package of evalbot/ with its purpose."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from evalbot.cli import load_config
from evalbot.compare import compute_comparison
from evalbot.plan.policy import evaluate, plan_sample_size
from tests.golden.scenarios import paired_from_cells

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PLAN_DOC = ROOT / "docs" / "plan.md"
EXAMPLE = ROOT / "docs" / "evalbot.example.yml"
#: The documents a reader follows links in.
DOCUMENTS = sorted(
    {
        README,
        ROOT / "CONTRIBUTING.md",
        *(ROOT / "docs").rglob("*.md"),
        ROOT / "bench" / "README.md",
        ROOT / "tests" / "data" / "README.md",
        ROOT / "tests" / "integration" / "payloads" / "README.md",
    }
)


def test_the_plan_docs_example_is_the_example_file() -> None:
    text = PLAN_DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(# \.evalbot\.yml — .*?)^```", text, flags=re.S | re.M)
    assert len(blocks) == 1
    assert blocks[0] == EXAMPLE.read_text(encoding="utf-8")


def test_the_example_plan_is_coherent() -> None:
    """Run at its planned size with the rates it was planned for, the example gives a verdict:
    the size comes from the plan, each look is tested at the alpha the plan was sized for, and
    the eval can detect the smallest change that matters (``min_effect``)."""
    config = load_config(str(EXAMPLE))
    planned = plan_sample_size(config)
    assert planned is not None and planned.source == "plan" and config.plan is not None
    items = planned.items
    # 367 items: `evalbot plan --fix-rate 0.08 --break-rate 0.03` (README; the exact test's
    # size, recomputed with scipy in tests/unit/stats/test_power.py), as the comment says
    assert items == 367 and "-> 367 items" in EXAMPLE.read_text(encoding="utf-8")
    fixed = round(config.plan.fix_rate * items)  # 29
    broken = round(config.plan.break_rate * items)  # 11
    cells = {"fixed": fixed, "broken": broken, "both_fail": 60}
    cells["both_pass"] = items - sum(cells.values())
    comparison = compute_comparison(paired_from_cells(cells), config)
    decision = evaluate(comparison, config)
    assert decision.violations == []
    assert comparison.alpha.effective == config.alpha  # no looks correction the plan ignored
    assert not decision.underpowered, decision.reasons
    min_effect = decision.config.policy.min_effect
    assert min_effect is not None and decision.minimum_detectable_effect is not None
    assert decision.minimum_detectable_effect <= min_effect
    # McNemar exact, 29 fixed / 11 broken: 2 * P(Binomial(40, 1/2) <= 11) = 0.0064 < 0.05
    assert decision.outcome == "improvement" and decision.gate == "pass"


# ---- links ----------------------------------------------------------------------------------

MARKDOWN = MarkdownIt("commonmark").enable("table")


def _plain(inline: Token) -> str:
    return "".join(
        child.content for child in inline.children or [] if child.type in ("text", "code_inline")
    )


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    kept = re.sub(r"[^\w\- ]", "", heading.lower())
    return kept.replace(" ", "-")


#: An HTML anchor in Markdown (``<a id="gate"></a>``), which GitHub keeps as a link target.
HTML_ANCHOR = re.compile(r"<a (?:id|name)=\"([\w-]+)\"></a>")


def anchors(document: Path) -> set[str]:
    text = document.read_text(encoding="utf-8")
    tokens = MARKDOWN.parse(text)
    found: set[str] = set()
    for heading, inline in itertools.pairwise(tokens):
        if heading.type == "heading_open":
            base = slug(_plain(inline))
            name, n = base, 0
            while name in found:  # GitHub numbers repeated headings: name, name-1, name-2
                n += 1
                name = f"{base}-{n}"
            found.add(name)
    return found | set(HTML_ANCHOR.findall(text))


def links(document: Path) -> list[str]:
    """Every link and image target of a Markdown document (not text inside code)."""
    targets: list[str] = []
    stack = list(MARKDOWN.parse(document.read_text(encoding="utf-8")))
    while stack:
        token = stack.pop()
        stack.extend(token.children or [])
        if token.type == "link_open":
            targets.append(str(token.attrs["href"]))
        elif token.type == "image":
            targets.append(str(token.attrs["src"]))
    return sorted(targets)


def broken_links(document: Path) -> list[str]:
    broken = []
    for target in links(document):
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            continue  # an absolute URL: not checked here (no network in tests)
        path = document.parent / unquote(parts.path) if parts.path else document
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif parts.fragment and path.suffix == ".md" and parts.fragment not in anchors(path):
            broken.append(f"{target}: no such heading")
    return broken


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(document: Path) -> None:
    assert document.exists()
    assert broken_links(document) == []


def test_the_link_check_finds_broken_links(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("# A heading (with `code`)\n")
    doc = tmp_path / "doc.md"
    doc.write_text(
        "# Top\n[ok](there.md) [ok](#top) [ok](there.md#a-heading-with-code) "
        "[gone](docs/policy.md) [gone](#nowhere) [gone](there.md#nowhere) "
        "[web](https://example.com/x) `[code](not-a-link.md)`\n"
    )
    assert broken_links(doc) == [
        "#nowhere: no such heading",
        "docs/policy.md: no such file",
        "there.md#nowhere: no such heading",
    ]


#: Paths of this repository named in prose or code blocks (``docs/policy.md``), not links.
REPO_PATH = re.compile(
    r"(?<![\w/.-])((?:docs|evalbot|tests|bench|scripts)/[\w./-]*"
    r"\.(?:md|ya?ml|py|jsonl?|png|j2|xml|csv|eval)(?!\w))"
)


@pytest.mark.parametrize(
    "document",
    [README, ROOT / "CONTRIBUTING.md", EXAMPLE, *sorted((ROOT / "docs").rglob("*.md"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_named_repository_paths_exist(document: Path) -> None:
    named = set(REPO_PATH.findall(document.read_text(encoding="utf-8")))
    placeholders = {p for p in named if "NAME" in p}  # e.g. evalbot/formats/NAME.py
    assert sorted(p for p in named - placeholders if not (ROOT / p).exists()) == []


def test_the_pattern_finds_the_paths_the_documents_name() -> None:
    assert REPO_PATH.findall(README.read_text(encoding="utf-8"))
    assert "docs/evalbot.example.yml" in REPO_PATH.findall("see docs/evalbot.example.yml.")


#: Links into the repository from the docs site (where relative paths leave the site).
BLOB = re.compile(r"\]\(https://github\.com/evalbot/evalbot/blob/main/([^)#]+)")


def test_the_docs_links_into_the_repository_exist() -> None:
    named = {m for doc in (ROOT / "docs").glob("*.md") for m in BLOB.findall(doc.read_text())}
    assert "CONTRIBUTING.md" in named
    assert sorted(p for p in named if not (ROOT / p).exists()) == []


def docs_text() -> str:
    return " ".join(
        " ".join(doc.read_text(encoding="utf-8").split())
        for doc in sorted((ROOT / "docs").glob("*.md"))
    )


def test_the_docs_state_the_limits_evalbot_enforces() -> None:
    """The numbers the docs give for the archive, GitHub and report-template limits are the
    ones in ``evalbot/limits.py`` (the one place they are defined)."""
    from evalbot import limits

    text = docs_text()
    assert (
        f"{limits.MAX_FILE_ARCHIVE_BYTES // 1024**3} GiB inflated and "
        f"{limits.MAX_FILE_ARCHIVE_MEMBERS:,} entries for files on disk"
    ) in text
    assert (
        f"{limits.MAX_ARTIFACT_BYTES // 1024**2} MiB (`EVALBOT_MAX_ARTIFACT_BYTES`, which also "
        f"caps the download) and {limits.MAX_ARTIFACT_MEMBERS:,} entries for artifacts"
    ) in text
    assert (
        f"GitHub refuses comments over {limits.MAX_COMMENT_CHARS:,} characters (a check run's "
        f"summary: {limits.MAX_CHECK_TEXT_CHARS:,}; a commit status's description: "
        f"{limits.MAX_STATUS_DESCRIPTION_CHARS}"
    ) in text
    assert (
        f"the template may run for at most **{limits.TEMPLATE_SECONDS:g} seconds**, write at "
        f"most **{limits.TEMPLATE_OUTPUT_CHARS:,} characters**, use at most "
        f"**{limits.TEMPLATE_MEMORY_BYTES // 1024**3} GiB** of memory more than evalbot already "
        f"uses (Linux), nest macro calls at most **{limits.TEMPLATE_MACRO_DEPTH}** deep, and "
        f"include at most {limits.TEMPLATE_FILES} files of at most "
        f"{limits.TEMPLATE_FILE_CHARS:,} characters each"
    ) in text


def test_the_documentation_urls_point_at_pages_of_the_docs_site() -> None:
    """evalbot.report.docs names pages of the docs site (the comment's "terms" link, --help's
    epilog, error messages): each is a page built from docs/ (mkdocs' directory URLs)."""
    from evalbot.report import docs

    for url in (docs.ACTION_DOCS, docs.GLOSSARY_URL):
        assert url.startswith(docs.DOCS_URL) and url.endswith("/"), url
        page = url.removeprefix(docs.DOCS_URL).rstrip("/")
        assert (ROOT / "docs" / f"{page}.md").exists(), url
    assert f"{docs.PROJECT_URL}#readme" == docs.README_URL  # GitHub's own anchor
    assert f"site_url: {docs.DOCS_URL}" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


GLOSSARY_TERMS = [
    "gate",
    "churn",
    "fixed",
    "broken",
    "discordant",
    "wilson",
    "q-value",
    "mde",
    "look",
    "holdout",
    "inconclusive",
    "power",
    "powerless",
    "d_z",
]


def test_the_glossary_explains_the_terms_of_the_report() -> None:
    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    ids = set(HTML_ANCHOR.findall(glossary))
    assert set(GLOSSARY_TERMS) <= ids, set(GLOSSARY_TERMS) - ids
    entries = [line for line in glossary.splitlines() if line.startswith("- <a id=")]
    assert len(entries) == len(ids)  # one anchor per entry
    assert [e for e in entries if len(e) > 100 and "**:" not in e and "**," not in e] == []


def contributing_tree() -> dict[str, str]:
    """The ``evalbot/`` tree of CONTRIBUTING.md's "Where things live": each path named (a
    folder ends with ``/``) and the purpose written beside it, continuation lines joined."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n(evalbot/ .*?)```", text, re.DOTALL)
    assert block is not None, "CONTRIBUTING.md has a text block starting with evalbot/"
    entries: dict[str, str] = {}
    folders: list[str] = []  # the folder at each depth
    last = ""
    for line in block.group(1).splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent % 2 or indent // 2 > len(folders):  # a purpose's continuation line
            entries[last] += " " + line.strip()
            continue
        name, _, purpose = line.strip().partition(" ")
        depth = indent // 2
        if depth == 0 and entries:
            break  # the tree of evalbot/ ends where the next top-level entry begins
        del folders[depth:]
        last = "".join(folders) + name
        entries[last] = purpose.strip()
        if name.endswith("/"):
            folders.append(name)
    return entries


def test_contributing_names_every_package_and_top_level_module() -> None:
    """A reader can find the one home of any concern from the tree alone: every package of
    evalbot/ and every module at its top stands in CONTRIBUTING.md's tree with a one-line
    purpose, and everything the tree names exists (each module's docstring says the rest)."""
    tree = contributing_tree()
    package = ROOT / "evalbot"
    modules = {
        str(path.relative_to(ROOT)) for path in package.glob("*.py") if path.stem[:2] != "__"
    }
    folders = {f"{init.parent.relative_to(ROOT)}/" for init in package.glob("*/__init__.py")}
    folders.add("evalbot/")
    assert sorted((modules | folders) - set(tree)) == []
    assert sorted(name for name, purpose in tree.items() if not purpose) == []
    assert sorted(name for name in tree if not (ROOT / name).exists()) == []


def test_the_readmes_plan_is_a_valid_plan(tmp_path: Path) -> None:
    """The keys the README shows parse as a plan, sized as the example's (fix 8 % / break 3 %:
    367 items, the exact test's size recomputed in tests/unit/stats/test_power.py)."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(# \.evalbot\.yml, .*?)^```", text, flags=re.S | re.M)
    assert len(blocks) == 1
    path = tmp_path / ".evalbot.yml"
    path.write_text(blocks[0], encoding="utf-8")
    planned = plan_sample_size(load_config(str(path)))
    assert planned is not None and planned.items == 367


def last_run(path: Path) -> str:
    """The "The last run" section of a document, after its comment line."""
    text = path.read_text(encoding="utf-8")
    section = re.search(r"^## The last run\n\n<!--.*?-->\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert section is not None, f"{path.relative_to(ROOT)} has a 'The last run' section"
    return section.group(1)


def test_the_benchmarks_are_quoted_once() -> None:
    """bench/README.md and docs/performance.md show the same run of the benchmarks."""
    quoted = last_run(ROOT / "bench" / "README.md")
    assert "| **" in quoted or "**" in quoted
    assert quoted == last_run(ROOT / "docs" / "performance.md")
