"""`.evalbot.yml` parsing: defaults, every key, and exact messages for bad values."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml

from evalbot import vocabulary
from evalbot.cli import load_config
from evalbot.errors import ConfigError
from evalbot.limits import MAX_RESAMPLES
from evalbot.pairing.fingerprint import fingerprint
from evalbot.plan.config import KEYS, Config, PlanConfig, parse_config

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
            "c.yml: unknown key `zzz`; allowed: metric, alpha, test, mcnemar, format, scorer, filter, all_ids, secondary_metrics, f1, fields, bootstrap, plan, policy, holdout, gate, report",
        ),
        (
            "alpha: 0.7",
            "c.yml: `alpha` must be a number strictly between 0 and 0.5 (a fraction or a percentage), got 0.7",
        ),
        (
            "alpha: yes",
            "c.yml: `alpha` must be a number strictly between 0 and 0.5 (a fraction or a percentage), got True",
        ),
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
        (
            "gate: {on_refused: pass}",
            "c.yml: `gate.on_refused` must be one of fail, neutral, got 'pass'",
        ),
        (
            "gate: {on_refusd: fail}",
            "c.yml: unknown key `gate.on_refusd`; did you mean `gate.on_refused`?",
        ),
        ("gate: 3", "c.yml: `gate` must be a mapping, got 3"),
        (
            "bootstrap: {resamples: 10}",
            "c.yml: `bootstrap.resamples` must be an integer >= 100, got 10",
        ),
        ("- a\n- b", "c.yml: expected a mapping of settings, got ['a', 'b']"),
        ("metric: " + "[" * 1001, "c.yml: 1001 `[`/`{` characters; a plan may hold 1,000"),
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


# ---- the plan's newer keys -------------------------------------------------------------------


REPO = Path(__file__).resolve().parents[3]
SCHEMA = json.loads((REPO / "evalbot" / "schema" / "evalbot.schema.json").read_text())


def files(mapping: dict[str, str]) -> Any:
    def read_text(name: str) -> str:
        if name not in mapping:
            raise FileNotFoundError(name)
        return mapping[name]

    return read_text


def test_new_keys() -> None:
    text = """
