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
