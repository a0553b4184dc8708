"""`evalbot compare` with a `cluster` field, end to end through ``evalbot.cli.main``: the
cluster sign-flip test decides (pass/fail and scores), its interval is the one shown, McNemar's
p stays in the report for reference, `test: bootstrap` still means the bootstrap, and an eval
with too few clusters is called powerless. Expected p-values are enumerated here over every
sign pattern of the clusters' totals, in exact fractions."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from evalbot.cli import main


def run(tmp: Path, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.chdir(tmp):
        code = main(list(args), out)
    return code, out.getvalue()


def report(tmp: Path, *args: str) -> tuple[dict[str, Any], str]:
    code, out = run(tmp, "compare", "b.jsonl", "c.jsonl", "--format", "json", *args)
    assert code in (0, 1), out
    _, markdown = run(tmp, "compare", "b.jsonl", "c.jsonl", "--format", "markdown", *args)
    return json.loads(out), markdown


def enumerate_pvalue(totals: list[float]) -> Fraction:
    observed = abs(sum(totals))
    hits = sum(
        abs(sum(s * t for s, t in zip(signs, totals, strict=True))) >= observed - 1e-12
        for signs in itertools.product((1, -1), repeat=len(totals))
    )
    return Fraction(hits, 2 ** len(totals))


def exact_mcnemar(fixed: int, broken: int) -> Fraction:
    n, k = fixed + broken, min(fixed, broken)
    return min(Fraction(1), 2 * sum(Fraction(math.comb(n, i), 2**n) for i in range(k + 1)))


def write_clusters(tmp: Path, kinds: list[str], size: int = 4, field: str = "cluster") -> None:
    """One cluster per kind: all items ``fixed``, all ``broken``, or ``same`` (passing)."""
    base, cand = [], []
    for g, kind in enumerate(kinds):
        for j in range(size):
            item = {"id": f"doc{g:02d}-{j}", field: f"doc{g:02d}"}
            base.append({**item, "passed": kind != "fixed"})
            cand.append({**item, "passed": kind != "broken"})
    for name, rows in (("b.jsonl", base), ("c.jsonl", cand)):
        (tmp / name).write_text("".join(json.dumps(r) + "\n" for r in rows))


KINDS = ["fixed"] * 8 + ["broken"] * 2 + ["same"] * 2


def test_clustered_pass_fail_is_decided_by_the_cluster_sign_flip(tmp_path: Path) -> None:
    write_clusters(tmp_path, KINDS)
    r, markdown = report(tmp_path)
    # McNemar on the 48 items: 32 fixed, 8 broken, p = 0.00018 (exact fractions), far below
    # alpha; but the clusters moved as wholes: 12 clusters with totals +4 (8), -4 (2), 0 (2),
    # and 112 of every 1,024 sign patterns reach |sum| >= 24
    assert r["mcnemar"]["pvalue"] == pytest.approx(float(exact_mcnemar(32, 8)), rel=1e-12)
    assert r["mcnemar"]["pvalue"] < 0.001
    expected = enumerate_pvalue([4.0] * 8 + [-4.0] * 2 + [0.0] * 2)
    assert expected == Fraction(112, 1024)
    assert r["test"]["name"] == "exact cluster sign-flip"
    assert r["test"]["pvalue"] == pytest.approx(float(expected), abs=1e-15)
    assert r["test"]["significant"] is False
    # the smallest p of 10 changed clusters: 2^(1 - 10)
    assert r["test"]["smallest_pvalue"] == pytest.approx(2.0**-9)
    diff = r["difference"]
    assert diff["interval"] == "cluster-sign-flip"
    assert diff["method"] == "exact cluster sign-flip"
    assert diff["pvalue"] == r["test"]["pvalue"]
    assert diff["estimate"] == pytest.approx(24 / 48)
    # the interval holds 0 (at its closed lower end: the test of 0 gives p = 0.109, of any
    # shift just below 0 p = 0.022, as the two unchanged clusters start to count)
    assert diff["ci"][0] == 0.0 and diff["ci"][1] == pytest.approx(1.0, abs=1e-8)
    assert diff["clusters"] == 12
    assert r["verdict"]["outcome"] == "no_significant_difference"
    codes = [reason["code"] for reason in r["decision"]["reasons"]]
    assert "clusters_mcnemar" in codes
    assert r["verdict"]["warnings"] == []
    assert (
        "exact cluster sign-flip p = 0.109" in markdown.splitlines()[1] + markdown.splitlines()[0]
    )
    assert "take each cluster as one unit" in markdown
    # the same items without labels: McNemar decides, and finds an improvement
    for name in ("b.jsonl", "c.jsonl"):
        rows = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
        text = "".join(json.dumps({k: v for k, v in row.items() if k != "cluster"}) + "\n"
                       for row in rows)  # fmt: skip
        (tmp_path / name).write_text(text)
    r, _ = report(tmp_path)
    assert r["test"]["name"] == "McNemar (exact)" and r["difference"]["interval"] == "tango-cc"
    assert r["verdict"]["outcome"] == "improvement"


def test_a_renamed_cluster_field_and_test_bootstrap(tmp_path: Path) -> None:
    write_clusters(tmp_path, KINDS, field="doc")
    r, _ = report(tmp_path, "--cluster-field", "doc")
    assert r["test"]["name"] == "exact cluster sign-flip"
    # the plan says test: bootstrap: the cluster bootstrap decides and its interval is shown
    (tmp_path / "plan.yml").write_text("test: bootstrap\nbootstrap: {resamples: 2000}\n")
    r, _ = report(tmp_path, "--cluster-field", "doc", "--config", "plan.yml")
    assert r["test"]["name"] == "paired bootstrap (percentile)"
    assert r["difference"]["interval"] == "bootstrap"
    assert r["difference"]["method"] == "paired bootstrap (percentile, resampling clusters)"
    assert "clusters_mcnemar" not in [x["code"] for x in r["decision"]["reasons"]]


def test_clustered_scores(tmp_path: Path) -> None:
    # 6 clusters of 3 items; per-item differences +0.5, +0.2, +0.1 in five clusters and -0.4,
    # -0.4, -0.4 in one: totals 0.8 (5) and -1.2, observed sum 2.8. By hand, a pattern with k
    # of the five +0.8 kept sums to 0.8 (2k - 5) +- 1.2: |sum| >= 2.8 for k = 5 (both signs of
    # the sixth: 5.2, 2.8) and k = 4 with the sixth flipped (3.6, 5 ways), and their mirror
    # images: 2 * (2 + 5) = 14 of 64 patterns
    base, cand = [], []
    for g in range(6):
        deltas = [0.5, 0.2, 0.1] if g < 5 else [-0.4, -0.4, -0.4]
        for j, delta in enumerate(deltas):
            item = {"id": f"g{g}-{j}", "cluster": f"g{g}"}
            base.append({**item, "score": 0.5})
            cand.append({**item, "score": 0.5 + delta})
    for name, rows in (("b.jsonl", base), ("c.jsonl", cand)):
        (tmp_path / name).write_text("".join(json.dumps(x) + "\n" for x in rows))
    r, _ = report(tmp_path)
    expected = enumerate_pvalue([0.8] * 5 + [-1.2])
    assert expected == Fraction(14, 64)
    assert r["test"]["name"] == "exact cluster sign-flip"
    assert r["test"]["pvalue"] == pytest.approx(float(expected), abs=1e-12)
    assert r["difference"]["interval"] == "cluster-sign-flip"
    assert r["difference"]["estimate"] == pytest.approx((5 * 0.8 - 1.2) / 18)


def test_too_few_clusters_is_powerless(tmp_path: Path) -> None:
    # five clusters, every one fixed: the best possible p is 2/32 = 0.0625 > 0.05
    write_clusters(tmp_path, ["fixed"] * 5)
    r, markdown = report(tmp_path)
    assert r["test"]["pvalue"] == 2 / 32
    assert r["test"]["powerless"] is True
    assert r["difference"]["ci"] == [None, None] or r["difference"]["ci"] == [
        -math.inf,
        math.inf,
    ]
    powerless = [x for x in r["decision"]["reasons"] if x["code"] == "powerless"]
    assert powerless and "changed clusters" in json.dumps(powerless[0])
    assert r["power"]["minimum_detectable_effect"] is None
    assert "changed cluster" in markdown


def write_sliced(tmp: Path, clusters: bool = True) -> None:
    """Two slices of clustered items. Slice "docs": 6 clusters of 4 items, 5 fixed and 1
    broken, and 2 fixed items of cluster "shared"; slice "code": the other 2 items of
    "shared" (broken), 3 clusters of 4 fixed items and one unchanged."""
    rows: list[tuple[str, str, str]] = []  # (slice, cluster, kind)
    for g in range(6):
        rows += [("docs", f"d{g}", "fixed" if g < 5 else "broken")] * 4
    rows += [("docs", "shared", "fixed")] * 2 + [("code", "shared", "broken")] * 2
    for g in range(4):
        rows += [("code", f"k{g}", "fixed" if g < 3 else "same")] * 4
    base, cand = [], []
    for i, (name, cluster, kind) in enumerate(rows):
        item: dict[str, Any] = {"id": f"i{i:03d}", "slice": name}
        if clusters:
            item["cluster"] = cluster
        base.append({**item, "passed": kind != "fixed"})
        cand.append({**item, "passed": kind != "broken"})
    for name, lines in (("b.jsonl", base), ("c.jsonl", cand)):
        (tmp / name).write_text("".join(json.dumps(r) + "\n" for r in lines))


def bh(pvalues: list[Fraction]) -> list[Fraction]:
    """Benjamini-Hochberg by hand: q_(i) = min over j >= i of p_(j) m / j."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    q = [Fraction(0)] * m
    running = Fraction(1)
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, pvalues[i] * m / rank)
        q[i] = running
    return q