test: bootstrap
plan: {fix_rate: 0.08, break_rate: 0.03, power: 0.9}
policy: {max_looks: 2, looks: bonferroni, items_file: items.txt, min_effect: 0.02}
holdout: {ids_file: sealed.txt, max_uses: 3}
gate: {max_broken: 5%, margin: 0.01}
"""
    config = parse_config(
        text, "c.yml", read_text=files({"items.txt": "b\na\n\n", "sealed.txt": " x \ny\n"})
    )
    assert config.test == "bootstrap"
    assert config.plan is not None and config.plan.power == 0.9
    assert config.policy.looks == "bonferroni"
    assert config.policy.items_sha256 == fingerprint(["a", "b"])
    assert config.policy.min_effect == 0.02
    assert config.holdout is not None
    assert config.holdout.ids == ("x", "y") and config.holdout.max_uses == 3
    assert config.gate.max_broken is None and config.gate.max_broken_rate == 0.05
    assert config.gate.margin == 0.01


def test_items_file_hash_is_the_pairing_fingerprint() -> None:
    # sha256 of the sorted ids each followed by "\n", computed here with hashlib directly
    import hashlib

    expected = hashlib.sha256(b"a\nb\nc\n").hexdigest()
    config = parse_config("policy: {items_file: i}", "c.yml", read_text=files({"i": "c\na\nb"}))
    assert config.policy.items_sha256 == expected


@pytest.mark.parametrize(
    ("value", "count", "rate"),
    [
        ("10", 10, None),
        ("0", 0, None),
        ("0.05", None, 0.05),
        ("'5%'", None, 0.05),
        ("'2.5 %'", None, 0.025),
    ],
)
def test_max_broken_count_or_rate(value: str, count: int | None, rate: float | None) -> None:
    gate = parse_config(f"gate: {{max_broken: {value}}}", "c.yml").gate
    assert (gate.max_broken, gate.max_broken_rate) == (count, rate)


BROKEN_RATE = "an integer >= 0 (items) or a rate such as 5% or 0.05"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("test: ttest", "c.yml: `test` must be one of mcnemar, bootstrap, got 'ttest'"),
        (
            "plan: {fix_rate: 0.1}",
            "c.yml: `plan` needs `fix_rate` and `break_rate`, or `difference` and `discordance`",
        ),
        (
            "plan: {difference: 3pp}",
            "c.yml: `plan` needs `fix_rate` and `break_rate`, or `difference` and `discordance`",
        ),
        (
            "plan: {fix_rate: 0.1, break_rate: 0.05, discordance: 0.15}",
            "c.yml: `plan` needs `fix_rate` and `break_rate`, or `difference` and `discordance`",
        ),
        (
            "plan: {power: 0.9}",
            "c.yml: `plan` needs `fix_rate` and `break_rate`, or `difference` and `discordance`",
        ),
        (
            "plan: {difference: 10pp, discordance: 5%}",
            "c.yml: `plan.discordance` (0.05) must be at least the size of `plan.difference` "
            "(+0.1): a net change needs that many items to change",
        ),
        (
            "plan: {fix_rate: 0.1, break_rate: 0.1}",
            "c.yml: `plan.fix_rate` equals `plan.break_rate`: there is no change to detect",
        ),
        (
            "plan: {fix_rate: 0.6, break_rate: 0.5}",
            "c.yml: `plan.fix_rate` + `plan.break_rate` must be at most 1, got 0.6 + 0.5",
        ),
        (
            "plan: {fix_rate: 0.1, break_rate: 0.0}",
            "c.yml: `plan.break_rate` must be a number strictly between 0 and 1 (a fraction or a percentage), got 0.0",
        ),
        (
            "plan: {fix_rate: 0.1, break_rate: 0.05, powr: 0.9}",
            "c.yml: unknown key `plan.powr`; did you mean `plan.power`?",
        ),
        (
            "plan: {fix_rate: 0.1, break_rate: 0.05}\npolicy: {sample_size: 100}",
            "c.yml: give `policy.sample_size` or `plan`, not both",
        ),
        (
            "policy: {mode: bayes}",
            "c.yml: `policy.mode` must be one of fixed, sequential, got 'bayes'",
        ),
        (
            "policy: {look: refuse}",
            "c.yml: unknown key `policy.look`; did you mean `policy.looks`?",
        ),
        (
            "policy: {looks: correct}",
            "c.yml: `policy.looks` must be one of refuse, bonferroni, got 'correct'",
        ),
        (
            "policy: {looks: bonferroni}",
            "c.yml: `policy.looks: bonferroni` needs `policy.max_looks`",
        ),
        (
            "policy: {looks: bonferroni, max_looks: 2, mode: sequential}",
            "c.yml: `policy.looks: bonferroni` does not apply to `policy.mode: sequential`",
        ),
        (
            "test: bootstrap\npolicy: {mode: sequential}",
            "c.yml: `policy.mode: sequential` needs `test: mcnemar`",
        ),
        (
            "policy: {items_sha256: abc}",
            "c.yml: `policy.items_sha256` must be 64 lowercase hexadecimal digits (a sha256), got 'abc'",
        ),
        (
            "policy: {min_effect: 2}",
            "c.yml: `policy.min_effect` must be a number strictly between 0 and 1 (a fraction or a percentage), got 2",
        ),
        (
            "policy: {items_file: nope.txt}",
            "c.yml: `policy.items_file` names 'nope.txt', which does not exist (read relative to "
            "the config file)",
        ),
        (
            "policy: {items_file: empty.txt}",
            "empty.txt (`policy.items_file`): lists no item ids (one id per line)",
        ),
        (
            "policy: {items_file: dup.txt}",
            "dup.txt (`policy.items_file`):3: item id 'a' repeats line 1",
        ),
        (
            "policy: {items_file: ab.txt, items_sha256: '" + "0" * 64 + "'}",
            "c.yml: `policy.items_sha256` is 000000000000... but the ids in `policy.items_file` hash to "
            + fingerprint(["a", "b"])[:12]
            + "...; keep one, or make them agree",
        ),
        ("holdout: {max_uses: 2}", "c.yml: `holdout.ids_file` is required when `holdout` is given"),
        (
            "holdout: {ids_file: ab.txt, max_use: 2}",
            "c.yml: unknown key `holdout.max_use`; did you mean `holdout.max_uses`?",
        ),
        (
            "holdout: {ids_file: ab.txt, max_uses: 0}",
            "c.yml: `holdout.max_uses` must be an integer >= 1, got 0",
        ),
        ("gate: {max_broken: -1}", f"c.yml: `gate.max_broken` must be {BROKEN_RATE}, got -1"),
        ("gate: {max_broken: 1.5}", f"c.yml: `gate.max_broken` must be {BROKEN_RATE}, got 1.5"),
        (
            "gate: {max_broken: '120%'}",
            f"c.yml: `gate.max_broken` must be {BROKEN_RATE}, got '120%'",
        ),
        ("gate: {max_broken: lots}", f"c.yml: `gate.max_broken` must be {BROKEN_RATE}, got 'lots'"),
        ("gate: {max_broken: true}", f"c.yml: `gate.max_broken` must be {BROKEN_RATE}, got True"),
        (
            "gate: {margin: 0}",
            "c.yml: `gate.margin` must be a number strictly between 0 and 1 (a fraction or a percentage), got 0",
        ),
        ("gate: {margn: 0.01}", "c.yml: unknown key `gate.margn`; did you mean `gate.margin`?"),
    ],
)
def test_bad_plan_messages(text: str, message: str) -> None:
    read_text = files({"empty.txt": "\n \n", "dup.txt": "a\nb\na\n", "ab.txt": "a\nb\n"})
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "c.yml", read_text=read_text)
    assert str(caught.value) == message


def test_files_are_read_relative_to_the_config(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "items.txt").write_text("q1\nq2\n")
    (tmp_path / "cfg.yml").write_text("policy: {items_file: evals/items.txt}\n")
    assert load_config(str(tmp_path / "cfg.yml")).policy.items_sha256 == fingerprint(["q1", "q2"])


def test_example_config_parses(tmp_path: Path) -> None:
    config = load_config(str(REPO / "docs" / "evalbot.example.yml"))
    assert config.plan is not None and (config.plan.fix_rate, config.plan.break_rate) == (
        0.08,
        0.03,
    )
    assert config.policy.max_looks == 1 and config.policy.looks == "refuse"
    assert config.policy.min_effect == 0.05
    assert config.gate.max_broken_rate == 0.05
    # and it is valid under the schema
    import jsonschema  # the test extra: a missing oracle fails the test, never skips it

    data = yaml.safe_load((REPO / "docs" / "evalbot.example.yml").read_text())
    jsonschema.validate(data, SCHEMA)


# ---- the JSON Schema and the parser agree ---------------------------------------------------


def schema_keys(node: dict[str, Any], prefix: str = "") -> set[str]:
    """Every dotted key the schema defines (following anyOf to the object branch)."""
    out: set[str] = set()
    for key, sub in node.get("properties", {}).items():
        out.add(prefix + key)
        for branch in [sub, *sub.get("anyOf", [])]:
            if branch.get("type") == "object":
                out |= schema_keys(branch, prefix + key + ".")
    return out


def parser_keys() -> set[str]:
    return {
        f"{section}.{key}" if section else key for section, keys in KEYS.items() for key in keys
    }


def test_schema_and_parser_define_the_same_keys() -> None:
    assert schema_keys(SCHEMA) == parser_keys()


def test_every_schema_key_is_accepted_by_the_parser() -> None:
    # one document that sets every key to a valid value
    doc = {
        "metric": "passed",
        "alpha": 0.05,
        "test": "mcnemar",
        "mcnemar": "midp",
        "format": "jsonl",
        "fields": {k: k for k in Config().fields.__dataclass_fields__},
        "bootstrap": {"resamples": 1000, "seed": 1, "confidence": 0.9, "method": "bca"},
        "f1": {"tp": "counts.tp", "fp": "counts.fp", "fn": "counts.fn"},
        "plan": {"fix_rate": 0.08, "break_rate": 0.03, "power": 0.9, "design_effect": 1.2},
        "policy": {
            "max_looks": 2,
            "missing": "drop",
            "mode": "fixed",
            "looks": "bonferroni",
            "items_sha256": fingerprint(["a", "b"]),
            "items_file": "ab.txt",
            "min_effect": 0.02,
            "errors": "drop",
        },
        "holdout": {"ids_file": "ab.txt", "max_uses": 2},
        "gate": {
            "fail_on": "never",
            "max_broken": "5%",
            "margin": 0.01,
            "on_refused": "neutral",
            "on_no_baseline": "neutral",
        },
        "scorer": "match",
        "filter": "none",
        "all_ids": "ids.txt",
        "secondary_metrics": ["latency", "metrics.f1"],
        "report": {"item_url": "https://logs.example/{id}", "template": "comment.md.j2"},
    }
    flat = schema_keys(SCHEMA)
    set_keys = {k for k in flat if "." not in k} | {
        f"{s}.{k}" for s, v in doc.items() if isinstance(v, dict) for k in v
    }
    # excluded by `plan` and by the rates (cross-key rules), set below
    assert flat - set_keys == {"policy.sample_size", "plan.difference", "plan.discordance"}
    import jsonschema  # the test extra: a missing oracle fails the test, never skips it

    ids = files({"ab.txt": "a\nb\n", "ids.txt": "a\nb\nc\n"})
    jsonschema.validate(doc, SCHEMA)
    parse_config(yaml.safe_dump(doc), "c.yml", read_text=ids)
    by_difference = {**doc, "plan": {"difference": "+5pp", "discordance": "11%", "power": "80%"}}
    jsonschema.validate(by_difference, SCHEMA)
    plan = parse_config(yaml.safe_dump(by_difference), "c.yml", read_text=ids).plan
    assert plan is not None and (plan.fix_rate, plan.break_rate, plan.power) == (0.08, 0.03, 0.8)
    doc["policy"]["sample_size"] = 10  # type: ignore[index]
    del doc["plan"]
    jsonschema.validate(doc, SCHEMA)
    parse_config(yaml.safe_dump(doc), "c.yml", read_text=ids)


#: Each closed vocabulary of the plan: (dotted key, its choices, the parsed default).
VOCABULARIES = [
    ("test", get_args(vocabulary.PrimaryTest), Config().test),
    ("mcnemar", vocabulary.MCNEMAR_METHODS, Config().mcnemar),
    ("bootstrap.method", vocabulary.BOOTSTRAP_METHODS, Config().bootstrap.method),
    ("policy.missing", vocabulary.MISSING_RULES, Config().policy.missing),
    ("policy.mode", get_args(vocabulary.Mode), Config().policy.mode),
    ("policy.looks", get_args(vocabulary.LooksRule), Config().policy.looks),
    ("policy.errors", vocabulary.ERRORS_RULES, Config().policy.errors),
    ("gate.fail_on", get_args(vocabulary.FailOn), Config().gate.fail_on),
    ("gate.on_refused", get_args(vocabulary.FailOrNeutral), Config().gate.on_refused),
    ("gate.on_no_baseline", get_args(vocabulary.FailOrNeutral), Config().gate.on_no_baseline),
]


def schema_node(dotted: str) -> dict[str, Any]:
    node: dict[str, Any] = SCHEMA
    for part in dotted.split("."):
        node = node["properties"][part]
        node = next((b for b in node.get("anyOf", []) if b.get("type") == "object"), node)
    return node


@pytest.mark.parametrize(("key", "choices", "default"), VOCABULARIES, ids=lambda v: str(v))
def test_every_vocabulary_is_the_schema_enum_and_default(
    key: str, choices: tuple[str, ...], default: str
) -> None:
    """One vocabulary per key (evalbot/vocabulary.py): the schema's enum lists the same
    choices, its default is the first, which is what the parser gives when the key is absent,
    and every choice parses to itself while a near miss is refused."""
    node = schema_node(key)
    assert node["enum"] == list(choices)
    assert node["default"] == choices[0] == default
    section, _, name = key.rpartition(".")
    extra = ", max_looks: 2" if key == "policy.looks" else ""  # bonferroni divides by it
    for choice in choices:
        text = f"{section}: {{{name}: {choice}{extra}}}" if section else f"{name}: {choice}"
        parsed = parse_config(text, "c.yml")
        value = getattr(parsed if not section else getattr(parsed, section), name)
        assert value == choice
    bad = f"{section}: {{{name}: {choices[0]}x}}" if section else f"{name}: {choices[0]}x"
    with pytest.raises(ConfigError, match="must be one of " + ", ".join(choices)):
        parse_config(bad, "c.yml")


def test_numeric_defaults_are_the_schema_defaults() -> None:
    assert schema_node("alpha")["default"] == vocabulary.ALPHA == Config().alpha
    assert schema_node("bootstrap.resamples")["anyOf"][0]["default"] == vocabulary.RESAMPLES
    assert Config().bootstrap.resamples == vocabulary.RESAMPLES
    assert schema_node("bootstrap.resamples")["anyOf"][0]["maximum"] == MAX_RESAMPLES
    assert schema_node("plan.power")["default"] == vocabulary.POWER
    assert parse_config("plan: {fix_rate: 0.1, break_rate: 0.05}", "c.yml").plan == PlanConfig(
        fix_rate=0.1, break_rate=0.05, power=vocabulary.POWER, design_effect=1.0
    )


def test_the_cli_offers_the_vocabularies() -> None:
    """The command line's choices are the plan's vocabularies (no copies to drift)."""
    from evalbot.cli import build_parser

    compare = build_parser()._subparsers._group_actions[0].choices["compare"]  # type: ignore[union-attr]
    flags = {a.dest: a.choices for a in compare._actions}
    assert tuple(flags["ci_method"]) == vocabulary.BOOTSTRAP_METHODS
    assert tuple(flags["missing"]) == vocabulary.MISSING_RULES


@pytest.mark.parametrize(
    "text",
    [
        "alpah: 0.05",
        "alpha: 0.7",
        "alpha: yes",
        "test: ttest",
        "policy: {sample_size: 0}",
        "policy: {sample_size: '400'}",
        "policy: {mode: bayes}",
        "policy: {items_sha256: ABC}",
        "plan: {fix_rate: 0.1}",
        "plan: {fix_rate: 1.5, break_rate: 0.1}",
        "plan: {fix_rate: 0.1, break_rate: 0.05, design_effect: 0.9}",
        "plan: {fix_rate: 0.1, break_rate: 0.05, design_effect: two}",
        "holdout: {max_uses: 2}",
        "gate: {max_broken: -1}",
        "gate: {max_broken: '120%'}",
        "gate: {max_broken: 1.5}",
        "gate: {margin: 0}",
        "gate: 3",
        "bootstrap: {resamples: 10}",
        "bootstrap: {resamples: 1000001}",
        "bootstrap: {method: studentized}",
        "f1: {tp: x, fp: y, fnn: z}",
        "f1: [tp, fp, fn]",
        "fields: {idd: x}",
    ],
)
def test_bad_documents_are_rejected_by_both(text: str) -> None:
    import jsonschema  # the test extra: a missing oracle fails the test, never skips it

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(text), SCHEMA)
    with pytest.raises(ConfigError):
        parse_config(text, "c.yml", read_text=files({}))


# ---- input, secondary metrics, report ---------------------------------------------------


def test_input_and_report_keys_reach_the_read_options() -> None:
    config = parse_config(
        "format: inspect\nscorer: match\nfilter: none\nall_ids: ids.txt\n"
        "secondary_metrics: [latency, metrics.f1]\n"
        "report: {item_url: 'https://logs.example/{id}', template: mine.md.j2}\n"
        "policy: {errors: drop}\n",
        "c.yml",
    )
    options = config.read_options()
    assert options.format == "inspect"
    assert options.scorer == "match"
    assert options.filter == "none"
    assert options.all_ids == "ids.txt"
    assert options.secondary == ("latency", "metrics.f1")
    assert config.report.item_url == "https://logs.example/{id}"
    assert config.report.template == "mine.md.j2"
    assert config.policy.errors == "drop"
    assert parse_config("secondary_metrics: latency", "c.yml").secondary_metrics == ("latency",)


def test_ci_method_and_f1_keys() -> None:
    assert Config().bootstrap.method == "percentile"
    assert Config().f1 is None and Config().read_options().columns == ()
    config = parse_config(
        "bootstrap: {method: bca}\nf1: {tp: counts.tp}\nsecondary_metrics: [fp]\n", "c.yml"
    )
    assert config.bootstrap.method == "bca"
    assert config.f1 is not None and config.f1.columns == ("counts.tp", "fp", "fn")
    options = config.read_options()
    assert options.secondary == ("fp",)  # only the named secondary metric is compared alone
    assert options.columns == ("counts.tp", "fp", "fn")
    assert parse_config("f1: {}", "c.yml").f1 is not None
    assert parse_config("f1:", "c.yml").f1 is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "format: inspekt",
            "c.yml: `format` must be one of csv, default, helm, inspect, json, jsonl, junit, lm-eval, mlflow, openai-evals, promptfoo, swebench, tsv, got 'inspekt'",
        ),
        (
            "secondary_metrics: [a, a]",
            "c.yml: `secondary_metrics` must be a list of distinct field names, got ['a', 'a']",
        ),
        (
            "secondary_metrics: [1]",
            "c.yml: `secondary_metrics` must be a list of distinct field names, got [1]",
        ),
        (
            "report: {item_url: 'javascript:alert(1)//{id}'}",
            "c.yml: `report.item_url` must be an http(s) URL containing \"{id}\", got 'javascript:alert(1)//{id}'",
        ),
        (
            "report: {item_url: 'https://logs.example/'}",
            "c.yml: `report.item_url` must be an http(s) URL containing \"{id}\", got 'https://logs.example/'",
        ),
        (
            "report: {itm_url: x}",
            "c.yml: unknown key `report.itm_url`; did you mean `report.item_url`?",
        ),
        (
            "policy: {errors: ignore}",
            "c.yml: `policy.errors` must be one of drop, fail, got 'ignore'",
        ),
        (
            "bootstrap: {method: bc}",
            "c.yml: `bootstrap.method` must be one of percentile, bca, got 'bc'",
        ),
        (
            "f1: {tp: x, fp: y, fnn: z}",
            "c.yml: unknown key `f1.fnn`; did you mean `f1.fn`?",
        ),
        (
            "f1: {tp: x, fp: x}",
            "c.yml: `f1` must name three different fields, got x, x, fn",
        ),
        (
            "f1: [tp, fp, fn]",
            "c.yml: `f1` must be a mapping, got ['tp', 'fp', 'fn']",
        ),
    ],
)
def test_bad_input_and_report_keys(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "c.yml")
    assert str(caught.value) == message


# ---- YAML strictness: repeated keys, aliases, hostile nesting ---------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "alpha: 0.05\nmetric: passed\nalpha: 0.01\n",
            "c.yml:3: duplicate key 'alpha' (first given on line 1); which one counts?",
        ),
        (
            "gate:\n  fail_on: never\n  fail_on: significant_regression\n",
            "c.yml:3: duplicate key 'fail_on' (first given on line 2); which one counts?",
        ),
        (
            "bootstrap: {resamples: 1000, resamples: 200000}\n",
            "c.yml:1: duplicate key 'resamples' (first given on line 1); which one counts?",
        ),
        (
            "metric: &m passed\nfields: {passed: *m}\n",
            "c.yml:2: YAML alias refused; write the value out",
        ),
        (
            "bootstrap: {resamples: 5000000}\n",
            "c.yml: `bootstrap.resamples` must be an integer from 100 to 1,000,000 (more adds no "
            "precision), got 5000000",
        ),
        (
            "fields: {passed: correct, score: correct}\n",
            "c.yml: `fields`: `passed` and `score` both name 'correct'; give each its own",
        ),
        (
            "fields: {id: passed}\n",
            "c.yml: `fields`: `id` and `passed` both name 'passed'; give each its own",
        ),
    ],
)
def test_yaml_strictness(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "c.yml")
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("tag", "expected"),
    [
        ("set", "a mapping node"),
        ("map", "a mapping node"),
        ("seq", "a sequence node"),
        ("omap", "a sequence"),
        ("pairs", "a sequence"),
    ],
)
def test_a_collection_tag_on_a_scalar_key_is_not_valid_yaml(tag: str, expected: str) -> None:
    """A scalar key never constructs to an unhashable value: a collection's tag on it raises."""
    with pytest.raises(ConfigError) as caught:
        parse_config(f"? !!{tag} alpha\n: 0.05\n", "c.yml")
    assert str(caught.value) == f"c.yml:1: not valid YAML (expected {expected}, but found scalar)"


