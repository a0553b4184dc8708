"""Artifacts are shaped by whoever opened the pull request: what reading one may cost.

A fork's candidate artifact of 28 KB inflated to 28 MB of tiny rows, and the readers held ~50
bytes per byte read: 1.3 GB of memory on the privileged ``workflow_run`` job. An artifact now
inflates to at most 100 times its size (at least 1 MiB), so memory is bounded in proportion to
what was downloaded. Counted here in bytes inflated and in refusals, never in memory.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from evalbot.errors import InputError
from evalbot.formats.archive import Archive, ArchiveBudget
from evalbot.limits import (
    ARTIFACT_INFLATE_FLOOR,
    MAX_ARTIFACT_BYTES,
    MAX_ARTIFACT_MEMBERS,
    MAX_ARTIFACT_RATIO,
    artifact_inflate_limit,
)
from tests.fakegithub import Run
from tests.integration.action_harness import World, workflow_run_payload

INFLATED = 28_000_000
#: Shapes that cost the most memory per byte read (measured with the readers before the limit:
#: 1.3 GB, 760 MB and 830 MB for 28 MB inflated from about 28 KB).
SHAPES = {
    "rows.csv": b"id,passed\n" + b"a,1\n" * (INFLATED // 4),
    "objects.json": b"[" + b"{}," * (INFLATED // 3) + b"{}]",
    "cases.xml": b"<testsuite>" + b"<testcase name='a'/>" * (INFLATED // 20) + b"</testsuite>",
}


def deflated(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


def lying(data: bytes, declared: int) -> bytes:
    """The zip with its member's uncompressed size rewritten in both headers (a bomb's trick)."""
    out = bytearray(data)
    local, central = out.find(b"PK\x03\x04"), out.rfind(b"PK\x01\x02")
    out[local + 22 : local + 26] = declared.to_bytes(4, "little")
    out[central + 24 : central + 28] = declared.to_bytes(4, "little")
    return bytes(out)


def test_the_inflate_limit_is_proportional_to_the_download() -> None:
    assert artifact_inflate_limit(28_000, MAX_ARTIFACT_BYTES) == MAX_ARTIFACT_RATIO * 28_000
    assert artifact_inflate_limit(100, MAX_ARTIFACT_BYTES) == ARTIFACT_INFLATE_FLOOR
    assert artifact_inflate_limit(10**9, MAX_ARTIFACT_BYTES) == MAX_ARTIFACT_BYTES


def read_all(data: bytes, budget: ArchiveBudget) -> None:
    archive = Archive(data, source="art", budget=budget)
    for member in archive.members:
        archive.read(member)


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("header", ["honest", "small", "at-the-limit"])
def test_a_small_artifact_inflates_at_most_in_proportion(name: str, header: str) -> None:
    """Each shape deflates ~1,000 times. Whatever the header declares (the truth; a small
    size; just under the limit), what is inflated before the refusal is bounded by the
    proportional limit, and no reader runs: the refusal comes while inflating."""
    data = deflated(name, SHAPES[name])
    assert len(data) < 80_000  # the shape is the attack: a few tens of KB
    limit = artifact_inflate_limit(len(data), MAX_ARTIFACT_BYTES)
    assert limit == MAX_ARTIFACT_RATIO * len(data)
    if header != "honest":
        data = lying(data, 1000 if header == "small" else limit - 1)
    budget = ArchiveBudget(max_bytes=limit, max_members=MAX_ARTIFACT_MEMBERS)
    with pytest.raises(InputError, match=r"^art: "):
        read_all(data, budget)
    # zipfile stops at the declared size (then the CRC fails); the budget stops the rest
    bound = {"honest": 0, "small": 1000, "at-the-limit": limit}[header]
    assert budget.inflated <= bound
    if header == "at-the-limit":
        assert budget.inflated >= limit - 1 - 1024**2  # up to the limit (a read is 1 MiB)


def _fork_run(world: World, data: bytes) -> Run:
    run = world.repo.add_run(
        world.workflow,
        head_sha=world.pull.head_sha,
        head_branch="feature",
        event="pull_request",
        pull_numbers=[world.pull.number],
        head_repo="someone/evals",
    )
    world.repo.add_artifact(run, "candidate-results", data=data)
    return run


def test_a_28_kb_candidate_artifact_of_tiny_rows_is_refused_before_it_is_read(
    world: World,
) -> None:
    """The fork-safe ``workflow_run`` job downloads the fork's candidate artifact: 28 KB of
    deflated CSV rows that inflate to 28 MB. Before, the job inflated all of it and built seven
    million rows (1.3 GB) before any check; now it stops at 100 times the download."""
    world.add_baseline_run()
    data = deflated("rows.csv", SHAPES["rows.csv"])
    run = _fork_run(world, data)
    payload = workflow_run_payload(
        run, world.workflow, pulls=[world.pull], head_repo="someone/evals"
    )
    (world.workspace / "results" / "candidate.jsonl").unlink()
    result = world.run(
        "workflow_run", payload, process=True, candidate="", candidate_artifact="candidate-results"
    )
    assert result.code == 2, result.stderr
    assert "Traceback" not in result.stderr
    limit = MAX_ARTIFACT_RATIO * len(data)
    expected = (
        f"candidate artifact 'candidate-results': archive expands to more than {limit} bytes, "
        f"the most a zip of {len(data)} bytes may hold"
    )
    assert expected in result.stdout  # the error annotation
    (check,) = world.repo.check_runs_for(world.pull.head_sha)
    assert (check.status, check.conclusion) == ("completed", "failure")
    assert f"the most a zip of {len(data)} bytes may hold" in result.summary
    assert world.repo.comments_on(world.pull.number) == []
