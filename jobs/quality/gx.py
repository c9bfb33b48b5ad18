"""Great Expectations behind one small runner: an ephemeral context, a Spark datasource, Data Docs on disk.

GX is imported on first use (it takes seconds; ``prefetch`` starts that import in the background). One runner
per warehouse and process keeps the context, so the Data Docs of a pipeline's stages share one index.

Validation is two-pass. The first pass is ``BOOLEAN_ONLY``: GX then computes a table's row count and, in one
bundled aggregate, the unexpected counts of all its single-column expectations (``BASIC`` would also plan one
``limit`` query per expectation for failing values); the row count of a frame the driver holds comes from its plan,
and that of a frame the caller has just written from the table's log (``held_row_counts``). Failing expectations
alone are validated again as ``SUMMARY``, for their counts, a few failing values and the keys of failing rows
(``TableSuite.row_keys``, never value columns). Each pass reads the frame as it is given: GX does not cache it
(``persist=False``), the caller holds what is expensive to compute.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import os
import sys
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar
from urllib.parse import urlparse

from pyspark.sql import DataFrame

from jobs.runtime.holding import held_rows
from schemas.quality import Expectation
from transforms.quality.suites import TableSuite

log = logging.getLogger("kraft_audit")

DOCS_DIR = "dq/data-docs"
EXAMPLES = 5
_SITE = "kraft_audit"
_DATASOURCE = "kraft_audit"

_prefetched: list[threading.Thread] = []


def guard_spark_connect_import() -> None:
    """Keep Great Expectations' import from ending the process where ``__main__`` has no file.

    GX imports ``pyspark.sql.connect``, whose ``check_dependencies`` takes a ``__main__`` without ``__spec__`` and
    ``__file__`` (``python -c``, a pytest-xdist worker, some launchers) for a doctest run and calls ``sys.exit(0)``
    when grpc is missing; elsewhere the same import raises ImportError, which GX handles. Where Spark Connect cannot
    load anyway (no grpc), make that import fail the ordinary way. Classic PySpark, which the jobs use, is untouched.
    """
    main = sys.modules.get("__main__")
    looks_like_doctest = main is not None and getattr(main, "__spec__", None) is None and not hasattr(main, "__file__")
    connect_unusable = importlib.util.find_spec("grpc") is None
    if looks_like_doctest and connect_unusable and "pyspark.sql.connect" not in sys.modules and not hasattr(sys, "ps1"):
        sys.modules["pyspark.sql.connect"] = None  # type: ignore[assignment]  # `import` now raises ImportError


def prefetch() -> None:
    """Start importing Great Expectations in a daemon thread (Spark work meanwhile releases the GIL).

    The packages GX shares with the rest of the job (pandas, numpy, pyarrow) are imported here first, on the
    calling thread: two threads importing one package at the same time can see it half initialised. So are the
    deprecated ``sre_*`` aliases GX imports, silently: a warning raised in another thread bypasses the caller's
    warning filters (pytest's, for one) and lands on stderr.
    """
    if not _prefetched:
        guard_spark_connect_import()
        for shared in ("numpy", "pyarrow", "pandas"):
            importlib.import_module(shared)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            for deprecated in ("sre_constants", "sre_parse"):
                importlib.import_module(deprecated)
        thread = threading.Thread(target=_import_gx, daemon=True)
        thread.start()
        _prefetched.append(thread)


def _import_gx() -> None:
    importlib.import_module("great_expectations")
    logging.captureWarnings(False)


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one expectation on one table."""

    table: str
    spec: Expectation
    success: bool
    element_count: int | None = None
    unexpected_count: int | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        """One clause naming the table, the expectation and what failed."""
        if self.unexpected_count is None:
            what = "failed"
        else:
            total = f" of {self.element_count}" if self.element_count is not None else ""
            what = f"failed for {self.unexpected_count}{total} row(s)"
        shown: Any = self.details.get("failing_rows") or self.details.get("examples") or self.details.get("exception")
        if not shown and "observed_value" in self.details:
            shown = f"observed {self.details['observed_value']}"
        text = shown if isinstance(shown, str) else json.dumps(shown, default=str) if shown else ""
        example = f", e.g. {text[:200]}" if text else ""
        return f"{self.table}: {self.spec.check_id} ({self.spec.description}) {what}{example}"


@contextmanager
def held_row_counts(known: int | None = None) -> Iterator[None]:
    """Inside, GX counts the rows of a frame the driver holds (a local relation), or whose rows the caller knows
    (``known``: e.g. from the log of the table the frame was just written to), without a Spark job.

    Every column expectation depends on the table's row count: GX computes it in an aggregate of its own, a wave
    before the row conditions and their unexpected counts (``ValidationGraph._resolve``, and the dependencies of
    ``ColumnMapMetricProvider``, great_expectations 1.x), so a table is two Spark jobs. The frames a small run
    holds are local relations whose size the plan knows: here a bundle of GX's that holds only row counts is
    answered from the plan (``jobs.runtime.holding.held_rows``) and every other bundle, or a frame that is not held,
    goes to GX's own ``SparkDFExecutionEngine.resolve_metric_bundle``. Scoped, not global: a GX user elsewhere in the
    process (the benchmark's peer) runs GX as shipped. ``tests/jobs/test_quality.py`` counts the jobs of one table
    and compares the outcome with GX's as shipped, so a GX release that changes either is noticed. ``known`` answers
    only a count of the whole table (a domain without a row condition or filter).
    """
    from great_expectations.execution_engine import SparkDFExecutionEngine

    shipped = SparkDFExecutionEngine.resolve_metric_bundle

    def resolve(engine: Any, metric_fn_bundle: Any) -> Any:
        bundle = list(metric_fn_bundle)
        counts: dict[Any, int] = {}
        for computed in bundle:
            metric = computed.metric_configuration
            if metric.metric_name != "table.row_count":
                return shipped(engine, bundle)
            domain = computed.compute_domain_kwargs or {}
            rows = held_rows(engine.get_domain_records(domain_kwargs=domain))
            if rows is None and known is not None and _whole_table(domain):
                rows = known
            if rows is None:
                return shipped(engine, bundle)
            counts[metric.id] = rows
        return counts if counts else shipped(engine, bundle)

    SparkDFExecutionEngine.resolve_metric_bundle = resolve  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        SparkDFExecutionEngine.resolve_metric_bundle = shipped  # type: ignore[method-assign]


def _whole_table(domain: Mapping[str, Any]) -> bool:
    """Whether GX's domain is the batch's every row: no row condition, no filter of its own."""
    return not domain.get("row_condition") and not domain.get("filter_conditions")


@contextmanager
def quiet_gx() -> Iterator[None]:
    """Keep the run's output to our lines while GX works.

    GX logs about its own machinery at INFO and WARNING, and several of its modules call
    ``logging.captureWarnings(True)`` when imported, which turns every warning of the process into a log record;
    warnings go back to the ``warnings`` module afterwards.
    """
    logger = logging.getLogger("great_expectations")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)
        logging.captureWarnings(False)


