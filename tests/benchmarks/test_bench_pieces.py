"""The benchmark harness's pure pieces: the Python peer validator, the text/JSON exports, sized catalogs, targets."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from benchmarks.catalogs import sized_catalog
from benchmarks.exports import export_cluster
from benchmarks.jobcount import stage_of
from benchmarks.machine import versions
from benchmarks.pyvalidator import Pair, kafka_list, make_validator, parse_number, verdict
from benchmarks.report import gate_lines, markdown, size_targets, storage_versions, target
from benchmarks.sizes import SIZES, parse_sizes
from schemas.constraints import Check, CompiledCatalog, CompiledConstraint, Constraint, ConstraintCatalog
from schemas.decoded import DecodedRecord
from transforms.configdef.checks import check_violation, with_parsed_value
from transforms.configdef.rule_table import check_rule_rows


def _rule(check: dict[str, Any], resource: str = "broker") -> CompiledConstraint:
    constraint = Constraint(id="r", resource=resource, config="k", check=Check.model_validate(check))  # type: ignore[arg-type]
    return CompiledConstraint(
        rule_idx=0,
        constraint=constraint,
        source="t",
        level=None,
        since_mv=None,
        active_from=0,
        active_to=None,
        expr_sql=None,
    )


# (check, value, ConfigDef type, verdict): the verdicts read by hand from transforms/configdef/checks.py
# (check_violation: code, then detail) and Kafka's parsing it follows (docs/kafka-semantics.md §6).
CASES = [
    ({"min": 10}, "9", "INT", ("BELOW_MIN", None)),
    ({"min": 10}, " 10 ", "INT", None),
    ({"min": 10}, "abc", "INT", ("NOT_A_NUMBER", "INT")),
    ({"min": 10}, None, "INT", ("NULL_VALUE", None)),
    ({"min": 10}, "NaN", "DOUBLE", None),
    ({"min": 10}, "1_000", "INT", ("NOT_A_NUMBER", "INT")),  # Python's int() accepts it, Java's parseInt does not
    ({"min": 1}, "x", None, ("NOT_A_NUMBER", None)),  # unknown type: Double's grammar, no type to name
    ({"between": [1, 3]}, "4", "LONG", ("ABOVE_MAX", None)),
    ({"max": 5}, "2147483648", "INT", ("NOT_A_NUMBER", "INT")),  # out of int range: does not parse
    ({"in": ["true", "false"]}, "TRUE", "BOOLEAN", None),
    ({"in": ["a", "b"]}, "a, b", "LIST", None),
    ({"in": ["a", "b"]}, "a,c", "LIST", ("NOT_ALLOWED", "c")),
    ({"in": ["a", "b"]}, "c,a,d,c", "LIST", ("NOT_ALLOWED", "c, d")),  # each element once, in first order
    ({"in": ["a", "b"]}, "", "LIST", None),  # an empty list passes `in`
    ({"in": ["a", "b"]}, " c ", "STRING", ("NOT_ALLOWED", "c")),  # the trimmed value is named
    ({"in": ["1", "2"]}, "2.0", "DOUBLE", None),  # numeric keys compare numbers
    ({"not_in": [""]}, "", "STRING", ("FORBIDDEN", "")),
    ({"not_in": [""]}, None, "STRING", None),
    ({"not_in": ["x", "y"]}, "y,z,x,y", "LIST", ("FORBIDDEN", "y, x")),
    ({"regex": "[a-z]+"}, "abc", "STRING", None),
    ({"regex": "[a-z]+"}, "ab1", "STRING", ("NO_MATCH", None)),
    ({"regex": "[a-z]+"}, "ab, c", "LIST", None),  # every element matches
    ({"regex": "(?i)(?:ES256|RS256)"}, " es256 ", "STRING", None),  # an inline flag, as Java reads it
    ({"regex": "(?i)(?:ES256|RS256)"}, "HS256", "STRING", ("NO_MATCH", None)),
    ({"type": "int"}, "12x", "STRING", ("WRONG_TYPE", "INT")),
    ({"type": "boolean"}, "yes", "STRING", ("WRONG_TYPE", "BOOLEAN")),
    ({"type": "class"}, "org.example.Foo", "CLASS", None),
    ({"not_null": True}, None, "STRING", ("NULL_VALUE", None)),
    ({"non_empty_list": True}, "  ", "LIST", ("EMPTY_LIST", None)),
    ({"no_duplicates": True}, "a,b,a", "LIST", ("DUPLICATES", None)),
    ({"no_empty_elements": True}, "a,,b", "LIST", ("EMPTY_ELEMENT", None)),
    ({"no_empty_elements": True}, "a,b,", "LIST", ("EMPTY_ELEMENT", None)),  # trailing empty elements are kept
]
_IDS = [f"{c}-{v!r}-{t}" for c, v, t, _ in CASES]


@pytest.mark.parametrize(("check", "value", "config_type", "expected"), CASES, ids=_IDS)
def test_python_validator_follows_kafka_parsing(
    check: dict[str, Any], value: str | None, config_type: str | None, expected: tuple[str, str | None] | None
) -> None:
    assert make_validator(_rule(check))(value, config_type, False) == expected


def test_python_validator_skips_sensitive_values_except_not_null() -> None:
    assert make_validator(_rule({"min": 10}))("[redacted]", "INT", True) is None
    assert make_validator(_rule({"not_null": True}))(None, "PASSWORD", True) == ("NULL_VALUE", None)


def test_the_python_verdicts_are_the_products_verdicts(spark: SparkSession) -> None:
    """The UDF peer's verdicts and the native column's (``checks.check_violation``) on every case above, each rule
    row as the rule table holds it: the peer does the product's work."""
    rows = []
    for i, (check, value, config_type, _) in enumerate(CASES):
        catalog = CompiledCatalog(sources=(), rules=(_rule(check),), max_level=0, fingerprint="")
        (rule_row,) = check_rule_rows(catalog)
        rows.append((i, *rule_row[3:10], value, config_type, False))
    ddl = (
        "case int, rule_kind string, rule_num_a double, rule_num_b double, rule_values array<string>, "
        "rule_values_num array<double>, rule_pattern string, rule_type string, value string, config_type string, "
        "is_sensitive boolean"
    )
    judged = (
        spark.createDataFrame(rows, ddl)
        .transform(with_parsed_value)
        .select("case", check_violation().alias("v"))
        .collect()
    )
    native = {r["case"]: (None if r["v"] is None else (r["v"]["code"], r["v"]["detail"])) for r in judged}
    assert native == {i: expected for i, (_, _, _, expected) in enumerate(CASES)}
    assert [verdict(Pair(*row[1:])) for row in rows] == [expected for _, _, _, expected in CASES]