def test_slices_of_clustered_items_take_clusters_as_units(tmp_path: Path) -> None:
    write_sliced(tmp_path)
    r, markdown = report(tmp_path)
    slices = {s["slice"]: s for s in r["slices"]}
    # docs: units +4 (5), -4, and "shared"'s 2 fixed items there (+2); code: "shared"'s 2
    # broken items (-2), +4 (3) and 0. Enumerated over every sign pattern of the units.
    docs = enumerate_pvalue([4.0] * 5 + [-4.0, 2.0])
    code = enumerate_pvalue([-2.0, 4.0, 4.0, 4.0, 0.0])
    # by hand, docs: |sum| >= 18 with the six 4s all one way (either sign of the 2: 2
    # patterns) or five of them and the 2 with them (6), and the mirrors: 16 of 128; code:
    # |4a + 4b + 4c - 2s| >= 10 needs the three 4s together, 2 x 2 = 4 of 16 patterns of the
    # non-zero units
    assert (docs, code) == (Fraction(16, 128), Fraction(4, 16))
    assert slices["docs"]["test"] == slices["code"]["test"] == "exact cluster sign-flip"
    assert slices["docs"]["pvalue"] == pytest.approx(float(docs), abs=1e-15)
    assert slices["code"]["pvalue"] == pytest.approx(float(code), abs=1e-15)
    q_docs, q_code = bh([docs, code])
    assert slices["docs"]["qvalue"] == pytest.approx(float(q_docs), abs=1e-15)
    assert slices["code"]["qvalue"] == pytest.approx(float(q_code), abs=1e-15)
    assert slices["docs"]["table"]["fixed"] == 22 and slices["docs"]["table"]["broken"] == 4
    assert (
        "By slice** (p: the cluster test, a cluster's items in the slice as one unit;" in markdown
    )
    # the same items without cluster labels: McNemar on each slice, far smaller on docs
    # (22 fixed, 4 broken)
    write_sliced(tmp_path, clusters=False)
    r, markdown = report(tmp_path)
    assert "By slice** (q: Benjamini-Hochberg over 2 slices;" in markdown
    plain = {s["slice"]: s for s in r["slices"]}
    assert plain["docs"]["test"] == "McNemar (exact)"
    assert plain["docs"]["pvalue"] == pytest.approx(float(exact_mcnemar(22, 4)), rel=1e-12)
    assert plain["docs"]["pvalue"] < 0.001


