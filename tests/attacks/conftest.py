"""The attack suite: each test is one way someone tried to beat evalbot's plan or its
publishing, run end to end (``evalbot action`` as a subprocess against the fake GitHub on
127.0.0.1) and asserted to fail. Each test's docstring says what the attacker does and what would follow if the defence
were gone; ``EVALBOT_UNDER_TEST=/path/to/older/checkout`` runs the steps with another
checkout's evalbot to see that."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakegithub import FakeGitHub
from tests.integration.action_harness import World


@pytest.fixture
def world(fake_github: FakeGitHub, tmp_path: Path) -> World:
    return World(fake_github, tmp_path)