def test_number_parsing_and_list_splitting_match_java() -> None:
    assert parse_number("0x1p3", "DOUBLE") == 8.0
    assert parse_number("-Infinity", "DOUBLE") == -math.inf
    assert parse_number("1e3d", "DOUBLE") == 1000.0
    assert parse_number("32768", "SHORT") is None
    assert kafka_list(" a , b ,") == ["a", "b", ""]


def test_exports_print_the_same_records_the_binary_decoder_reads(tmp_path: Path) -> None:
    from jobs.synth import run as synth_run
    from synthetic.spec import FleetSpec
    from transforms.decode.binary.decode import decode_file
    from transforms.decode.text.detect import detect_input_kind
    from transforms.decode.text.dumplog import parse_dump_log
    from transforms.decode.text.jsonlines import parse_json_lines

    synth_run(FleetSpec(out=str(tmp_path / "fleet"), clusters=1, brokers=2, topics=4, seed=3))
    cluster = next(p for p in (tmp_path / "fleet").iterdir() if p.is_dir())
    counts = export_cluster(str(cluster), str(tmp_path / "text"), str(tmp_path / "json"))

    expected = []
    for path in sorted(cluster.rglob("*")):
        if path.suffix in (".log", ".checkpoint"):
            data = path.read_bytes()
            kind = detect_input_kind(str(path), data[:64])
            assert kind is not None
            expected += [
                (r.offset, r.record_type, r.data) for r in decode_file(data, kind=kind) if isinstance(r, DecodedRecord)
            ]
    for root, suffix, parse in (
        (tmp_path / "text", ".txt", parse_dump_log),
        (tmp_path / "json", ".jsonl", parse_json_lines),
    ):
        files = sorted((root / cluster.name).rglob(f"*{suffix}"))
        assert files and (root / cluster.name / "meta.properties").exists()
        items = [item for f in files for item in parse(f.read_text(encoding="utf-8").splitlines())]
        assert all(isinstance(i, DecodedRecord) for i in items), "nothing may be quarantined"
        assert sorted((r.offset, r.record_type, str(r.data)) for r in items if isinstance(r, DecodedRecord)) == sorted(
            (o, t, str(d)) for o, t, d in expected
        )
        assert detect_input_kind(str(files[0]), files[0].read_bytes()[:4096]) == (
            "DUMP_LOG_TEXT" if suffix == ".txt" else "JSON_LINES"
        )
    assert counts.records == len(expected) > 0


