"""The fake GitHub server, driven by the real PyGithub client and by plain requests."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import github
import pytest
import requests
from github import Auth

from tests.fakegithub import READ_ALL, FakeGitHub, Pull, Repo
from tests.fakegithub.plugin import APP_TOKEN, REPO


@pytest.fixture
def gh(fake_github: FakeGitHub) -> Iterator[github.Github]:
    client = github.Github(
        base_url=fake_github.url,
        auth=Auth.Token(APP_TOKEN),
        retry=None,
        per_page=2,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )
    yield client
    client.close()


def auth(token: str = APP_TOKEN) -> dict[str, str]:
    return {"Authorization": f"token {token}"}


def test_pygithub_reads_pulls_comments_and_pages(
    gh: github.Github, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    repo, pull = fake_repo
    for i in range(5):
        repo.add_comment(pull.number, f"c{i}")
    r = gh.get_repo(REPO)
    assert (r.full_name, r.default_branch) == (REPO, "main")
    p = r.get_pull(pull.number)
    assert (p.head.sha, p.head.ref, p.base.sha, p.base.ref) == (
        pull.head_sha,
        "feature",
        pull.base_sha,
        "main",
    )
    assert [c.body for c in p.get_issue_comments()] == [f"c{i}" for i in range(5)]
    # the later pages were fetched through the /repositories/{id}/ links, as on GitHub
    pages = fake_github.requests_to("GET", rf"/repositories/{repo.id}/issues/1/comments")
    assert [q.query["page"] for q in pages] == [["2"], ["3"]]


def test_pygithub_writes_comments_checks_statuses(
    gh: github.Github, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, pull = fake_repo
    r = gh.get_repo(REPO)
    comment = r.get_pull(1).create_issue_comment("hello")
    assert comment.html_url == f"https://github.com/{REPO}/pull/1#issuecomment-{comment.id}"
    comment.edit("edited")
    assert [c.body for c in repo.comments_on(1)] == ["edited"]
    comment.delete()
    assert repo.comments_on(1) == []

    check = r.create_check_run(
        name="evalbot",
        head_sha=pull.head_sha,
        status="in_progress",
        output={"title": "t", "summary": "s"},
    )
    check.edit(conclusion="success", output={"title": "done", "summary": "ok"})
    assert (check.status, check.conclusion, check.output.title) == ("completed", "success", "done")
    assert [c.name for c in r.get_commit(pull.head_sha).get_check_runs()] == ["evalbot"]

    status = r.get_commit(pull.head_sha).create_status(
        state="pending", description="running", context="evalbot"
    )
    assert (status.state, status.context) == ("pending", "evalbot")
    assert [s.state for s in repo.statuses_for(pull.head_sha)] == ["pending"]


def test_pygithub_reads_runs_artifacts_contents_compare(
    gh: github.Github, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, pull = fake_repo
    wf = repo.add_workflow(".github/workflows/evals.yml", name="Evals")
    run = repo.add_run(wf, head_sha=pull.base_sha, head_branch="main", pull_numbers=[1])
    repo.add_run(wf, head_sha=pull.head_sha, head_branch="feature", event="pull_request")
    art = repo.add_artifact(run, "evals", files={"r.jsonl": "{}\n"})
    r = gh.get_repo(REPO)
    w = r.get_workflow("evals.yml")
    assert (w.id, w.name, w.path) == (wf.id, "Evals", ".github/workflows/evals.yml")
    runs = list(w.get_runs(branch="main", status="success"))
    assert [x.id for x in runs] == [run.id]
    assert runs[0].pull_requests[0].number == 1
    assert [x.id for x in r.get_workflow_runs(event="pull_request")] != [run.id]
    assert [x.id for x in r.get_workflow_runs(head_sha=pull.base_sha)] == [run.id]
    (a,) = r.get_workflow_run(run.id).get_artifacts()
    assert (a.id, a.name, a.size_in_bytes, a.expired) == (art.id, "evals", len(art.data), False)
    assert a.workflow_run.head_sha == pull.base_sha
    assert [x.id for x in r.get_artifacts(name="evals")] == [art.id]
    assert r.get_artifact(art.id).archive_download_url.endswith(f"/actions/artifacts/{art.id}/zip")
    content = r.get_contents(".evalbot.yml", ref=pull.base_sha)
    assert not isinstance(content, list)
    assert content.decoded_content == b"alpha: 0.05\n"
    cmp = r.compare(pull.base_sha, pull.head_sha)
    assert (cmp.status, cmp.ahead_by, cmp.behind_by) == ("ahead", 1, 0)
    assert [x.number for x in r.get_commit(pull.head_sha).get_pulls()] == [1]
    assert [x.number for x in r.get_pulls(head="octo:feature")] == [1]
    assert gh.get_rate_limit().resources.core.limit == 5000


def test_headers_and_auth(fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]) -> None:
    url = f"{fake_github.url}/repos/{REPO}"
    ok = requests.get(url, headers={"Authorization": f"Bearer {APP_TOKEN}"}, timeout=5)
    assert ok.status_code == 200
    assert ok.headers["Content-Type"] == "application/json; charset=utf-8"
    assert {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} <= set(ok.headers)
    assert requests.get(url, timeout=5).json()["message"] == "Requires authentication"
    bad = requests.get(url, headers=auth("nope"), timeout=5)
    assert (bad.status_code, bad.json()["message"]) == (401, "Bad credentials")
    created = requests.post(
        f"{fake_github.url}/repos/{REPO}/issues/1/comments",
        json={"body": "x"},
        headers=auth(),
        timeout=5,
    )
    assert created.status_code == 201
    assert created.headers["Location"] == created.json()["url"]
    # the log keeps the scheme but not the token
    logged = fake_github.requests[-1]
    assert logged.headers["Authorization"] == "token <redacted>"
    assert logged.body == {"body": "x"}


def test_read_only_and_personal_tokens(
    fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    _, pull = fake_repo
    fake_github.add_token("ro", permissions=READ_ALL)
    fake_github.add_token("pat", kind="pat")
    base = f"{fake_github.url}/repos/{REPO}"
    ro = requests.post(
        f"{base}/issues/1/comments", json={"body": "x"}, headers=auth("ro"), timeout=5
    )
    assert (ro.status_code, ro.json()["message"]) == (403, "Resource not accessible by integration")
    check = {"name": "evalbot", "head_sha": pull.head_sha}
    pat = requests.post(f"{base}/check-runs", json=check, headers=auth("pat"), timeout=5)
    assert (pat.status_code, pat.json()["message"]) == (
        403,
        "You must authenticate via a GitHub App.",
    )
    status = requests.post(
        f"{base}/statuses/{pull.head_sha}",
        json={"state": "success"},
        headers=auth("pat"),
        timeout=5,
    )
    assert status.status_code == 201


def test_artifact_zip_redirect_blob_and_expiry(
    fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, pull = fake_repo
    run = repo.add_run(repo.add_workflow(), head_sha=pull.base_sha, head_branch="main")
    art = repo.add_artifact(run, "evals", files={"r.jsonl": "{}\n"})
    gone = repo.add_artifact(run, "old", files={"r.jsonl": "{}\n"}, expired=True)
    base = f"{fake_github.url}/repos/{REPO}/actions/artifacts"
    first = requests.get(f"{base}/{art.id}/zip", headers=auth(), allow_redirects=False, timeout=5)
    assert first.status_code == 302
    location = first.headers["Location"]
    assert "/_blob/" in location
    leaked = requests.get(location, headers=auth(), timeout=5)
    assert leaked.status_code == 400  # the blob host refuses a second credential
    blob = requests.get(location, timeout=5)
    assert blob.status_code == 200
    assert zipfile.ZipFile(io.BytesIO(blob.content)).read("r.jsonl") == b"{}\n"
    expired = requests.get(
        f"{base}/{gone.id}/zip", headers=auth(), allow_redirects=False, timeout=5
    )
    assert expired.status_code == 410
    # naive redirect following keeps the header on the same host and is caught
    naive = requests.get(f"{base}/{art.id}/zip", headers=auth(), timeout=5)
    assert naive.status_code == 400


def test_a_path_prefix_serves_the_api_under_it_as_ghes_does(fake_ghes: FakeGitHub) -> None:
    assert fake_ghes.url.endswith("/api/v3")
    repo = fake_ghes.add_repo(REPO)
    sha = repo.add_commit(files={"a.txt": "a"}, branch="main")
    run = repo.add_run(repo.add_workflow(), head_sha=sha, head_branch="main")
    art = repo.add_artifact(run, "evals", files={"r.jsonl": "{}\n"})
    got = requests.get(f"{fake_ghes.url}/repos/{REPO}", headers=auth(), timeout=5)
    assert got.status_code == 200
    assert got.json()["url"] == f"{fake_ghes.url}/repos/{REPO}"
    # the API is not served at the root, nor under a path that only starts like the prefix
    origin = fake_ghes.url.removesuffix("/api/v3")
    for wrong in (f"{origin}/repos/{REPO}", f"{origin}/api/v30/repos/{REPO}"):
        assert requests.get(wrong, headers=auth(), timeout=5).status_code == 404
    listed = requests.get(
        f"{fake_ghes.url}/repos/{REPO}/actions/runs/{run.id}/artifacts", headers=auth(), timeout=5
    ).json()["artifacts"]
    url = listed[0]["archive_download_url"]
    assert url == f"{fake_ghes.url}/repos/{REPO}/actions/artifacts/{art.id}/zip"
    first = requests.get(url, headers=auth(), allow_redirects=False, timeout=5)
    assert first.status_code == 302
    assert first.headers["Location"].startswith(f"{fake_ghes.url}/_blob/")
    blob = requests.get(first.headers["Location"], timeout=5)
    assert zipfile.ZipFile(io.BytesIO(blob.content)).read("r.jsonl") == b"{}\n"
    # logged paths are without the prefix, so requests_to patterns work unchanged
    (logged,) = fake_ghes.requests_to("GET", rf"/repos/{REPO}/actions/artifacts/\d+/zip")
    assert logged.raw_path == f"/api/v3/repos/{REPO}/actions/artifacts/{art.id}/zip"


def test_faults_hooks_and_pagination_links(
    fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]
) -> None:
    repo, _ = fake_repo
    for i in range(7):
        repo.add_comment(1, f"c{i}")
    url = f"{fake_github.url}/repos/{REPO}/issues/1/comments"
    fake_github.inject_server_error("GET", r".*/comments", 500)
    fake_github.inject_secondary_rate_limit("GET", r".*/comments", retry_after=3)
    fake_github.inject_error("GET", r".*/comments", 422)
    first = requests.get(url, headers=auth(), timeout=5)
    assert (first.status_code, first.json()) == (500, {"error": "Server Error"})
    limited = requests.get(url, headers=auth(), timeout=5)
    assert (limited.status_code, limited.headers["Retry-After"]) == (403, "3")
    assert limited.json()["message"].startswith("You have triggered an abuse detection mechanism")
    invalid = requests.get(url, headers=auth(), timeout=5)
    assert invalid.json()["message"] == "Validation Failed"
    assert invalid.json()["errors"] == [{"resource": "Label", "code": "invalid", "field": "color"}]
    fake_github.after("GET", r".*/comments", lambda: repo.add_comment(1, "raced"))
    page = requests.get(url, params={"per_page": 3}, headers=auth(), timeout=5)
    assert [c["body"] for c in page.json()] == ["c0", "c1", "c2"]
    assert page.links["next"]["url"].endswith(
        f"/repositories/{repo.id}/issues/1/comments?per_page=3&page=2"
    )
    assert page.links["last"]["url"].endswith("page=3")
    assert repo.comments_on(1)[-1].body == "raced"


def test_standalone_process_writes_state_on_sigterm(tmp_path: Path) -> None:
    seed = {
        "tokens": [{"value": "t0k"}],
        "repos": [
            {
                "full_name": REPO,
                "commits": [
                    {"sha": "a" * 40, "files": {".evalbot.yml": "alpha: 0.05\n"}, "branch": "main"}
                ],
                "pulls": [{"number": 3, "head_sha": "a" * 40, "base_sha": "a" * 40}],
            }
        ],
    }
    (tmp_path / "seed.json").write_text(json.dumps(seed))
    state = tmp_path / "state.json"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.fakegithub",
            "--seed",
            str(tmp_path / "seed.json"),
            "--state-out",
            str(state),
        ],
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        r = requests.post(
            f"{url}/repos/{REPO}/issues/3/comments",
            json={"body": "hi"},
            headers=auth("t0k"),
            timeout=5,
        )
        assert r.status_code == 201
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()
    assert proc.returncode == 0
    dumped = json.loads(state.read_text())
    assert [c["body"] for c in dumped["repos"][REPO]["comments"]] == ["hi"]
    assert dumped["requests"][0]["headers"]["Authorization"] == "token <redacted>"


def test_identity_pull_commits_and_check_runs_by_app(
    gh: github.Github, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    """What the looks ledger reads: GET /user (a personal token's user; an App token has none),
    a pull request's commits, check runs with their App, listed with filter=latest (GitHub's
    default: the newest per name and App) or filter=all."""
    repo, pull = fake_repo
    fake_github.add_token("ghp_sam00000000000000000000000000000000000", kind="pat", login="sam")
    me = requests.get(
        f"{fake_github.url}/user", headers=auth("ghp_sam00000000000000000000000000000000000")
    )
    assert (me.status_code, me.json()["login"], me.json()["type"]) == (200, "sam", "User")
    app = requests.get(f"{fake_github.url}/user", headers=auth())
    assert (app.status_code, app.json()["message"]) == (
        403,
        "Resource not accessible by integration",
    )

    second = repo.add_commit(parents=[pull.head_sha], branch="feature")
    pull.head_sha = second
    r = gh.get_repo(REPO)
    assert [c.sha for c in r.get_pull(1).get_commits()] == repo.pull_commits(1)
    assert repo.pull_commits(1)[-1] == second

    fake_github.add_token("ghs_other000000000000000000000000000000001", app_slug="other-app")
    other = github.Github(
        base_url=fake_github.url, auth=Auth.Token("ghs_other000000000000000000000000000000001")
    )
    for client in (gh, gh, other):
        client.get_repo(REPO).create_check_run(
            name="evalbot", head_sha=second, status="in_progress"
        )
    other.close()
    url = f"{fake_github.url}/repos/{REPO}/commits/{second}/check-runs"
    latest = requests.get(url, headers=auth()).json()["check_runs"]
    every = requests.get(url, params={"filter": "all"}, headers=auth()).json()["check_runs"]
    assert sorted(c["app"]["slug"] for c in latest) == ["github-actions", "other-app"]
    assert sorted(c["app"]["slug"] for c in every) == ["github-actions"] * 2 + ["other-app"]
    (ours,) = [c for c in latest if c["app"]["slug"] == "github-actions"]
    assert ours["id"] == max(c["id"] for c in every if c["app"]["id"] == 15368)
    mine = requests.get(url, params={"filter": "all", "app_id": "15368"}, headers=auth()).json()
    assert mine["total_count"] == 2
    # the other App's bot writes comments as <slug>[bot], a Bot
    body = requests.post(
        f"{fake_github.url}/repos/{REPO}/issues/1/comments",
        json={"body": "hi"},
        headers=auth("ghs_other000000000000000000000000000000001"),
    ).json()
    assert (body["user"]["login"], body["user"]["type"]) == ("other-app[bot]", "Bot")


def test_holds_and_delays(fake_github: FakeGitHub, fake_repo: tuple[Repo, Pull]) -> None:
    import threading
    import time

    release = threading.Event()
    fake_github.hold("GET", rf"/repos/{REPO}/pulls/1", release)
    fake_github.delay("GET", rf"/repos/{REPO}", 0.5)
    answers: list[int] = []
    waiting = threading.Thread(
        target=lambda: answers.append(
            requests.get(f"{fake_github.url}/repos/{REPO}/pulls/1", headers=auth()).status_code
        )
    )
    waiting.start()
    while fake_github.held < 1:
        time.sleep(0.01)
    started = time.monotonic()
    assert requests.get(f"{fake_github.url}/repos/{REPO}", headers=auth()).status_code == 200
    assert time.monotonic() - started >= 0.5  # handled, then answered late
    assert answers == []  # still held while other requests go on
    release.set()
    waiting.join(timeout=10)
    assert answers == [200]


def test_trees_follow_the_files_and_pull_requests_count_their_commits(
    gh: github.Github, fake_repo: tuple[Repo, Pull]
) -> None:
    """An amended commit (a new sha, the same files) keeps its tree, as git's trees do; the
    pull request's ``commits`` is the number its commits listing holds."""
    repo, pull = fake_repo
    amended = repo.add_commit(
        parents=[pull.base_sha], files={"evals/x.jsonl": "{}\n"}, message="amended"
    )
    other = repo.add_commit(parents=[pull.base_sha], files={"evals/x.jsonl": "[]\n"})
    r = gh.get_repo(REPO)
    tree = r.get_commit(pull.head_sha).commit.tree.sha
    assert amended != pull.head_sha
    assert r.get_commit(amended).commit.tree.sha == tree == repo.tree(amended)
    assert r.get_commit(other).commit.tree.sha != tree
    assert [c.commit.tree.sha for c in r.get_pull(1).get_commits()] == [tree]
    pull.head_sha = repo.add_commit(parents=[pull.head_sha], files={"b": "2"}, branch="feature")
    assert r.get_pull(1).commits == 2


