"""What a constraint expression may call (#16 items 5 and 6): the allow-list, the pre-check without Spark, the exact
check on Spark's parse tree, and the allow-list held against the running Spark's function registry."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jobs import conf_loader
from jobs.runtime.expression_check import validate_with_spark
from schemas.constraints import CompiledCatalog
from schemas.errors import ConfigError
from transforms.configdef.expressions import (
    OUTCOME_FALSE,
    OUTCOME_HOLDS,
)
from transforms.configdef.functions import (
    ALLOWED_FUNCTIONS,
    DENIED_BY_REASON,
    DENIED_FUNCTIONS,
    precheck_functions,
)
from transforms.configdef.generate import generate_default_catalog

ROOT = Path(__file__).resolve().parents[3]

# The reproductions and their neighbours: each must be refused before anything runs.
HOSTILE = {
    "java-method-getenv": "java_method('java.lang.System', 'getenv', 'KRAFT_AUDIT_REDACTION_KEY') is not null",
    "reflect": "reflect('java.io.File', 'createTempFile', 'a', 'b') is not null",
    "try-reflect": "try_reflect('java.lang.System', 'getenv', 'HOME') = value",
    "upper-case": "JAVA_METHOD('java.lang.System', 'getenv', 'HOME') = value",
    "qualified": "system.builtin.reflect('java.lang.System', 'getenv', 'HOME') = value",
    "identifier-clause": "IDENTIFIER('java_method')('java.lang.System', 'getenv', 'HOME') = value",
    "inside-a-lambda": "exists(array(value), x -> java_method('java.lang.System', 'getenv', x) is not null)",
    "subquery": "value in (select id from range(3))",
    "scalar-subquery": "(select max(id) from range(3)) > 1",
    "udf-name": "my_python_udf(value)",
    "input-file": "input_file_name() = value",
    "raise-error": "raise_error(value) is null",
    "generator": "size(array(explode(array(1)))) > 0",
    "nondeterministic": "rand() > 0.5",
    "memory": "size(sequence(1, 2000000000)) > 0",
}
# Only Spark's parser sees these: the text has no "name(" the pre-check could read.
PARSER_ONLY = {
    "quoted-name": "`java_method`('java.lang.System', 'getenv', 'HOME') = value",
    "session-user-keyword": "current_user = value",
    "parameter-marker": "value = :secret",
    "star": "size(array(struct(*))) > 0",
}


def _expr_catalog(expr: str) -> str:
    quoted = expr.replace("\\", "\\\\").replace('"', '\\"')
    return f'constraints: [{{id: rule-x, resource: topic, configs: [a], expr: "{quoted}"}}]'


def test_allowed_and_denied_do_not_overlap() -> None:
    assert not ALLOWED_FUNCTIONS & DENIED_FUNCTIONS
    assert {"java_method", "reflect", "try_reflect"} <= DENIED_FUNCTIONS


@pytest.mark.parametrize("expr", list(HOSTILE.values()), ids=list(HOSTILE))
def test_precheck_refuses_hostile_calls_without_spark(expr: str) -> None:
    assert precheck_functions(expr) is not None


@pytest.mark.parametrize(
    "expr",
    [
        "try_cast(value as decimal(10, 2)) > 1",
        "extract(year from to_date(value)) > 2000",
        "substring(value from 1 for 2) = 'ab' and trim(both ' ' from value) <> ''",
        "forall(split(value, ','), x -> x rlike '^[a-z]+$')",
        "value = 'java_method(' -- reflect(",
        "coalesce(cfg['a'], 'x') in ('a', 'b') and not (value like 'select%')",
    ],
    ids=["decimal-type", "extract-from", "substring-trim", "lambda", "names-in-literal-and-comment", "in-and-like"],
)
def test_precheck_lets_ordinary_expressions_through(expr: str) -> None:
    assert precheck_functions(expr) is None


def test_precheck_accepts_every_shipped_expression() -> None:
    """The generated default catalog and the catalogs under conf/constraints use only allowed functions."""
    mv_table = conf_loader.metadata_versions()
    docs = [(f"conf/kafka/{r}.yaml", d) for r, d in conf_loader.kafka_catalog_documents()]
    exprs = [c.expr for c in generate_default_catalog(docs, mv_table).constraints if c.expr]
    for path in sorted((ROOT / "conf" / "constraints").glob("*.yaml")):
        exprs += [c.expr for c in conf_loader.constraint_catalog(str(path)).constraints if c.expr]
    assert len(exprs) > 50
    assert [e for e in exprs if precheck_functions(e) is not None] == []


def test_a_user_catalog_calling_java_method_is_refused_when_loaded(tmp_path: Path) -> None:
    catalog = tmp_path / "evil.yaml"
    catalog.write_text(_expr_catalog(HOSTILE["java-method-getenv"]), encoding="utf-8")
    with pytest.raises(
        ConfigError, match=r"evil.yaml: constraint rule-x: expr calls java_method\(\), which calls Java"
    ):
        conf_loader.constraint_catalog(str(catalog))


@pytest.mark.spark
@pytest.mark.parametrize("expr", [*HOSTILE.values(), *PARSER_ONLY.values()], ids=[*HOSTILE, *PARSER_ONLY])
def test_validation_refuses_hostile_calls_on_the_parse_tree(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog], expr: str
) -> None:
    rules = compile_yaml(**{"team.yaml": _expr_catalog(expr)})
    with pytest.raises(ConfigError, match=r"^team.yaml: constraint rule-x: expr (calls|uses) "):
        validate_with_spark(rules, spark)


@pytest.mark.spark
def test_a_trailing_comment_is_validated_and_evaluated_as_written(
    spark: Any, compile_yaml: Callable[..., CompiledCatalog], outcomes_of: Callable[..., dict[str, int]]
) -> None:
    """#16 item 5: ``-- comment`` at the end of an expression no longer comments out the rest of the generated
    column."""
    rules = compile_yaml(
        """