def test_sized_catalogs_have_exactly_n_distinct_constraints() -> None:
    base = ConstraintCatalog(
        source="t",
        constraints=tuple(
            Constraint(id=f"c{i}", resource="broker", config=f"k{i}", check=Check(min=i)) for i in range(7)
        ),
    )
    for n in (1, 3, 7, 20):
        catalog = sized_catalog(base, n)
        ids = [c.id for c in catalog.constraints]
        assert len(ids) == n == len(set(ids))
    big = sized_catalog(base, 20)
    assert {c.config for c in big.constraints} == {f"k{i}" for i in range(7)}  # copies keep their keys
    assert big.constraints[7].id == "c0.copy1"
    with pytest.raises(ValueError, match="n >= 1"):
        sized_catalog(base, 0)


def test_sizes_parse_and_l_is_at_least_the_issue_minimums() -> None:
    assert [s.name for s in parse_sizes("s, M")] == ["S", "M"]
    with pytest.raises(ValueError, match="unknown size"):
        parse_sizes("XL")
    large = SIZES["L"]
    assert large.clusters >= 100 and large.total_brokers >= 1_000 and large.total_topics >= 100_000


def _result(name: str, *, evaluation: float, floor: float, rows: int, total: float, py_rss: int) -> dict[str, Any]:
    return {
        "size": {"name": name},
        "machine": {"cores": 2, "ram_gib": 24, "cpu_model": "x", "os": "Linux", "load_average_1_5_15": [1.0, 1, 1]},
        "versions": {
            **dict.fromkeys(
                ("python", "java", "pyspark", "delta_spark", "deltalake", "great_expectations", "pyarrow"), "1"
            ),
            "storage_engine": "delta-spark",
        },
        "data": {"clusters": 1, "brokers": 1, "topics": 1, "records": 10, "effective_rows": rows},
        "steps": {
            "evaluate_default": {"seconds": evaluation, "constraints": 1028},
            "floor": {"seconds": floor},
            "great_expectations": {"extrapolated_seconds": 100 * evaluation, "rules_run": 2, "rules_total": 9},
            "python_udf": {"seconds": 4 * evaluation},
            "bronze_floor": {"seconds": floor},
            "audit": {"seconds": total},
        },
        "catalog_scaling": {"largest": 5000, "smallest": 100, "largest_vs_smallest": 1.2, "steps": {}},
        "ingest": {"binary_vs_spark_json": 0.7},
        "pipeline": {
            "total_seconds": total,
            "peak_memory": {"python_peak_rss_mib": py_rss},
            "audit_stages": {"replaying 3 cluster(s)": 5.0, "resolving effective configurations": 7.0},
        },
    }


def test_targets_compare_each_ratio_with_its_goal() -> None:
    result = _result("S", evaluation=3.0, floor=2.0, rows=100, total=10.0, py_rss=200)
    met = {t["name"]: t["met"] for t in size_targets(result)}
    assert met == {
        "eval_vs_floor": True,
        "gx_vs_eval": True,
        "udf_vs_eval": False,
        "udf_verdicts_vs_product": None,  # not measured in this result
        "cuallee_vs_eval": None,
        "dqx_vs_eval": None,
        "catalog_5000_vs_100": True,
        "binary_vs_spark_json": True,
        "replay_vs_bronze_floor": True,  # 5.0 / 2.0 = 2.5 <= 3
        "effective_vs_bronze_floor": False,  # 7.0 / 2.0 = 3.5 > 3
    }
    # the verdicts alone: the UDF's seconds over the product's
    result["steps"].update(verdicts_product={"seconds": 2.0}, verdicts_udf={"seconds": 7.0})
    (verdicts,) = [t for t in size_targets(result) if t["name"] == "udf_verdicts_vs_product"]
    assert (verdicts["measured"], verdicts["met"]) == (3.5, True)
    assert target("x", None, 1.0, "<=", "")["met"] is None
    # the whole-audit time is L's target only: 250 s misses 240
    large = {t["name"]: t for t in size_targets(_result("L", evaluation=3.0, floor=2.0, rows=1, total=250.0, py_rss=1))}
    assert (large["audit_seconds"]["measured"], large["audit_seconds"]["met"]) == (250.0, False)
    assert large["replay_vs_bronze_floor"]["measured"] == 2.5