def test_a_check_run_is_updated_only_by_the_app_that_created_it(
    gh: github.Github, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    """Another App's PATCH gets GitHub's 403 (the Actions token cannot rewrite a dedicated
    App's check run); the App that created it still can."""
    repo, pull = fake_repo
    token = "ghs_evalbotApp00000000000000000000000001"
    fake_github.add_token(token, app_slug="evalbot-ci", app_id=900001)
    app = github.Github(base_url=fake_github.url, auth=Auth.Token(token), retry=None)
    made = app.get_repo(REPO).create_check_run(
        name="evalbot", head_sha=pull.head_sha, status="completed", conclusion="failure"
    )
    assert (made.app.id, made.app.slug, made.external_id) == (900001, "evalbot-ci", "")
    actions_view = gh.get_repo(REPO).get_check_run(made.id)
    with pytest.raises(github.GithubException) as refused:
        actions_view.edit(conclusion="success")
    assert refused.value.status == 403
    assert refused.value.data["message"] == (
        "Invalid app_id `15368` - check run can only be modified by the GitHub App that created it."
    )
    assert repo.check_runs[made.id].conclusion == "failure"
    made.edit(conclusion="neutral", external_id="x")
    assert (repo.check_runs[made.id].conclusion, repo.check_runs[made.id].external_id) == (
        "neutral",
        "x",
    )
    app.close()


def test_workflows_sharing_a_name_runs_by_event_and_sha_deleted_runs(
    gh: github.Github, fake_repo: tuple[Repo, Pull], fake_github: FakeGitHub
) -> None:
    """Two files may say ``name: evals``: a workflow is found by its id or its file name only;
    runs carry their workflow's ``path`` and ``workflow_id``, the event and the head
    repository, and are filtered by branch, event and head sha (at most 1,000 when filtered);
    a deleted run is gone with its artifacts."""
    repo, pull = fake_repo
    real = repo.add_workflow(".github/workflows/evals.yml", name="evals")
    fake = repo.add_workflow(".github/workflows/sneaky.yml", name="evals")
    pushed = repo.add_run(real, head_sha=pull.base_sha, head_branch="main")
    art = repo.add_artifact(pushed, "evals", files={"r.jsonl": "{}\n"})
    forked = repo.add_run(
        fake, head_sha=pull.head_sha, head_branch="main", event="pull_request", head_repo="x/evals"
    )
    r = gh.get_repo(REPO)
    assert r.get_workflow("sneaky.yml").id == fake.id
    assert r.get_workflow(str(real.id)).path == ".github/workflows/evals.yml"
    with pytest.raises(github.UnknownObjectException):
        r.get_workflow(".github/workflows/evals.yml")
    (run,) = r.get_workflow("sneaky.yml").get_runs(branch="main")
    assert (run.id, run.path, run.workflow_id, run.event) == (
        forked.id,
        ".github/workflows/sneaky.yml",
        fake.id,
        "pull_request",
    )
    assert run.head_repository.full_name == "x/evals"
    assert run.head_commit.tree_id == repo.tree(pull.head_sha)
    on_main = list(r.get_workflow_runs(branch="main", event="push"))
    assert [x.id for x in on_main] == [pushed.id]
    assert [x.id for x in r.get_workflow_runs(head_sha=pull.head_sha)] == [forked.id]
    r.get_workflow_run(pushed.id).delete()
    assert pushed.id not in repo.runs and art.id not in repo.artifacts
    with pytest.raises(github.UnknownObjectException):
        r.get_workflow_run(pushed.id)
    for _ in range(1005):
        repo.add_run(real, head_sha=pull.base_sha, head_branch="main")
    url = f"{fake_github.url}/repos/{REPO}/actions/workflows/evals.yml/runs"
    assert requests.get(url, headers=auth()).json()["total_count"] == 1005
    assert requests.get(url, params={"event": "push"}, headers=auth()).json()["total_count"] == 1000


def test_pull_requests_sharing_a_head_are_listed_in_every_state(
    gh: github.Github, fake_repo: tuple[Repo, Pull]
) -> None:
    """Several pull requests from one head branch (one closed, one open into another base),
    as GET /pulls?head=owner:branch&state=all lists them, newest first."""
    repo, pull = fake_repo
    pull.state = "closed"
    repo.branches["release"] = pull.base_sha
    again = repo.add_pull(head_sha=pull.head_sha, base_sha=pull.base_sha, base_ref="release")
    r = gh.get_repo(REPO)
    assert [p.number for p in r.get_pulls(state="all", head="octo:feature")] == [again.number, 1]
    assert [p.number for p in r.get_pulls(head="octo:feature")] == [again.number]
    assert r.get_pull(again.number).base.ref == "release"
    assert r.get_pull(1).merged_at is None
    pull.merged = True
    assert r.get_pull(1).merged_at is not None