@pytest.mark.parametrize(
    ("text", "line", "tag", "value"),
    [
        ("alpha: !!bool x\n", 1, "bool", "x"),
        ("alpha: !!float ''\n", 1, "float", ""),
        ("metric: passed\nalpha: !!int 0x\n", 2, "int", "0x"),
        ("alpha: !!timestamp x\n", 1, "timestamp", "x"),
    ],
)
def test_a_scalar_its_tag_cannot_read_is_one_line(
    text: str, line: int, tag: str, value: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "c.yml")
    assert str(caught.value) == (
        f"c.yml:{line}: not valid YAML (its tag 'tag:yaml.org,2002:{tag}' does not read '{value}')"
    )


def billion_laughs(levels: int = 9, width: int = 10) -> str:
    """Each anchor a list of ``width`` aliases of the previous: 10**9 strings once expanded."""
    lines = [f"a0: &a0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * width)}]")
    lines.append(f"metric: *a{levels - 1}")
    return "\n".join(lines) + "\n"


def test_billion_laughs_stays_small() -> None:
    import tracemalloc

    text = billion_laughs()
    assert len(text) < 1_000
    tracemalloc.start()
    with pytest.raises(ConfigError) as caught:
        parse_config(text, "c.yml")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert str(caught.value) == "c.yml:2: YAML alias refused; write the value out"
    assert peak < 5_000_000  # bytes allocated (traced): the expansion (gigabytes) never happens


def hostile_yaml(n: int = 100_000) -> list[str]:
    """Documents of about ``n`` characters built to nest deep or scan twice."""
    return [
        "metric: " + "[" * n,
        "metric: " + "{a: " * (n // 4),
        "".join(" " * i + f"k{i}:\n" for i in range(int((2 * n) ** 0.5) - 7)),
        "- " * (n // 2),
        "metric: !" + "x" * n + " passed\n",
        "metric: '" + "''" * (n // 2) + "'\n",
    ]


@pytest.mark.parametrize("text", hostile_yaml())
def test_hostile_yaml_is_one_line(text: str) -> None:
    try:
        parse_config(text, "c.yml")  # the last one is a valid (odd) metric name
    except ConfigError as error:
        message = str(error)
        assert "\n" not in message
        assert len(message) < 400