def docs_directory(warehouse: str) -> str | None:
    """``<warehouse>/dq/data-docs`` for a local (or ``file:``) warehouse; None for object stores."""
    parsed = urlparse(warehouse)
    if parsed.scheme == "file":
        return os.path.join(parsed.path, DOCS_DIR)
    if parsed.scheme == "":
        return os.path.join(warehouse, DOCS_DIR)
    return None


class GxRunner:
    """Validates DataFrames with table suites and renders the results as Data Docs."""

    _by_warehouse: ClassVar[dict[str, GxRunner]] = {}

    def __init__(self, docs_dir: str | None) -> None:
        guard_spark_connect_import()
        import great_expectations as gx
        from great_expectations.data_context.types.base import (
            DataContextConfig,
            InMemoryStoreBackendDefaults,
            ProgressBarsConfig,
        )

        sites: dict[str, Any] = {}
        if docs_dir is not None:
            sites[_SITE] = {
                "class_name": "SiteBuilder",
                "store_backend": {"class_name": "TupleFilesystemStoreBackend", "base_directory": docs_dir},
                "site_index_builder": {"class_name": "DefaultSiteIndexBuilder", "show_how_to_buttons": False},
            }
        config = DataContextConfig(
            store_backend_defaults=InMemoryStoreBackendDefaults(init_temp_docs_sites=False),
            data_docs_sites=sites,
            analytics_enabled=False,
            progress_bars=ProgressBarsConfig(globally=False),
        )
        self.docs_dir = docs_dir
        self.context = gx.get_context(project_config=config, mode="ephemeral")
        # persist=False: GX's Spark datasource persists every DataFrame it is given by default (and never releases
        # it). Building that cache cost more than the pass it saves: the L gold check of 5.8 M effective rows took
        # 21-24 s cached and 13-14 s reading the held frame again in each pass. A frame that is expensive to compute
        # is held by the job that checks it.
        self.datasource = self.context.data_sources.add_spark(name=_DATASOURCE, persist=False)
        self._pending: list[Any] = []
        self._suite_names: set[str] = set()

    @classmethod
    def for_warehouse(cls, warehouse: str) -> GxRunner:
        """The runner of this warehouse in this process (created, and GX imported, on first use)."""
        if warehouse not in cls._by_warehouse:
            docs_dir = docs_directory(warehouse)
            if docs_dir is None:
                log.warning("  data quality: Data Docs are written for local warehouses only, not %s", warehouse)
            with quiet_gx():
                cls._by_warehouse[warehouse] = cls(docs_dir)
        return cls._by_warehouse[warehouse]

    def validate(
        self, table_suite: TableSuite, df: DataFrame, *, run_id: str, run_ts: datetime, known_rows: int | None = None
    ) -> list[CheckResult]:
        """Validate one table (see the module docstring); the result is kept for the Data Docs. ``known_rows``: the
        rows of ``df`` when the caller knows them (``held_row_counts``)."""
        from great_expectations.core.run_identifier import RunIdentifier
        from great_expectations.data_context.types.resource_identifiers import (
            ExpectationSuiteIdentifier,
            ValidationResultIdentifier,
        )

        specs = {spec.check_id: spec for spec in table_suite.expectations}
        suite = self._suite(table_suite, list(specs.values()))
        batch = self._batch(table_suite.table, table_suite.prepare(df))
        with held_row_counts(known_rows):
            result = batch.validate(suite, result_format="BOOLEAN_ONLY")
        failed = [specs[_check_id(r)] for r in result.results if not r.success]
        if failed:
            self._add_details(result, table_suite, batch, failed, known_rows)
        for r in result.results:
            if r.success and not r.result and specs[_check_id(r)].is_row_level:
                # What BOOLEAN_ONLY leaves out but a strict pass implies (Data Docs would say "unknown %")
                r.result = {"unexpected_count": 0, "unexpected_percent": 0.0, "partial_unexpected_list": []}

        gx_run_id = RunIdentifier(run_name=run_id, run_time=run_ts)
        result.meta["run_id"] = gx_run_id
        result.meta["validation_time"] = run_ts
        key = ValidationResultIdentifier(
            expectation_suite_identifier=ExpectationSuiteIdentifier(name=suite.name),
            run_id=gx_run_id,
            batch_identifier=batch.id,
        )
        self.context.validation_results_store.set(key, result)
        self._pending.append(key)
        order = {check_id: i for i, check_id in enumerate(specs)}
        ordered = sorted(result.results, key=lambda r: order[_check_id(r)])  # GX returns them in its own order
        return [_check_result(table_suite.table, specs[_check_id(r)], r) for r in ordered]

    def build_docs(self) -> str | None:
        """Render the results validated since the last build, and the index; the index path."""
        if self.docs_dir is None:
            return None
        if self._pending:
            self.context.build_data_docs(site_names=[_SITE], resource_identifiers=self._pending)
            self._pending = []
        return os.path.join(self.docs_dir, "index.html")

    def _suite(self, table_suite: TableSuite, specs: Sequence[Expectation]) -> Any:
        """A fresh suite registered with all its expectations at once.

        (Adding expectations one by one to a registered suite re-serialises the whole suite every time.)
        """
        import great_expectations as gx

        name = f"{table_suite.stage}.{table_suite.table}"
        if name in self._suite_names:
            self.context.suites.delete(name)
        self._suite_names.add(name)
        return self.context.suites.add(gx.ExpectationSuite(name=name, expectations=[_gx(s) for s in specs]))

    def _batch(self, table: str, df: DataFrame) -> Any:
        names = {asset.name for asset in self.datasource.assets}
        asset = self.datasource.get_asset(table) if table in names else self.datasource.add_dataframe_asset(table)
        definitions = {d.name for d in asset.batch_definitions}
        definition = (
            asset.get_batch_definition("whole")
            if "whole" in definitions
            else asset.add_batch_definition_whole_dataframe("whole")
        )
        return definition.get_batch(batch_parameters={"dataframe": df})

    def _add_details(
        self,
        result: Any,
        table_suite: TableSuite,
        batch: Any,
        failed: Sequence[Expectation],
        known_rows: int | None,
    ) -> None:
        import great_expectations as gx

        suite = gx.ExpectationSuite(name=f"{table_suite.stage}.{table_suite.table}.failures")
        for spec in failed:
            suite.add_expectation(_gx(spec))
        result_format: dict[str, Any] = {"result_format": "SUMMARY", "partial_unexpected_count": EXAMPLES}
        keys = [k for k in table_suite.row_keys if k in table_suite.schema.names]
        if keys:
            result_format["unexpected_index_column_names"] = keys
        with held_row_counts(known_rows):
            detailed = {_check_id(r): r for r in batch.validate(suite, result_format=result_format).results}
        result.results = [detailed.get(_check_id(r), r) for r in result.results]


