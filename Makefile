# One Makefile for humans and CI. `make demo` and `make test` set everything up first.
PY := .venv/bin/python
SPARK_QUIET := SPARK_LOCAL_IP=127.0.0.1
# pytest workers for `make test` (each has its own local Spark); a module's tests stay on one worker (--dist
# loadfile), so module-scoped fixtures (a whole pipeline, a standalone cluster) are built once.
TEST_WORKERS ?= 2

.PHONY: setup demo notebook test test-unit test-integration test-system test-fast lint fmt typecheck bench bench-all fuzz package clean

setup:
	@./scripts/setup.sh

demo: setup
	$(SPARK_QUIET) .venv/bin/kraft-audit demo

# Executes the dashboard notebook against $KRAFT_AUDIT_WAREHOUSE (default ./warehouse, e.g. from `make demo`);
# the executed copy goes to out/ (ignored by git), the committed notebook stays without outputs.
notebook: setup
	$(SPARK_QUIET) $(PY) scripts/run_notebook.py notebooks/dashboard.ipynb out/dashboard.ipynb

# Lint runs beside the tests rather than before them: mypy is one process on one core for about 13 s, while the
# workers' start (imports, collection, their JVMs) leaves the other core partly idle. The target fails if either
# fails; lint's output is printed after the tests'.
test: setup
	@lint_log=$$(mktemp); $(MAKE) --no-print-directory lint >"$$lint_log" 2>&1 & lint_pid=$$!; \
	$(SPARK_QUIET) $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder; tests=$$?; \
	wait $$lint_pid; linted=$$?; cat "$$lint_log"; rm -f "$$lint_log"; \
	[ $$linted -eq 0 ] || echo "make test: lint failed" >&2; \
	[ $$tests -eq 0 ] && [ $$linted -eq 0 ]

# The tiers (tests/conftest.py): unit never starts Spark (seconds), integration runs on one shared session,
# system runs spark-submit, a standalone cluster, the notebook, a browser, the real-metadata corpus, the benchmark.
test-unit: setup
	$(PY) -m pytest -q -m unit

test-integration: setup
	$(SPARK_QUIET) $(PY) -m pytest -q -m integration -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

test-system: setup
	$(SPARK_QUIET) $(PY) -m pytest -q -m system -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

test-fast: setup
	$(SPARK_QUIET) $(PY) -m pytest -q -m "not system" -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy

fmt: setup
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

bench: setup
	$(SPARK_QUIET) $(PY) -m benchmarks.run --sizes S

bench-all: setup
	$(SPARK_QUIET) $(PY) -m benchmarks.run --sizes GATE,S,M,L

# The full fuzz campaign over every decoder (tests/fuzz): FUZZ_COUNT inputs per target, replayable from FUZZ_SEED.
# The suite runs a bounded form of it (tests/transforms/test_fuzz_bounded.py).
FUZZ_COUNT ?= 20000
FUZZ_SEED ?= 16
fuzz: setup
	$(PY) -m tests.fuzz --count $(FUZZ_COUNT) --seed $(FUZZ_SEED)

# dist/kraft_audit-<version>-py3-none-any.whl and dist/kraft_audit.zip (the same files, for spark-submit --py-files):
# jobs, transforms, schemas, synthetic, with conf/ inside as jobs/conf. Offline: uses what `make setup` installed.
package: setup
	PY=$(PY) ./scripts/package.sh dist

clean:
	rm -rf dist build warehouse .pytest_cache .mypy_cache .ruff_cache

# Kafka as the oracle (issue #60, oracle/): real releases' jars fetched once with Maven into
# ~/.cache/kraft-audit/kafka (KRAFT_AUDIT_KAFKA_CACHE), outside the repository; Kafka's answers per scenario and
# release go to out/oracle/<scenario>/<version>/ (kafka.json, server.properties, __cluster_metadata-0).
KAFKA_VERSIONS ?= 3.9.1 4.2.0 4.4.0
# Every published line of 3.7-4.4 (newest patch): their config definitions are committed under
# tests/data/kafka-oracle/configdefs/ and compared with conf/kafka/ by the suite.
CONFIGDEF_VERSIONS ?= 3.7.2 3.9.1 4.0.2 4.1.2 4.2.0 4.3.1 4.4.0
.PHONY: kafka-runtime kafka-oracle kafka-fixtures kafka-configdefs
kafka-runtime:
	@./scripts/kafka-oracle/fetch.sh $(KAFKA_VERSIONS)

# Run every scenario on every release, then compare kraft-audit with what Kafka answered (exit 1 on a disagreement).
kafka-oracle: setup kafka-runtime
	$(PY) -m oracle.scenarios $(foreach v,$(KAFKA_VERSIONS),--release $(v))
	$(PY) -m oracle.summary out/oracle
	$(PY) -m oracle.fixtures out/oracle out/oracle-fixtures
	$(SPARK_QUIET) $(PY) -m oracle.compare out/oracle-fixtures

# The golden fixtures the suite compares with (tests/oracle/test_kafka_agrees.py), regenerated from the brokers of
# every published line.
kafka-fixtures: setup
	@./scripts/kafka-oracle/fetch.sh $(CONFIGDEF_VERSIONS)
	rm -rf out/oracle
	$(PY) -m oracle.scenarios $(foreach v,$(CONFIGDEF_VERSIONS),--release $(v))
	$(PY) -m oracle.fixtures out/oracle tests/data/kafka-oracle/scenarios
	$(PY) -m oracle.dumplog tests/data/kafka-oracle/scenarios

kafka-configdefs: setup
	@./scripts/kafka-oracle/fetch.sh $(CONFIGDEF_VERSIONS)
	$(PY) -m oracle.configdefs $(CONFIGDEF_VERSIONS) --write tests/data/kafka-oracle/configdefs
