"""evalbot.github against the fake GitHub server: real HTTP on 127.0.0.1, no mocks."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from evalbot.errors import PublishError
from evalbot.github.client import GitHubClient, Identity
from evalbot.github.errors import CappedRetry, GitHubRequestError, PyGithubRetry
from evalbot.github.runner import Settings
from tests.fakegithub import READ_ALL, FakeGitHub, Pull, Repo, make_zip
from tests.fakegithub.plugin import APP_TOKEN, REPO

MARKER = "<!-- evalbot:evalbot -->"
COMMENTS = r"/repos/octo/evals/issues/1/comments"
BOT = "github-actions[bot]"
#: the Actions token's identity: its comments are the bot user's
US = {"author": Identity(login=BOT, user_type="Bot")}


def client_for(fake: FakeGitHub, token: str = APP_TOKEN, retries: int = 2) -> GitHubClient:
    return GitHubClient(settings(fake.url, token, retries=retries, timeout=10))


def settings(api_url: str, token: str = APP_TOKEN, **knobs: Any) -> Settings:
    """The client's settings with every wait turned off."""
    knobs = {"retries": 2, "backoff": 0.0, "throttle": False} | knobs
    return Settings(token=token, repository=REPO, api_url=api_url, **knobs)


@pytest.fixture
def gh(fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]) -> Iterator[GitHubClient]:
    client = client_for(fake_github)
    yield client
    client.close()


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every wait the client asks for on this thread (``time.sleep``, which still sleeps): the
    fake's own delays run on its threads and are not counted."""
    asked: list[float] = []
    sleep = time.sleep
    here = threading.get_ident()

    def recorded(seconds: float) -> None:
        if threading.get_ident() == here:
            asked.append(seconds)
        sleep(seconds)

    monkeypatch.setattr(time, "sleep", recorded)
    return asked


# ---- sticky comment ----