constraints:
  - {id: first, resource: topic, configs: [a], expr: "cast(value as int) > 1 -- at least two"}
  - {id: second, resource: topic, configs: [a], expr: "value = 'x' /* a block */"}
  - {id: third, resource: topic, configs: [a], expr: "topic.partitions = 3"}
"""
    )
    validate_with_spark(rules, spark)
    by_id = outcomes_of(rules, {"a": "5"}, (3, 3, False))
    assert by_id == {"first": OUTCOME_HOLDS, "second": OUTCOME_FALSE, "third": OUTCOME_HOLDS}


def _registry(spark: Any) -> dict[str, str]:
    return {f.name: f.className or "" for f in spark.catalog.listFunctions() if f.catalog is None or f.isTemporary}


@pytest.mark.spark
def test_every_registry_function_is_allowed_or_denied(spark: Any) -> None:
    """A new Spark release adding a function fails here until someone decides where it belongs."""
    registry = set(_registry(spark))
    assert len(registry) > 400
    assert sorted(registry - ALLOWED_FUNCTIONS - DENIED_FUNCTIONS) == []
    assert sorted(ALLOWED_FUNCTIONS - registry) == []  # no stale names that would pass a future UDF of that name


def _jvm_class(spark: Any, name: str) -> Any:
    jvm = spark.sparkContext._jvm
    for candidate in (name, name + "$"):
        try:
            return jvm.java.lang.Class.forName(candidate)
        except Exception:  # py4j raises a generic error for a missing class
            continue
    return None


@pytest.mark.spark
def test_no_allowed_function_is_of_a_dangerous_class(spark: Any) -> None:
    jvm = spark.sparkContext._jvm
    expressions = "org.apache.spark.sql.catalyst.expressions."
    dangerous_kinds = {
        "generator": jvm.java.lang.Class.forName(expressions + "Generator"),
        "aggregate": jvm.java.lang.Class.forName(expressions + "aggregate.AggregateFunction"),
        "window": jvm.java.lang.Class.forName(expressions + "WindowFunction"),
        "nondeterministic": jvm.java.lang.Class.forName(expressions + "Nondeterministic"),
    }
    dangerous_classes = {"CallMethodViaReflection", "TryReflect", "CurrentUser", "InputFileName", "Uuid", "Rand"}
    registry = _registry(spark)
    checked = 0
    for name, class_name in sorted(registry.items()):
        simple = class_name.rsplit(".", 1)[-1]
        if simple in dangerous_classes:
            assert name in DENIED_FUNCTIONS, f"{name} ({simple}) must be denied"
        if name not in ALLOWED_FUNCTIONS or not class_name:
            continue
        cls = _jvm_class(spark, class_name)
        if cls is None:
            continue
        kinds = [kind for kind, base in dangerous_kinds.items() if base.isAssignableFrom(cls)]
        assert kinds == [], f"allowed function {name} is a {kinds} ({class_name})"
        checked += 1
    assert checked > 300
    assert "java_method" in DENIED_BY_REASON["calls Java methods by reflection"]
