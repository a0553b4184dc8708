"""pytest fixtures for the fake GitHub server.

``fake_github`` is a started :class:`~tests.fakegithub.FakeGitHub` with one Actions token
(:data:`APP_TOKEN`, all permissions write) and nothing else; it is stopped after the test.
``fake_ghes`` is the same served under ``/api/v3``, as GitHub Enterprise Server serves its API.
``fake_repo`` adds ``octo/evals`` with a base commit on ``main`` (holding ``.evalbot.yml``), a head
commit on ``feature`` and PR #1 between them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .server import FakeGitHub
from .state import Pull, Repo

APP_TOKEN = "ghs_fakeAppToken0000000000000000000001"
REPO = "octo/evals"
GHES_PREFIX = "/api/v3"


def _started(prefix: str = "") -> Iterator[FakeGitHub]:
    fake = FakeGitHub(prefix=prefix).start()
    fake.add_token(APP_TOKEN)
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    yield from _started()


@pytest.fixture
def fake_ghes() -> Iterator[FakeGitHub]:
    yield from _started(GHES_PREFIX)


@pytest.fixture
def fake_repo(fake_github: FakeGitHub) -> tuple[Repo, Pull]:
    repo = fake_github.add_repo(REPO)
    base = repo.add_commit(files={".evalbot.yml": "alpha: 0.05\n"}, branch="main", message="base")
    head = repo.add_commit(
        parents=[base], files={"evals/x.jsonl": "{}\n"}, branch="feature", message="head"
    )
    pull = repo.add_pull(number=1, head_sha=head, base_sha=base, head_ref="feature")
    return repo, pull
