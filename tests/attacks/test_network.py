"""Where evalbot's requests go: only to GitHub, whatever the environment or a redirect says.

A step before evalbot's can write ``$GITHUB_ENV`` (the same-repository setup runs the pull
request's code there): ``HTTPS_PROXY`` pointed every request, the token in its header, at a
host of its choosing. And the artifact's storage host could redirect the download anywhere:
only GitHub's own first answer was checked. Each test puts a second fake server where the
attacker's host would be and asserts that it never hears from evalbot.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from evalbot.plan.ledger import parse_digest
from tests.attacks.helpers import RESAMPLES, plain, plan
from tests.fakegithub import FakeGitHub
from tests.integration.action_harness import World


@pytest.fixture
def elsewhere() -> Iterator[FakeGitHub]:
    """A host that is not GitHub: it logs whatever reaches it."""
    with FakeGitHub() as other:
        yield other


def test_a_proxy_set_by_an_earlier_step_never_sees_the_token(
    world: World, elsewhere: FakeGitHub
) -> None:
    plan(world, RESAMPLES)
    world.add_baseline_run()
    host = urlsplit(world.fake.url).hostname
    (world.tmp / ".netrc").write_text(f"machine {host} login someone password netrc-secret\n")
    proxies = dict.fromkeys(("HTTP_PROXY", "https_proxy", "ALL_PROXY"), elsewhere.url)
    result = world.run(process=True, extra_env={**proxies, "REQUESTS_CA_BUNDLE": "/nonexistent"})
    assert result.code == 0, result.stdout + result.stderr
    assert elsewhere.requests == []
    assert "evalbot ignores ALL_PROXY, HTTP_PROXY, REQUESTS_CA_BUNDLE, https_proxy" in result.stdout
    api = [r for r in world.fake.requests if not r.path.startswith("/_blob/")]
    assert api
    assert all(r.token == "github-actions[bot]" for r in api)  # the run's token, not netrc
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert check.conclusion == "success"


@pytest.mark.parametrize("hop", [2, 3])
def test_a_redirect_that_leaves_the_storage_host_is_not_followed(
    world: World, elsewhere: FakeGitHub, hop: int
) -> None:
    """GitHub redirects the archive URL to its storage host (hop 1); the storage host then
    redirects, on hop ``hop``, to another host. The download stops there."""
    plan(world, RESAMPLES)
    world.add_baseline_run()
    if hop == 3:  # first a redirect that stays on the storage host
        location = f"{world.fake.url}/_blob/second?sig=x"
        world.fake.inject("GET", r"/_blob/(?!second).*", 302, b"", headers={"Location": location})
    world.fake.inject(
        "GET", r"/_blob/.*", 302, b"", headers={"Location": f"{elsewhere.url}/_blob/stolen"}
    )
    result = world.run(process=True)
    assert result.code == 2, result.stdout + result.stderr
    assert elsewhere.requests == []
    assert len(world.fake.requests_to("GET", r"/_blob/.*")) == hop - 1
    message = "the storage host 127.0.0.1 redirected outside itself; refusing to follow"
    assert message in result.stdout
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert (check.status, check.conclusion) == ("completed", "failure")
    assert message in plain(check.output["summary"])
    digest = parse_digest(check.output.get("text"))
    assert digest is not None
    assert digest.kind == "none"