def test_sequential_mode_refuses_clustered_items(tmp_path: Path) -> None:
    write_clusters(tmp_path, KINDS)
    (tmp_path / "plan.yml").write_text("policy: {mode: sequential}\n")
    code, out = run(tmp_path, "compare", "b.jsonl", "c.jsonl", "--config", "plan.yml")
    assert code == 1, out  # a refusal fails the gate, as every refusal of the plan does
    first = out.splitlines()[0]
    assert first.startswith("Inconclusive:") and "gate fail" in first
    assert "sequential mode cannot account for clusters (12 clusters)" in out
    assert "use policy.mode: fixed" in out
    r, _ = report(tmp_path, "--config", "plan.yml")
    assert r["verdict"]["outcome"] == "inconclusive"
    assert r["verdict"]["conclusion"] == "failure"
    refused = [x for x in r["decision"]["reasons"] if x["code"] == "clusters_sequential"]
    assert refused and refused[0]["kind"] == "violation"
    assert refused[0]["rule"] == "policy.mode: sequential"
    assert refused[0]["details"] == {"clusters": 12}
    # shown for information: the cluster test (the one mode: fixed decides by), not the SPRT
    assert r["test"]["name"] == "exact cluster sign-flip"
    assert r["test"]["pvalue"] == pytest.approx(112 / 1024, abs=1e-15)
    # gate.on_refused: neutral leaves the check neutral, as for every refusal
    (tmp_path / "plan.yml").write_text("policy: {mode: sequential}\ngate: {on_refused: neutral}\n")
    code, out = run(tmp_path, "compare", "b.jsonl", "c.jsonl", "--config", "plan.yml")
    assert code == 0, out
    r, _ = report(tmp_path, "--config", "plan.yml")
    assert r["verdict"]["conclusion"] == "neutral"
    # without cluster labels the sequential test decides, as before
    for name in ("b.jsonl", "c.jsonl"):
        rows = [json.loads(line) for line in (tmp_path / name).read_text().splitlines()]
        text = "".join(json.dumps({k: v for k, v in row.items() if k != "cluster"}) + "\n"
                       for row in rows)  # fmt: skip
        (tmp_path / name).write_text(text)
    r, _ = report(tmp_path, "--config", "plan.yml")
    assert r["test"]["name"] == "mixture SPRT (always valid)"
    assert "clusters_sequential" not in [x["code"] for x in r["decision"]["reasons"]]
