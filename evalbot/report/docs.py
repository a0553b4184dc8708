"""Pure: where evalbot's documentation lives, for links in messages, ``--help`` and the comment.

The documentation site is built from ``docs/`` with mkdocs (a test checks that every page
named here is a page of it).
"""

from __future__ import annotations

__all__ = ["ACTION_DOCS", "DOCS_URL", "GLOSSARY_URL", "PROJECT_URL", "README_URL"]

#: The project's repository.
PROJECT_URL = "https://github.com/evalbot/evalbot"
#: The README, as GitHub shows it on the repository's front page.
README_URL = f"{PROJECT_URL}#readme"
#: The documentation site (GitHub Pages, built from docs/).
DOCS_URL = "https://evalbot.github.io/evalbot/"
#: The GitHub Action's page: inputs, permissions, setup.
ACTION_DOCS = f"{DOCS_URL}action/"
#: The glossary: gate, churn, fixed, broken, discordant, Wilson, q-value, MDE, look, ...
GLOSSARY_URL = f"{DOCS_URL}glossary/"
