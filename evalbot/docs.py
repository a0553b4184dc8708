"""Pure: where evalbot's documentation lives, for links in messages, ``--help`` and the comment.

The README is the documentation; each constant is a section of it on the project's repository
(a test checks that every anchor named here is a heading of the README).
"""

from __future__ import annotations

__all__ = ["ACTION_DOCS", "GLOSSARY_URL", "PROJECT_URL", "README_URL"]

#: The project's repository.
PROJECT_URL = "https://github.com/evalbot/evalbot"
#: The README, as GitHub shows it on the repository's front page.
README_URL = f"{PROJECT_URL}#readme"
#: The GitHub Action's part of the README: inputs, permissions, setup.
ACTION_DOCS = f"{PROJECT_URL}#the-github-action"
#: The glossary: gate, churn, fixed, broken, discordant, Wilson, q-value, MDE, look, ...
GLOSSARY_URL = f"{PROJECT_URL}#glossary"