def test_markdown_lists_every_size_and_the_data_scaling_targets() -> None:
    small = _result("S", evaluation=3.0, floor=2.0, rows=100, total=10.0, py_rss=200)
    large = _result("L", evaluation=30.0, floor=20.0, rows=10_000, total=400.0, py_rss=250)
    for r in (small, large):
        r["targets"] = size_targets(r)
    text = markdown([small, large])
    assert "| figure | S | L |" in text
    assert "## Targets, L" in text
    assert "| time_growth_vs_data_growth | 0.40 | <= 1.00 | yes |" in text


def test_the_versions_name_delta_spark_as_the_engine_and_deltalake_only_as_a_reader() -> None:
    from importlib import metadata

    found = versions()
    assert (found["storage_engine"], found["delta_spark"]) == ("delta-spark", metadata.version("delta-spark"))
    assert found["deltalake"] == metadata.version("deltalake")  # a test dependency: installed here
    assert "delta_backend" not in found
    small = _result("S", evaluation=3.0, floor=2.0, rows=100, total=10.0, py_rss=200)
    small["versions"].update(delta_spark="4.4.0", deltalake="1.6.6")
    small["targets"] = size_targets(small)
    assert "pyspark 1, storage engine delta-spark 4.4.0, deltalake 1.6.6 (a second reader in the tests), " in (
        markdown([small])
    )
    del small["versions"]["deltalake"]
    assert "storage engine delta-spark 4.4.0, Great Expectations 1," in markdown([small])
    # a result recorded before issue 59 still says which backend it was measured on
    old = {**small["versions"], "deltalake": "1.6.6", "delta_backend": "auto"}
    del old["storage_engine"]
    assert storage_versions(old) == "delta-spark 4.4.0, deltalake 1.6.6 (backend auto)"


def test_jobs_are_attributed_to_the_stage_that_started_them() -> None:
    # descriptions as jobs.runtime.progress.stage / step set them
    assert stage_of("replaying 3 cluster(s)") == "replay"
    assert stage_of("resolving effective configurations") == "effective"
    assert stage_of("evaluating 1096 constraints at 4.4-IV2: every MV level") == "evaluation"
    assert stage_of("checking data quality (silver: 8 tables)") == "dq"
    assert stage_of("decoding 2 files (0.0 MB) on the executors") == "ingest"
    assert stage_of(None) == "other"
    assert stage_of("Delta: something else") == "other"


def test_the_gate_section_shows_jobs_per_stage_and_both_targets() -> None:
    gate = {
        "gate": {"constraints": 1096},
        "target_mv": "4.4-IV2",
        "machine": {"load_average_1_5_15": [3.0, 2.0, 1.0]},
        "data": {"records": 127},
        "seconds": {"gate": 30.0, "session_start": 5.0, "floor": 8.0},
        "stages_seconds": {"replaying 1 cluster(s)": 4.0},
        "jobs": {"total": 50, "by_stage": {"replay": 20, "effective": 30}},
        "targets": [
            target("gate_jobs", 50, 60, "<=", "jobs"),
            target("gate_vs_session_floor", 4.38, 3.0, "<=", "ratio"),
        ],
    }
    text = "\n".join(gate_lines(gate))
    assert "127 records" in text and "50 Spark jobs" in text
    assert "Spark jobs per stage: replay: 20, effective: 30" in text
    assert "| gate_jobs | 50 | <= 60 | yes |" in text
    assert "| gate_vs_session_floor | 4.38 | <= 3.00 | **no** |" in text