def _check_id(result: Any) -> str:
    return str(result.expectation_config.meta["check_id"])


def _gx(spec: Expectation) -> Any:
    """The GX expectation object of a spec (its criticality as GX severity, our id in ``meta``)."""
    import great_expectations.expectations as gxe

    expectation_class = getattr(gxe, "".join(part.capitalize() for part in spec.kind.split("_")))
    return expectation_class(
        **spec.kwargs,
        severity=spec.criticality,
        meta={"check_id": spec.check_id, "criticality": spec.criticality},
        notes=spec.description,
    )


def _check_result(table: str, spec: Expectation, result: Any) -> CheckResult:
    body = dict(result.result or {})
    details: dict[str, Any] = {k: body[k] for k in ("observed_value", "unexpected_percent") if body.get(k) is not None}
    if body.get("partial_unexpected_list"):
        details["examples"] = body["partial_unexpected_list"][:EXAMPLES]
    index_list = body.get("partial_unexpected_index_list") or body.get("unexpected_index_list")
    if index_list:
        details["failing_rows"] = index_list[:EXAMPLES]
    info = result.exception_info or {}
    if info.get("raised_exception"):
        details["exception"] = " ".join(str(info.get("exception_message") or "").split())[:300]
    success = bool(result.success)
    unexpected = _int(body.get("unexpected_count"))
    if success and unexpected is None and spec.is_row_level:
        unexpected = 0  # a BOOLEAN_ONLY pass of a strict (no `mostly`) row-level expectation
    return CheckResult(table, spec, success, _int(body.get("element_count")), unexpected, details)


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
