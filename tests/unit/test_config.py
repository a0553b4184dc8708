"""`.evalbot.yml` parsing: defaults, every key, and exact messages for bad values."""

from __future__ import annotations

import pytest

from evalbot.config import Config, parse_config
from evalbot.errors import ConfigError

FULL = """
metric: passed
alpha: 0.01
mcnemar: midp
fields: {id: name, passed: ok}
bootstrap: {resamples: 2000, seed: 7, confidence: 0.9}
policy:
  sample_size: 400
  max_looks: 1
  missing: drop
gate:
  fail_on: not_significant_improvement
  max_broken: 10
"""


def test_empty_file_is_defaults() -> None:
    assert parse_config("", "c.yml") == Config(source="c.yml")


def test_every_key() -> None:
    config = parse_config(FULL, "c.yml")
    assert config.metric == "passed"
    assert config.alpha == 0.01
    assert config.mcnemar == "midp"
    assert config.fields.id == "name"
    assert config.fields.passed == "ok"
    assert config.fields.score == "score"
    assert (config.bootstrap.resamples, config.bootstrap.seed) == (2000, 7)
    assert config.bootstrap.confidence == 0.9
    assert config.policy.sample_size == 400
    assert config.policy.max_looks == 1
    assert config.policy.missing == "drop"
    assert config.gate.fail_on == "not_significant_improvement"
    assert config.gate.max_broken == 10


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("alpah: 0.05", "c.yml: unknown key `alpah`; did you mean `alpha`?"),
        (
            "policy: {sample_sise: 3}",
            "c.yml: unknown key `policy.sample_sise`; did you mean `policy.sample_size`?",
        ),
        (
            "zzz: 1",
            "c.yml: unknown key `zzz`; allowed: metric, alpha, test, mcnemar, format, fields, bootstrap, plan, policy, holdout, gate",
        ),
        ("alpha: 0.7", "c.yml: `alpha` must be a number strictly between 0 and 0.5, got 0.7"),
        ("alpha: yes", "c.yml: `alpha` must be a number strictly between 0 and 0.5, got True"),
        ("policy: {sample_size: 0}", "c.yml: `policy.sample_size` must be an integer >= 1, got 0"),
        (
            "policy: {sample_size: '400'}",
            "c.yml: `policy.sample_size` must be an integer >= 1, got '400'",
        ),
        (
            "policy: {missing: ignore}",
            "c.yml: `policy.missing` must be one of error, fail, drop, got 'ignore'",
        ),
        (
            "gate: {fail_on: always}",
            "c.yml: `gate.fail_on` must be one of significant_regression, "
            "not_significant_improvement, never, got 'always'",
        ),
        ("gate: 3", "c.yml: `gate` must be a mapping, got 3"),
        (
            "bootstrap: {resamples: 10}",
            "c.yml: `bootstrap.resamples` must be an integer >= 100, got 10",
        ),
        ("- a\n- b", "c.yml: expected a mapping of settings, got ['a', 'b']"),
        ("alpha: [0.05\n", "c.yml:2: not valid YAML (expected ',' or ']', but got '<stream end>')"),
        (
            "!!python/object/apply:os.system ['echo hi']",
            "c.yml:1: not valid YAML (could not determine a constructor for the tag 'tag:yaml.org,2002:python/object/apply:os.system')",
        ),
    ],
)
def test_bad_config_messages(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "c.yml")
    assert str(caught.value) == message