def test_upsert_creates_then_edits_in_place(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    repo, pull = fake_repo
    repo.add_comment(pull.number, "LGTM", author="reviewer")
    first = gh.upsert_sticky_comment(pull.number, MARKER, f"{MARKER}\nfirst", **US)
    second = gh.upsert_sticky_comment(pull.number, MARKER, f"{MARKER}\nsecond", **US)
    ours = [c for c in repo.comments_on(pull.number) if MARKER in c.body]
    assert len(ours) == 1
    assert ours[0].body == second.body == f"{MARKER}\nsecond"
    assert first.id == second.id == ours[0].id
    url = f"https://github.com/octo/evals/pull/1#issuecomment-{ours[0].id}"
    assert first.html_url == second.html_url == url
    assert len(fake_github.requests_to("POST", COMMENTS)) == 1
    assert len(fake_github.requests_to("PATCH", r"/repos/octo/evals/issues/comments/\d+")) == 1


def test_upsert_adds_a_missing_marker_and_skips_an_unchanged_body(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    repo, pull = fake_repo
    gh.upsert_sticky_comment(pull.number, MARKER, "body", **US)
    gh.upsert_sticky_comment(pull.number, MARKER, "body", **US)
    (comment,) = repo.comments_on(pull.number)
    assert comment.body == f"{MARKER}\nbody"
    assert fake_github.requests_to("PATCH", r".*") == []


def test_upsert_finds_the_marker_beyond_the_first_page(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, pull = fake_repo
    for i in range(120):
        repo.add_comment(pull.number, f"chatter {i}")
    old = repo.add_comment(pull.number, f"{MARKER}\nold", author=BOT, author_type="Bot")
    gh.upsert_sticky_comment(pull.number, MARKER, f"{MARKER}\nnew", **US)
    ours = [c for c in repo.comments_on(pull.number) if MARKER in c.body]
    assert [(c.id, c.body) for c in ours] == [(old.id, f"{MARKER}\nnew")]


def test_upsert_race_leaves_exactly_one(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    repo, pull = fake_repo
    # Another run lists (nothing), then creates its comment right after our list.
    fake_github.after(
        "GET",
        COMMENTS,
        lambda: repo.add_comment(pull.number, f"{MARKER}\ntheirs", author=BOT, author_type="Bot"),
        times=1,
    )
    kept = gh.upsert_sticky_comment(pull.number, MARKER, f"{MARKER}\nours", **US)
    ours = [c for c in repo.comments_on(pull.number) if MARKER in c.body]
    assert len(ours) == 1
    assert ours[0].body == f"{MARKER}\nours"
    assert kept.id == ours[0].id
    assert len(fake_github.requests_to("DELETE", r"/repos/octo/evals/issues/comments/\d+")) == 1


def test_upsert_cleans_up_leftover_duplicates(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, pull = fake_repo
    first = repo.add_comment(pull.number, f"{MARKER}\na", author=BOT, author_type="Bot")
    repo.add_comment(pull.number, f"{MARKER}\nb", author=BOT, author_type="Bot")
    gh.upsert_sticky_comment(pull.number, MARKER, f"{MARKER}\nc", **US)
    assert [(c.id, c.body) for c in repo.comments_on(pull.number)] == [(first.id, f"{MARKER}\nc")]


def test_other_markers_are_left_alone(gh: GitHubClient, fake_repo: tuple[Repo, Pull]) -> None:
    repo, pull = fake_repo
    other = repo.add_comment(pull.number, "<!-- evalbot:other -->\nx")
    gh.upsert_sticky_comment(pull.number, MARKER, "y", **US)
    assert other.id in {c.id for c in repo.comments_on(pull.number)}
    assert len(repo.comments_on(pull.number)) == 2


# ---- retries ----


def test_5xx_is_retried(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    _, pull = fake_repo
    fake_github.inject_server_error("GET", r"/repos/octo/evals/pulls/1", 500)
    fake_github.inject_server_error("GET", r"/repos/octo/evals/pulls/1", 502)
    assert gh.get_pull(1).head_sha == pull.head_sha
    statuses = [r.status for r in fake_github.requests_to("GET", r"/repos/octo/evals/pulls/1")]
    assert statuses == [500, 502, 200]


def test_5xx_on_a_write_is_retried(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    repo, pull = fake_repo
    fake_github.inject_server_error("POST", COMMENTS, 502)
    gh.create_comment(pull.number, "hello")
    assert [c.body for c in repo.comments_on(pull.number)] == ["hello"]


def test_5xx_exhausting_retries_is_a_publish_error(
    gh: GitHubClient, fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    fake_github.inject_server_error("GET", r"/repos/octo/evals/pulls/1", 503, times=10)
    with pytest.raises(
        GitHubRequestError, match=r"^reading pull request #1 failed: GitHub answered 503"
    ) as info:
        gh.get_pull(1)
    assert (info.value.kind, info.value.transient) == ("server_error", True)
    assert len(fake_github.requests_to("GET", r"/repos/octo/evals/pulls/1")) == 3  # 1 + 2 retries


def test_secondary_rate_limit_waits_for_retry_after(
    gh: GitHubClient, fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull], waits: list[float]
) -> None:
    fake_github.inject_secondary_rate_limit("POST", COMMENTS, retry_after=1)
    gh.create_comment(1, "after the limit")
    assert waits == [1]
    assert [r.status for r in fake_github.requests_to("POST", COMMENTS)] == [403, 201]


def test_secondary_rate_limit_without_retry_after_uses_rate_limit_wait(
    gh: GitHubClient, fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    fake_github.inject_secondary_rate_limit("GET", COMMENTS, retry_after=None, modern=True)
    assert gh.list_comments(1) == []
    assert [r.status for r in fake_github.requests_to("GET", COMMENTS)] == [403, 200]


def test_rate_limit_outlasting_retries(
    gh: GitHubClient, fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    fake_github.inject_secondary_rate_limit("GET", COMMENTS, retry_after=None, times=5)
    with pytest.raises(GitHubRequestError, match=r"rate limit .* outlasted the retries") as info:
        gh.list_comments(1)
    assert (info.value.kind, info.value.transient) == ("rate_limited", True)


# ---- errors carry the permission a workflow needs ----


@pytest.mark.parametrize(
    ("status", "kind", "expected"),
    [
        (
            401,
            "bad_token",
            r"GitHub rejected the token \(401 Bad credentials\); check the `github-token` input",
        ),
        (
            403,
            "forbidden",
            r"\(403 Resource not accessible by integration\); "
            r".*`permissions: pull-requests: write`",
        ),
        (404, "not_found", r"not found \(404 Not Found\); .*`permissions: pull-requests: write`"),
        (
            422,
            "rejected",
            r"GitHub rejected the request \(422 Validation Failed Label color invalid\)",
        ),
    ],
)
def test_http_errors_become_one_line_publish_errors(
    gh: GitHubClient,
    fake_github: FakeGitHub,
    fake_repo: tuple[Repo, Pull],
    status: int,
    kind: str,
    expected: str,
) -> None:
    fake_github.inject_error("POST", COMMENTS, status)
    with pytest.raises(GitHubRequestError, match=expected) as info:
        gh.create_comment(1, "x")
    assert info.value.status == status
    assert info.value.kind == kind
    assert str(info.value).startswith("commenting on pull request #1 failed: ")
    assert "\n" not in str(info.value)


def test_read_only_token_gets_the_permission_hint(
    fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    fake_github.add_token("ro-token", permissions=READ_ALL)
    with client_for(fake_github, "ro-token") as ro:
        assert ro.get_pull(1).number == 1  # reads work
        with pytest.raises(PublishError, match=r"`permissions: pull-requests: write`.*fork"):
            ro.upsert_sticky_comment(1, MARKER, "x", **US)
        with pytest.raises(PublishError, match=r"`permissions: checks: write`"):
            ro.create_check_run(fake_repo[1].head_sha, "evalbot", title="t", summary="s")
        with pytest.raises(PublishError, match=r"`permissions: statuses: write`"):
            ro.create_commit_status(fake_repo[1].head_sha, "success", "evalbot", "ok")


def test_token_without_actions_permission(
    fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    fake_github.add_token("no-actions", permissions={"pull-requests": "write"})
    with (
        client_for(fake_github, "no-actions") as client,
        pytest.raises(PublishError, match=r"`permissions: actions: read`"),
    ):
        client.list_workflow_runs("evals.yml", "main")


def test_personal_token_cannot_create_check_runs_but_can_set_statuses(
    fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, pull = fake_repo
    fake_github.add_token("ghp_personal0000000000000000000000000000", kind="pat")
    with client_for(fake_github, "ghp_personal0000000000000000000000000000") as pat:
        with pytest.raises(
            GitHubRequestError, match=r"check runs need the Actions token or a GitHub App"
        ) as info:
            pat.create_check_run(pull.head_sha, "evalbot", title="t", summary="s")
        # what GitHub's answer meant, read where the answer is parsed (evalbot.github.checks reads
        # the kind, never the message's wording)
        assert (info.value.status, info.value.kind) == (403, "checks_need_app")
        pat.create_commit_status(pull.head_sha, "failure", "evalbot", "regression", "https://x/run")
    (status,) = repo.statuses_for(pull.head_sha)
    assert (status.state, status.context, status.target_url) == (
        "failure",
        "evalbot",
        "https://x/run",
    )


def test_unreachable_server_is_a_publish_error() -> None:
    client = GitHubClient(
        settings("http://127.0.0.1:9", "t0ken-value", retries=0, throttle=True)
    )  # discard port
    with pytest.raises(PublishError, match=r"no answer from GitHub at http://127.0.0.1:9"):
        client.get_pull(1)
    client.close()


def test_token_never_in_messages_logs_or_repr(
    fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull], caplog: pytest.LogCaptureFixture
) -> None:
    secret = "ghs_SECRETsecretSECRET0123456789"
    fake_github.add_token(secret, permissions=READ_ALL)
    caplog.set_level(logging.DEBUG)
    errors: list[str] = []
    with client_for(fake_github, secret) as client:
        assert secret not in repr(client)
        fake_github.inject_error("GET", r"/repos/octo/evals/pulls/1", 401, message=f"bad {secret}")
        for call in (
            lambda: client.get_pull(1),
            lambda: client.create_comment(1, "x"),
            lambda: client.upsert_sticky_comment(1, MARKER, "x", **US),
        ):
            with pytest.raises(PublishError) as info:
                call()
            errors += [str(info.value), repr(info.value), repr(info.value.__cause__)]
        art = fake_repo[0].add_artifact(
            fake_repo[0].add_run(
                fake_repo[0].add_workflow(), head_sha=fake_repo[1].base_sha, head_branch="main"
            ),
            "evals",
            files={"a": "b"},
        )
        assert client.find_artifact(art.run_id, "evals") is not None
    assert errors
    assert all(secret not in e for e in errors)
    assert secret not in caplog.text
    for logged in fake_github.requests:
        assert secret not in str(logged)


# ---- checks ----


def test_check_run_created_then_completed(gh: GitHubClient, fake_repo: tuple[Repo, Pull]) -> None:
    repo, pull = fake_repo
    created = gh.create_check_run(pull.head_sha, "evalbot", title="Running", summary="…")
    assert created.status == "in_progress"
    done = gh.complete_check_run(
        created.id, "failure", title="Regression", summary="p = 0.02", text="details"
    )
    assert (done.status, done.conclusion) == ("completed", "failure")
    (run,) = repo.check_runs_for(pull.head_sha)
    assert run.output == {"title": "Regression", "summary": "p = 0.02", "text": "details"}


def test_long_check_summary_is_truncated_not_rejected(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, pull = fake_repo
    gh.create_check_run(
        pull.head_sha, "evalbot", title="t", summary="x" * 70000, conclusion="neutral"
    )
    (run,) = repo.check_runs_for(pull.head_sha)
    assert len(run.output["summary"]) <= 65535
    assert run.output["summary"].endswith("(truncated by evalbot: GitHub's size limit)")


# ---- pulls, runs, contents, compare ----


def test_get_pull_and_fork(gh: GitHubClient, fake_repo: tuple[Repo, Pull]) -> None:
    repo, pull = fake_repo
    info = gh.get_pull(1)
    assert (info.head_sha, info.base_sha, info.base_ref, info.head_repo) == (
        pull.head_sha,
        pull.base_sha,
        "main",
        REPO,
    )
    fork_head = repo.add_commit(parents=[pull.base_sha])
    repo.add_pull(number=7, head_sha=fork_head, base_sha=pull.base_sha, head_repo="someone/evals")
    fork = gh.get_pull(7)
    assert fork.head_repo == "someone/evals"


def test_pulls_of_a_head(gh: GitHubClient, fake_repo: tuple[Repo, Pull]) -> None:
    """Every open pull request with a head commit (a fork's too, which GitHub does not list
    under the commit), and every pull request of a head branch in any state."""
    repo, pull = fake_repo
    assert [p.number for p in gh.find_pulls_for_head(pull.head_sha, "feature")] == [1]
    fork_head = repo.add_commit(parents=[pull.base_sha])
    for number, base in ((9, "main"), (10, "release")):
        repo.add_pull(
            number=number,
            head_sha=fork_head,
            base_sha=pull.base_sha,
            head_ref="main",
            base_ref=base,
            head_repo="someone/evals",
        )
    found = gh.find_pulls_for_head(fork_head, "main", "someone")
    assert [(p.number, p.base_ref, p.default_branch) for p in found] == [
        (9, "main", "main"),
        (10, "release", "main"),
    ]
    assert [p.number for p in gh.find_pulls_for_head(fork_head)] == [9, 10]
    assert gh.find_pulls_for_head("0" * 40, "nope") == []
    repo.pulls[9].state = "closed"
    assert [p.number for p in gh.list_pulls_of_head("someone", "main")] == [10, 9]


def test_list_workflow_runs_and_artifacts(gh: GitHubClient, fake_repo: tuple[Repo, Pull]) -> None:
    repo, pull = fake_repo
    wf = repo.add_workflow(".github/workflows/evals.yml")
    old = repo.add_run(wf, head_sha=pull.base_sha, head_branch="main")
    repo.add_run(wf, head_sha=pull.base_sha, head_branch="main", conclusion="failure")
    repo.add_run(wf, head_sha=pull.head_sha, head_branch="feature", event="pull_request")
    new = repo.add_run(wf, head_sha=pull.base_sha, head_branch="main")
    runs = gh.list_workflow_runs("evals.yml", "main")
    assert [r.id for r in runs] == [new.id, old.id]
    assert gh.list_workflow_runs(wf.id, "main", "failure")[0].conclusion == "failure"
    repo.add_artifact(new, "other", files={"x": "y"})
    art = repo.add_artifact(new, "evals", files={"results.jsonl": '{"id": "q1", "passed": true}\n'})
    found = gh.find_artifact(new.id, "evals")
    assert found is not None
    assert (found.id, found.name, found.expired) == (art.id, "evals", False)
    assert gh.find_artifact(old.id, "evals") is None


def _artifact(repo: Repo, pull: Pull, **kwargs: object):  # type: ignore[no-untyped-def]
    wf = repo.add_workflow()
    run = repo.add_run(wf, head_sha=pull.base_sha, head_branch="main")
    return repo.add_artifact(run, "evals", **kwargs)  # type: ignore[arg-type]


def test_artifact_download_follows_the_302_without_authorization(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    repo, pull = fake_repo
    art = _artifact(repo, pull, files={"results.jsonl": "{}\n"})
    info = gh.find_artifact(art.run_id, "evals")
    assert info is not None
    data = gh.download_artifact_zip(info, max_bytes=1_000_000)
    assert data == art.data
    (api,) = fake_github.requests_to("GET", rf"/repos/octo/evals/actions/artifacts/{art.id}/zip")
    (blob,) = fake_github.requests_to("GET", r"/_blob/.*")
    assert api.has_authorization
    assert api.status == 302
    assert not blob.has_authorization
    assert blob.status == 200


def test_artifact_download_retries_a_5xx_on_the_api(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    repo, pull = fake_repo
    art = _artifact(repo, pull, files={"a": "b"})
    fake_github.inject_server_error("GET", r".*/zip", 502)
    info = gh.find_artifact(art.run_id, "evals")
    assert info is not None
    assert gh.download_artifact_zip(info, 10_000) == art.data


def test_expired_artifact(gh: GitHubClient, fake_repo: tuple[Repo, Pull]) -> None:
    repo, pull = fake_repo
    art = _artifact(repo, pull, files={"a": "b"}, expired=True)
    info = gh.find_artifact(art.run_id, "evals")
    assert info is not None
    assert info.expired
    with pytest.raises(PublishError, match=r"^artifact 'evals' \(id \d+\) has expired"):
        gh.download_artifact_zip(info, 10_000)
    # the API says 410 when the listing was stale
    fresh = type(info)(**{**vars(info), "expired": False})
    with pytest.raises(PublishError, match=r"has expired \(410 Gone\)"):
        gh.download_artifact_zip(fresh, 10_000)


@pytest.mark.parametrize("send_content_length", [True, False])
def test_oversize_artifact_is_refused_while_streaming(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], send_content_length: bool
) -> None:
    repo, pull = fake_repo
    big = make_zip({"big.bin": bytes(range(256)) * 4000})
    art = _artifact(
        repo,
        pull,
        data=big + b"\0" * 200_000,
        size_in_bytes=10,
        send_content_length=send_content_length,
    )
    info = gh.find_artifact(art.run_id, "evals")
    assert info is not None
    with pytest.raises(PublishError, match=r"over the 100000-byte limit"):
        gh.download_artifact_zip(info, 100_000)


def test_artifact_reported_oversize_is_refused_before_download(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    repo, pull = fake_repo
    art = _artifact(repo, pull, files={"a": "b"}, size_in_bytes=5_000_000)
    info = gh.find_artifact(art.run_id, "evals")
    assert info is not None
    with pytest.raises(PublishError, match=r"is 5000000 bytes, over the 1000-byte limit"):
        gh.download_artifact_zip(info, 1000)
    assert fake_github.requests_to("GET", r".*/zip") == []


def test_artifact_download_url_on_another_host_gets_no_token(gh: GitHubClient) -> None:
    from evalbot.github.client import ArtifactInfo

    evil = ArtifactInfo(
        id=1,
        name="evals",
        size_in_bytes=1,
        expired=False,
        archive_download_url="http://127.0.0.2:1/steal",
    )
    with pytest.raises(PublishError, match="refusing to send the token there"):
        gh.download_artifact_zip(evil, 10)


GHES = "https://ghe.example.com/api/v3"


@pytest.mark.parametrize(
    ("url", "api_url", "same"),
    [
        (
            "https://api.github.com/repos/o/r/actions/artifacts/1/zip",
            "https://api.github.com",
            True,
        ),
        (f"{GHES}/repos/o/r/actions/artifacts/1/zip", GHES, True),
        (f"{GHES}/repos/o/r/actions/artifacts/1/zip", GHES + "/", True),
        ("HTTPS://GHE.Example.com:443/api/v3/repos/o/r/actions/artifacts/1/zip", GHES, True),
        # GHES serves its web UI beside the API: the token stays under /api/v3
        ("https://ghe.example.com/o/r/archive.zip", GHES, False),
        ("https://ghe.example.com/api/v30/repos/o/r", GHES, False),
        (f"{GHES}/../../login", GHES, False),
        (f"{GHES}/%2e%2e/%2E%2E/login", GHES, False),
        (GHES, GHES, False),
        ("http://ghe.example.com/api/v3/repos/o/r", GHES, False),
        ("https://ghe.example.com:8443/api/v3/repos/o/r", GHES, False),
        ("https://ghe.example.com:x/api/v3/repos/o/r", GHES, False),
        ("https://ghe.example.com.evil.io/api/v3/repos/o/r", GHES, False),
        ("https://user@evil.io/api/v3/repos/o/r", GHES, False),
        ("/api/v3/repos/o/r", GHES, False),
    ],
)
def test_download_url_must_be_under_the_api_url(url: str, api_url: str, same: bool) -> None:
    from evalbot.github.download import same_origin

    assert same_origin(url, api_url) is same


def test_github_enterprise_server_api_under_a_path(
    fake_ghes: FakeGitHub,
) -> None:
    """GHES serves the API under /api/v3: pages, writes and the artifact download (its URL and
    its 302 carry the prefix) work through it."""
    repo = fake_ghes.add_repo(REPO)
    base = repo.add_commit(files={".evalbot.yml": "alpha: 0.05\n"}, branch="main")
    head = repo.add_commit(parents=[base], files={"x": "1"}, branch="feature")
    pull = repo.add_pull(number=1, head_sha=head, base_sha=base, head_ref="feature")
    for i in range(120):  # a second page: its Link URL carries the prefix
        repo.add_comment(pull.number, f"chatter {i}")
    run = repo.add_run(repo.add_workflow(), head_sha=base, head_branch="main")
    repo.add_artifact(run, "evals", files={"r.jsonl": '{"id": "a", "passed": true}\n'})
    client = client_for(fake_ghes)
    try:
        assert fake_ghes.url.endswith("/api/v3")
        assert len(client.list_comments(pull.number)) == 120
        client.upsert_sticky_comment(pull.number, MARKER, f"{MARKER}\nhello", **US)
        assert client.get_file_at_ref(".evalbot.yml", base) == "alpha: 0.05\n"
        artifact = client.find_artifact(run.id, "evals")
        assert artifact is not None
        assert artifact.archive_download_url.startswith(f"{fake_ghes.url}/repos/")
        data = client.download_artifact_zip(artifact, 1 << 20)
    finally:
        client.close()
    assert data.startswith(b"PK")
    assert [c.body for c in repo.comments_on(pull.number) if MARKER in c.body] == [
        f"{MARKER}\nhello"
    ]
    assert all(r.raw_path.startswith("/api/v3/") for r in fake_ghes.requests)
    assert len(fake_ghes.requests_to("GET", COMMENTS)) >= 2


def test_artifact_download_without_actions_permission(
    fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, pull = fake_repo
    art = _artifact(repo, pull, files={"a": "b"})
    with client_for(fake_github) as client:
        info = client.find_artifact(art.run_id, "evals")
    assert info is not None
    fake_github.inject_error("GET", r".*/zip", 403)
    with (
        client_for(fake_github) as client,
        pytest.raises(
            PublishError, match=r"^downloading artifact 'evals'.*`permissions: actions: read`"
        ),
    ):
        client.download_artifact_zip(info, 10_000)


def test_get_file_at_ref(gh: GitHubClient, fake_repo: tuple[Repo, Pull]) -> None:
    repo, pull = fake_repo
    repo.add_commit(
        parents=[pull.head_sha], files={".evalbot.yml": "alpha: 0.5\n"}, branch="feature"
    )
    assert gh.get_file_at_ref(".evalbot.yml", pull.base_sha) == "alpha: 0.05\n"
    assert gh.get_file_at_ref(".evalbot.yml", "feature") == "alpha: 0.5\n"
    assert gh.get_file_at_ref("missing.yml", pull.base_sha) is None


def test_get_file_at_ref_permission(fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]) -> None:
    fake_github.inject_error("GET", r"/repos/octo/evals/contents/.*", 403)
    with (
        client_for(fake_github) as client,
        pytest.raises(PublishError, match="`permissions: contents: read`"),
    ):
        client.get_file_at_ref(".evalbot.yml", fake_repo[1].base_sha)


def test_compare_commits(gh: GitHubClient, fake_repo: tuple[Repo, Pull]) -> None:
    repo, pull = fake_repo
    main2 = repo.add_commit(parents=[pull.base_sha], branch="main")
    main3 = repo.add_commit(parents=[main2], branch="main")
    assert gh.compare_commits(pull.base_sha, main3) == (2, 0)
    assert gh.compare_commits(main3, pull.base_sha) == (0, 2)
    assert gh.compare_commits(main3, pull.head_sha) == (1, 2)
    with pytest.raises(PublishError, match=r"^comparing .* failed: not found \(404"):
        gh.compare_commits("f" * 40, main3)


# ---- whose comments are ours ----


def test_upsert_never_edits_or_deletes_someone_elses_comment_with_the_marker(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    repo, pull = fake_repo
    # the marker first posted by someone else, and a look-alike login without the bot type
    forged = repo.add_comment(pull.number, f"{MARKER}\nforged state", author="mallory")
    alike = repo.add_comment(pull.number, f"{MARKER}\nalike", author="github-actions")
    gh.upsert_sticky_comment(pull.number, MARKER, f"{MARKER}\nours", **US)
    later = repo.add_comment(pull.number, f"{MARKER}\nlater forgery", author="mallory")
    gh.upsert_sticky_comment(pull.number, MARKER, f"{MARKER}\nours again", **US)
    bodies = {c.id: (c.author, c.body) for c in repo.comments_on(pull.number)}
    assert bodies[forged.id] == ("mallory", f"{MARKER}\nforged state")
    assert bodies[alike.id] == ("github-actions", f"{MARKER}\nalike")
    assert bodies[later.id] == ("mallory", f"{MARKER}\nlater forgery")
    (ours,) = [c for c in repo.comments_on(pull.number) if c.author_type == "Bot"]
    assert ours.body == f"{MARKER}\nours again"
    assert fake_github.requests_to("DELETE", r".*") == []
    edited = fake_github.requests_to("PATCH", r"/repos/octo/evals/issues/comments/(\d+)")
    assert [r.path.rsplit("/", 1)[1] for r in edited] == [str(ours.id)]


def test_comment_authors_and_types_are_read(gh: GitHubClient, fake_repo: tuple[Repo, Pull]) -> None:
    repo, pull = fake_repo
    repo.add_comment(pull.number, "hi", author="mallory")
    repo.add_comment(pull.number, "bot", author=BOT, author_type="Bot")
    assert [(c.author, c.author_type) for c in gh.list_comments(pull.number)] == [
        ("mallory", "User"),
        (BOT, "Bot"),
    ]


def test_the_token_user_of_a_personal_token(fake_github: FakeGitHub, gh: GitHubClient) -> None:
    fake_github.add_token("ghp_someone000000000000000000000000000000", kind="pat", login="sam")
    with client_for(fake_github, "ghp_someone000000000000000000000000000000") as pat:
        assert pat.authenticated_login() == "sam"
    # an App's installation token has no user: GitHub answers 403 (see the fake's route)
    with pytest.raises(GitHubRequestError) as info:
        gh.authenticated_login()
    assert info.value.status == 403


# ---- the looks ledger's reads ----


def test_pull_commits_are_listed_oldest_first(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, pull = fake_repo
    second = repo.add_commit(parents=[pull.head_sha], branch="feature")
    pull.head_sha = second
    listed = gh.list_pull_commits(pull.number)
    assert listed == [(sha, repo.tree(sha)) for sha in repo.pull_commits(pull.number)]
    assert listed[-1][0] == second and len(listed) == 2
    assert gh.get_pull(pull.number).commits == 2


def test_check_runs_are_all_listed_with_their_app_and_text(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, pull = fake_repo
    first = gh.create_check_run(pull.head_sha, "evalbot", title="t", summary="s", text="one")
    second = gh.create_check_run(pull.head_sha, "evalbot", title="t", summary="s")
    repo.add_check_run(pull.head_sha, "evalbot", app_id=77, app_slug="other-app")
    repo.add_check_run(pull.head_sha, "unrelated")
    runs = gh.list_check_runs(pull.head_sha, "evalbot")
    # GitHub's default filter (latest) would list one per App: evalbot asks for all
    assert sorted((r.id, r.app.id, r.app.slug) for r in runs) == [
        (first.id, 15368, "github-actions"),
        (second.id, 15368, "github-actions"),
        (runs[0].id, 77, "other-app"),
    ]
    (one,) = [r for r in runs if r.id == first.id]
    assert (one.output.text, one.status, one.name, one.head_sha) == (
        "one",
        "in_progress",
        "evalbot",
        pull.head_sha,
    )
    assert one.started_at is not None and one.external_id and one.external_id.startswith("evalbot-")


def test_statuses_are_listed_with_their_creator(
    fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    _, pull = fake_repo
    fake_github.add_token("ghp_personal0000000000000000000000000000", kind="pat")
    with client_for(fake_github, "ghp_personal0000000000000000000000000000") as pat:
        made = pat.create_commit_status(pull.head_sha, "pending", "evalbot", "comparing")
        pat.create_commit_status(pull.head_sha, "success", "evalbot", "done")
        listed = pat.list_commit_statuses(pull.head_sha)
    assert [(s.state, s.context, s.creator.login) for s in listed] == [
        ("success", "evalbot", "octocat"),
        ("pending", "evalbot", "octocat"),
    ]
    assert listed[1].id == made.id < listed[0].id


# ---- a POST is never sent twice blindly ----


def test_a_check_run_whose_answer_timed_out_is_found_not_created_twice(
    fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    """GitHub created the run but the answer came after the client's timeout: the POST must not
    be sent again, leaving the first run in progress forever."""
    repo, pull = fake_repo
    fake_github.delay("POST", r"/repos/octo/evals/check-runs", 3.0)
    client = GitHubClient(settings(fake_github.url, timeout=1))
    with client:
        made = client.create_check_run(pull.head_sha, "evalbot", title="t", summary="s")
    (run,) = repo.check_runs_for(pull.head_sha)
    assert made.id == run.id
    assert len(fake_github.requests_to("POST", r"/repos/octo/evals/check-runs")) == 1


def test_a_check_run_refused_with_a_5xx_is_looked_for_then_created_once(
    gh: GitHubClient, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    repo, pull = fake_repo
    fake_github.inject_server_error("POST", r"/repos/octo/evals/check-runs", 502)
    made = gh.create_check_run(pull.head_sha, "evalbot", title="t", summary="s")
    (run,) = repo.check_runs_for(pull.head_sha)
    assert made.id == run.id
    assert [r.status for r in fake_github.requests_to("POST", r".*/check-runs")] == [502, 201]
    assert fake_github.requests_to("GET", rf".*/commits/{pull.head_sha}/check-runs")


# ---- Retry-After is capped ----


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_retry_after_beyond_the_cap_fails_at_once_and_says_so(
    gh: GitHubClient,
    fake_github: FakeGitHub,
    fake_repo: tuple[Repo, Pull],
    method: str,
    waits: list[float],
) -> None:
    fake_github.inject(
        method,
        COMMENTS,
        429,
        {"message": "slow down", "documentation_url": "https://docs.github.com/rest"},
        headers={"Retry-After": "86400"},
    )
    call = (lambda: gh.list_comments(1)) if method == "GET" else (lambda: gh.create_comment(1, "x"))
    with pytest.raises(PublishError) as info:
        call()
    assert waits == []
    assert "asked to wait 86400 s before retrying" in str(info.value)
    assert "more than the 120 s evalbot waits" in str(info.value)
    assert len(fake_github.requests_to(method, COMMENTS)) == 1


def test_every_retry_urllib3_copies_keeps_its_policy() -> None:
    """urllib3 makes a new Retry after each try (``new``): it stays capped (its class), and
    PyGithub's wait for a secondary rate limit goes along with it."""
    api = PyGithubRetry(total=3, secondary_rate_wait=11.0).new(total=2)
    assert (type(api), api.secondary_rate_wait, api.total) == (PyGithubRetry, 11.0, 2)
    download = CappedRetry(total=3, redirect=False).new(total=1)
    assert (type(download), download.total, download.redirect) == (CappedRetry, 1, False)


def test_an_artifact_retry_after_beyond_the_cap_fails_at_once(
    gh: GitHubClient, fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull], waits: list[float]
) -> None:
    repo, pull = fake_repo
    run = repo.add_run(repo.add_workflow(), head_sha=pull.base_sha, head_branch="main")
    repo.add_artifact(run, "evals", files={"r.jsonl": '{"id": "a", "passed": true}\n'})
    artifact = gh.find_artifact(run.id, "evals")
    assert artifact is not None
    fake_github.inject(
        "GET", r".*/artifacts/\d+/zip", 503, b"busy", headers={"Retry-After": "99999"}
    )
    with pytest.raises(PublishError, match=r"asked to wait 99999 s .* more than the 120 s"):
        gh.download_artifact_zip(artifact, 1 << 20)
    assert waits == []


@pytest.mark.parametrize(
    "url",
    [
        # urllib3 (which connects) ends the host at the backslash; urlsplit does not
        "http://evil.example\\@127.0.0.1:8080/repos/o/r/actions/artifacts/1/zip",
        "http://127.0.0.1:8080\\@evil.example/repos/o/r/actions/artifacts/1/zip",
        "http://127.0.0.1:8080/repos/o/r/actions/artifacts/1/zip\\..\\..",
        "http://user:pw@127.0.0.1:8080/repos/o/r/actions/artifacts/1/zip",
        "http://@127.0.0.1:8080/repos/o/r/actions/artifacts/1/zip",
        "http://127.0.0.1:8080/repos/o/r/actions/artifacts/1/zip\n",
        "http://127.0.0.1:8080/repos/o/r/actions/artifacts/1/ zip",
        "ftp://127.0.0.1:8080/repos/o/r/actions/artifacts/1/zip",
    ],
)
def test_download_urls_two_parsers_could_read_differently_are_refused(url: str) -> None:
    from evalbot.github.download import same_origin

    assert same_origin(url, "http://127.0.0.1:8080") is False
    assert same_origin("http://127.0.0.1:8080/repos/o/r/x", "http://127.0.0.1:8080") is True
