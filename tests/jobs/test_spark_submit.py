"""``make package`` and ``spark-submit jobs/run.py`` end to end on a real standalone cluster, whose tables must equal
those of the same job run in local mode (by the CLI, in this worker's session).

The package is built by the script ``make package`` calls (scripts/package.sh). The cluster is pyspark's own: a
master and two workers started with ``sbin/spark-daemon.sh`` (what Spark's start-master.sh / start-worker.sh call;
the pip package ships only spark-daemon.sh) on 127.0.0.1 with free ports, logs, pids and work dirs under tmp. Jobs
run from a folder outside the checkout with a relative ``--warehouse``, the code coming only from the zip given to
``--py-files``: nothing can lean on the checkout's paths, on a shared process, or on the editable install.
The scenario is tests/data/e2e/cluster.jsonl with its two hand-written catalogs (see test_audit_e2e.py): at 4.4-IV1
it has five error violations, so the job exits 1.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cramjam
import pyspark
import pytest
from deltalake import DeltaTable
from pyspark.sql import SparkSession

from jobs import conf_loader
from jobs.audit_steps.summarize import code_fingerprint
from jobs.cli import main as cli_main
from jobs.runtime.session import DELTA_EXCLUDED, DELTA_PACKAGE
from tests.short_jvm import FAST_JVM

pytestmark = pytest.mark.system

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "e2e"
SPARK_HOME = Path(pyspark.__file__).resolve().parent
# spark-submit's Ivy cache for --packages: shared by the runs of this module and kept between test runs
IVY_CACHE = Path(os.environ.get("KRAFT_AUDIT_IVY_CACHE", Path.home() / ".cache" / "kraft-audit" / "ivy"))
JOB_FILES = ("ingest", "audit", "run", "gate", "simulate", "report", "demo", "synth", "cli")
EXPECTED_VIOLATIONS = sorted(
    [
        ("TOPIC", "t1", "min.insync.replicas", "topic-min-isr-not-above-rf"),
        ("GROUP", "g1", "consumer.session.timeout.ms", "group-session-timeout-max"),
        ("BROKER", "1", "log.segment.bytes", "broker-log-segment-bytes-3mib"),
        ("BROKER", "2", "log.segment.bytes", "broker-log-segment-bytes-3mib"),
        ("BROKER", "1", "log.retention.ms", "broker-log-retention-at-least-7-days"),
    ]
)
# Columns that differ between two runs of the same job by design (ids and clocks).
PER_RUN_COLUMNS = frozenset(
    {"run_id", "run_ts", "ingest_id", "ingested_at", "duration_ms"}
    | {"first_seen_run_id", "first_seen_ts", "last_seen_run_id", "last_seen_ts", "resolved_run_id", "resolved_ts"}
    | {"applied_run_id", "applied_run_ts"}  # violation_status: the runs that saw it
)
INGEST_IDS = re.compile(r'"ingest_ids": \[[^\]]*\]')


@dataclass(frozen=True)
class Submitted:
    """One finished spark-submit run."""

    returncode: int
    stdout: str
    stderr: str
    cwd: Path
    warehouse: Path
    summary: dict[str, Any]
    properties: dict[str, str]  # the Spark properties the application ran with (from its event log)


def child_env(tmp: Path) -> dict[str, str]:
    """The environment of every child: this interpreter on driver and executors, nothing from a Spark conf dir."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYSPARK_GATEWAY", "SPARK_"))}
    env.pop("PYTHONPATH", None)
    conf_dir = tmp / "spark-conf"  # empty: no spark-defaults.conf or log4j file of the machine gets in
    conf_dir.mkdir(exist_ok=True)
    env.update(
        SPARK_HOME=str(SPARK_HOME),
        SPARK_CONF_DIR=str(conf_dir),
        SPARK_LOCAL_IP="127.0.0.1",
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
        # absent until the first run creates it (with the stdlib `secrets`, which no job module may shadow)
        KRAFT_AUDIT_KEY_FILE=str(tmp / "redaction.key"),
    )
    env.pop("KRAFT_AUDIT_REDACTION_KEY", None)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("spark-submit")


@pytest.fixture(scope="module")
def package(tmp: Path) -> Path:
    """``make package`` into a temporary dist folder (same script, this interpreter, no network)."""
    dist = tmp / "dist"
    result = subprocess.run(
        [str(REPO / "scripts" / "package.sh"), str(dist)],
        env={**os.environ, "PY": sys.executable},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(dist / "kraft_audit.zip")
    return dist


def job_args(warehouse: str, summary: str) -> list[str]:
    """The ``run`` job's arguments (after the job file): the e2e scenario at 4.4-IV1 with its two catalogs."""
    return [
        *("--input", str(DATA / "cluster.jsonl"), "--cluster-id", "e2e", "--target-mv", "4.4-IV1"),
        *("--no-default-constraints", "--constraints", str(DATA / "base-rules.yaml")),
        *("--constraints", str(DATA / "segment-rule.yaml"), "--warehouse", warehouse, "--summary-json", summary),
    ]


def spark_submit(package: Path, tmp: Path, name: str, master: str, *conf: str) -> Submitted:
    """``spark-submit --py-files kraft_audit.zip <checkout>/jobs/run.py ...`` from a new folder outside the checkout."""
    cwd = tmp / name
    cwd.mkdir()
    events = cwd / "events"
    events.mkdir()
    command = [
        str(SPARK_HOME / "bin" / "spark-submit"),
        "--master",
        master,
        "--name",
        f"kraft-audit-{name}",
        "--py-files",
        str(package / "kraft_audit.zip"),
        # as the README says: a 1 GiB driver (spark-submit's default) ran out of heap writing the event log
        "--driver-memory",
        "2g",
        # Delta Lake as users add it (README): resolved by spark-submit's Ivy from Maven Central, cached between runs
        "--packages",
        DELTA_PACKAGE,
        # what Spark ships itself: Ivy would take their POMs from ~/.m2 (Maven's set-up fetched them) without a jar
        "--exclude-packages",
        DELTA_EXCLUDED,
        "--conf",
        f"spark.jars.ivy={IVY_CACHE}",
        "--conf",
        "spark.ui.enabled=false",
        # C1 only: a third less CPU for these short JVMs; the job must add its UTC zone to the executors' options
        "--driver-java-options",
        FAST_JVM,
        "--conf",
        f"spark.executor.extraJavaOptions={FAST_JVM}",
        # a setting of the submitter's that the job must keep (local mode would otherwise get the job's default, 8)
        "--conf",
        "spark.sql.shuffle.partitions=3",
        "--conf",
        "spark.eventLog.enabled=true",
        "--conf",
        f"spark.eventLog.dir={events}",
        "--conf",
        "spark.eventLog.compress=false",
        *conf,
        str(REPO / "jobs" / "run.py"),
        *job_args("warehouse", "summary.json"),
    ]
    result = subprocess.run(
        command, cwd=cwd, env=child_env(tmp), capture_output=True, text=True, timeout=900, check=False
    )
    summary_file = cwd / "summary.json"
    assert summary_file.exists(), f"{result.stdout[-3000:]}\n--- stderr ---\n{result.stderr[-3000:]}"
    return Submitted(
        returncode=result.returncode,
        stdout=result.stdout,
        stderr=result.stderr,
        cwd=cwd,
        warehouse=cwd / "warehouse",
        summary=json.loads(summary_file.read_text()),
        properties=event_log_properties(events),
    )


def event_log_properties(events: Path) -> dict[str, str]:
    """The "Spark Properties" an application logged at start (plain or zstd event log, rolled or not)."""
    for path in sorted(events.rglob("*")):
        if not path.is_file() or path.name.startswith((".", "appstatus")):
            continue
        raw = path.read_bytes()
        text = bytes(cramjam.zstd.decompress(raw)).decode() if path.suffix == ".zstd" else raw.decode()
        for line in text.splitlines():
            event = json.loads(line)
            if event.get("Event") == "SparkListenerEnvironmentUpdate":
                return dict(event["Spark Properties"])
    raise AssertionError(f"no environment update in the event log under {events}")


def delta_rows(table: Path) -> list[tuple[str, ...]]:
    """A Delta table's rows read by delta-rs, without the per-run columns, sorted."""
    data = DeltaTable(str(table)).to_pyarrow_table()
    columns = [c for c in data.column_names if c not in PER_RUN_COLUMNS]
    return sorted(tuple(_without_ingest_ids(repr(row[c])) for c in columns) for row in data.select(columns).to_pylist())


def _without_ingest_ids(text: str) -> str:
    """dq_results' details name the ingests a bronze check covered; their ids are per run, their number is not."""
    return INGEST_IDS.sub(lambda m: f'"ingest_ids": <{len(re.findall("[0-9a-f]{32}", m.group(0)))} ids>', text)


def delta_tables(warehouse: Path) -> set[str]:
    return {p.parent.name for p in warehouse.glob("*/_delta_log")}


# -- the package ----------------------------------------------------------------------------------------------------
def test_the_zip_holds_the_four_packages_and_conf_and_nothing_else(package: Path) -> None:
    names = zipfile.ZipFile(package / "kraft_audit.zip").namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"jobs", "transforms", "schemas", "synthetic", "kraft_audit-0.1.0.dist-info"}
    shipped_conf = {name.removeprefix("jobs/conf/") for name in names if name.startswith("jobs/conf/")}
    checkout_conf = {p.relative_to(REPO / "conf").as_posix() for p in (REPO / "conf").rglob("*") if p.is_file()}
    assert shipped_conf == checkout_conf
    assert {"jobs/cli.py", "jobs/storage/store.py", "transforms/decode/files.py", "schemas/errors.py"} <= set(names)
    assert {"synthetic/fleet.py", "transforms/decode/binary/encode_fast.py"} <= set(names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert [p.name for p in package.glob("*.whl")] == ["kraft_audit-0.1.0-py3-none-any.whl"]


def probe(tmp: Path, pythonpath: Path) -> dict[str, Any]:
    """Where conf comes from and what it holds, for the code found on ``pythonpath`` (run outside the checkout)."""
    code = (
        "import json; import jobs; from jobs import conf_loader as c\n"
        "from jobs.audit_steps.summarize import code_fingerprint\n"
        "print(json.dumps({'jobs': jobs.__file__, 'conf': str(c.CONF_DIR),"
        " 'releases': [r for r, _ in c.kafka_catalog_documents()],"
        " 'levels': len(c.metadata_versions().levels), 'catalogs': c.catalog_fingerprint([]),"
        " 'code': code_fingerprint()}))"
    )
    env = {**child_env(tmp), "PYTHONPATH": str(pythonpath)}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


def checkout_probe() -> dict[str, Any]:
    return {
        "releases": [r for r, _ in conf_loader.kafka_catalog_documents()],
        "levels": len(conf_loader.metadata_versions().levels),
        "catalogs": conf_loader.catalog_fingerprint([]),
        "code": code_fingerprint(),
    }


def test_code_run_from_the_zip_reads_the_conf_inside_it(package: Path, tmp: Path) -> None:
    zip_path = package / "kraft_audit.zip"
    seen = probe(tmp, zip_path)
    assert seen["jobs"] == f"{zip_path}/jobs/__init__.py"
    assert seen["conf"].startswith(f"{zip_path}/jobs/conf")
    assert {k: seen[k] for k in ("releases", "levels", "catalogs", "code")} == checkout_probe()


def test_the_installed_wheel_reads_the_conf_it_ships(package: Path, tmp: Path) -> None:
    site = tmp / "site"
    wheel = next(package.glob("*.whl"))
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index", "--target", str(site), str(wheel)]
    subprocess.run(pip, check=True, capture_output=True, timeout=300)
    seen = probe(tmp, site)
    assert seen["jobs"] == str(site / "jobs" / "__init__.py")
    assert seen["conf"] == str(site / "jobs" / "conf")
    assert {k: seen[k] for k in ("releases", "levels", "catalogs", "code")} == checkout_probe()


def test_every_job_file_runs_as_a_script_with_its_imports_from_the_zip(package: Path, tmp: Path) -> None:
    """``python jobs/<name>.py`` puts jobs/ first on sys.path, as spark-submit does; nothing may load from there."""
    env = {**child_env(tmp), "PYTHONPATH": str(package / "kraft_audit.zip")}
    checkout_jobs = f"{REPO / 'jobs'}/"

    def run(name: str) -> subprocess.CompletedProcess[str]:
        script = [sys.executable, "-v", str(REPO / "jobs" / f"{name}.py"), "--help"]
        return subprocess.run(script, cwd=tmp, env=env, capture_output=True, text=True, timeout=300, check=False)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = dict(zip(JOB_FILES, pool.map(run, JOB_FILES), strict=True))
    for name, result in results.items():
        assert result.returncode == 0, (name, result.stderr[-3000:])
        assert result.stdout.startswith("usage: kraft-audit " + ("[-h]" if name == "cli" else f"{name} ")), name
        verbose = result.stderr.splitlines()
        assert any(line.startswith("import 'jobs' # <zipimporter") for line in verbose), name
        # -v names every source file it loads: none may come from the checkout's jobs/ (e.g. its secrets.py as
        # the stdlib's `secrets`)
        from_checkout = [line for line in verbose if checkout_jobs in line]
        assert not from_checkout, (name, from_checkout)


# -- the same job in this process: what the cluster's run must give ------------------------------------------------
@dataclass(frozen=True)
class InProcess:
    """The ``run`` job run by the CLI in this process (the suite's local session)."""

    returncode: int
    warehouse: Path
    summary: dict[str, Any]


@pytest.fixture(scope="module")
def local_run(spark: SparkSession, tmp: Path) -> InProcess:
    """The job in local mode, in this worker's session (a spark-submit in local mode would take the standalone
    run's launcher path again, in a JVM of its own); the redaction key is the spark-submit run's (one file)."""
    cwd = tmp / "in-process"
    cwd.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KRAFT_AUDIT_KEY_FILE", str(tmp / "redaction.key"))
        patch.delenv("KRAFT_AUDIT_REDACTION_KEY", raising=False)
        code = cli_main(["run", *job_args(str(cwd / "warehouse"), str(cwd / "summary.json")), "-q"])
    return InProcess(code, cwd / "warehouse", json.loads((cwd / "summary.json").read_text()))


# -- spark-submit on a standalone cluster ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Cluster:
    master_url: str
    web_url: str
    worker_dirs: tuple[Path, ...]
    logs: Path


def daemon(env: dict[str, str], action: str, daemon_class: str, instance: int, *args: str) -> None:
    command = [str(SPARK_HOME / "sbin" / "spark-daemon.sh"), action, daemon_class, str(instance), *args]
    subprocess.run(command, env=env, check=True, capture_output=True, timeout=120)


def master_state(web_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{web_url}/json/", timeout=10) as response:
        return dict(json.load(response))


def master_urls(logs: Path) -> tuple[str, str] | None:
    """The master's RPC and web UI addresses as its log gives them once bound (None until both are logged). A port
    from ``free_port`` can be taken by another process before the master binds it; Spark then binds the next one,
    so the ports asked for are not always the ones in use (a CI run read another process's page as the master's)."""
    text = "".join(p.read_text(errors="replace") for p in logs.glob("*Master*.out"))
    rpc = re.search(r"Starting Spark master at (spark://\S+)", text)
    web = re.search(r"MasterWebUI.* started at (http://\S+)", text)
    return (rpc.group(1), web.group(1)) if rpc and web else None


def wait_for(condition: Any, what: str, logs: Path, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except OSError:
            pass
        time.sleep(0.5)
    tails = {p.name: p.read_text(errors="replace")[-2000:] for p in logs.glob("*.out")}
    raise AssertionError(f"timed out waiting for {what}: {tails}")


@pytest.fixture(scope="module")
def cluster(tmp: Path) -> Iterator[Cluster]:
    """A master and two workers (1 core, 1 GiB each) on 127.0.0.1; stopped, and their processes gone, afterwards."""
    root = tmp / "cluster"
    logs, pids = root / "logs", root / "pids"
    worker_dirs = (root / "worker-1", root / "worker-2")
    for folder in (logs, pids, *worker_dirs):
        folder.mkdir(parents=True)
    env = {
        **child_env(tmp),
        "SPARK_LOG_DIR": str(logs),
        "SPARK_PID_DIR": str(pids),
        "SPARK_MASTER_HOST": "127.0.0.1",
        "SPARK_DAEMON_MEMORY": "512m",
        "SPARK_DAEMON_JAVA_OPTS": FAST_JVM,
        "SPARK_IDENT_STRING": f"kraft-audit-test-{os.getpid()}",
    }
    master_port, web_port = free_port(), free_port()
    master_class, worker_class = "org.apache.spark.deploy.master.Master", "org.apache.spark.deploy.worker.Worker"
    started: list[tuple[str, int]] = []
    try:
        started.append((master_class, 1))
        daemon(
            env,
            "start",
            master_class,
            1,
            "--host",
            "127.0.0.1",
            "--port",
            str(master_port),
            "--webui-port",
            str(web_port),
        )
        wait_for(lambda: master_urls(logs) is not None, "the master's addresses", logs)
        urls = master_urls(logs)
        assert urls is not None
        master_url, web_url = urls
        wait_for(lambda: master_state(web_url)["status"] == "ALIVE", "the master", logs)
        for instance, work_dir in enumerate(worker_dirs, start=1):
            started.append((worker_class, instance))
            daemon(
                env,
                "start",
                worker_class,
                instance,
                *("--host", "127.0.0.1", "--port", str(free_port()), "--webui-port", str(free_port())),
                *("--cores", "1", "--memory", "1g", "--work-dir", str(work_dir), master_url),
            )
        wait_for(lambda: sum(w["state"] == "ALIVE" for w in master_state(web_url)["workers"]) == 2, "two workers", logs)
        yield Cluster(master_url=master_url, web_url=web_url, worker_dirs=worker_dirs, logs=logs)
    finally:
        stop_daemons(env, pids, started)


def stop_daemons(env: dict[str, str], pids: Path, started: list[tuple[str, int]]) -> None:
    """Stop what this module started (workers first), then make sure none of those processes is left."""
    own = [int(p.read_text().strip()) for p in pids.glob("*.pid")]
    for daemon_class, instance in reversed(started):
        subprocess.run(
            [str(SPARK_HOME / "sbin" / "spark-daemon.sh"), "stop", daemon_class, str(instance)],
            env=env,
            capture_output=True,
            timeout=120,
            check=False,
        )
    deadline = time.monotonic() + 30
    for pid in own:
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def standalone_run(package: Path, tmp: Path, cluster: Cluster) -> Submitted:
    return spark_submit(
        package,
        tmp,
        "standalone",
        cluster.master_url,
        *("--conf", "spark.executor.cores=1", "--conf", "spark.executor.memory=512m"),
        *("--conf", "spark.cores.max=2"),
        # schedule nothing until both executors are up, so tasks run on both workers
        *("--conf", "spark.scheduler.minRegisteredResourcesRatio=1.0"),
    )


def test_spark_submit_writes_the_violations_and_exits_with_the_verdict(standalone_run: Submitted) -> None:
    assert standalone_run.returncode == 1, standalone_run.stderr[-5000:]
    assert "Traceback" not in standalone_run.stderr
    assert "DO NOT upgrade to metadata.version 4.4-IV1" in standalone_run.stdout
    assert standalone_run.summary["violations_by_severity"] == {"error": 5, "warning": 0}
    assert standalone_run.summary["tables"]["violations"] == str(standalone_run.warehouse / "violations")
    violations = DeltaTable(str(standalone_run.warehouse / "violations")).to_pyarrow_table().to_pylist()
    found = sorted((r["resource_type"], r["resource_name"], r["config_name"], r["constraint_id"]) for r in violations)
    assert found == EXPECTED_VIOLATIONS
    assert {r["run_id"] for r in violations} == {standalone_run.summary["run_id"]}


def test_spark_submit_settings_win_over_the_jobs_defaults(
    standalone_run: Submitted, package: Path, cluster: Cluster
) -> None:
    props = standalone_run.properties
    assert props["spark.master"] == cluster.master_url
    assert props["spark.app.name"] == "kraft-audit-standalone"
    assert props["spark.sql.shuffle.partitions"] == "3"  # the job's default is 8
    # the package comes first; spark-submit appends the jars --packages resolved (Delta's) after it
    py_files = props["spark.submit.pyFiles"].split(",")
    assert py_files[0] == str(package / "kraft_audit.zip")
    assert all(f.endswith(".jar") for f in py_files[1:])
    assert props["spark.sql.session.timeZone"] == "UTC"  # what the tables' semantics need is always set
    # Spark puts its module options first; the submitter's options stay, and the job adds its zone after them
    assert props["spark.executor.extraJavaOptions"].endswith(f" {FAST_JVM} -Duser.timezone=UTC")


def test_spark_submit_on_a_standalone_cluster_runs_on_both_workers(standalone_run: Submitted, cluster: Cluster) -> None:
    def finished() -> list[dict[str, Any]]:
        apps = master_state(cluster.web_url)["completedapps"]
        return [a for a in apps if a["name"] == "kraft-audit-standalone" and a["state"] == "FINISHED"]

    wait_for(lambda: len(finished()) == 1, "the application to be reported finished", cluster.logs, timeout=60)
    app_id = finished()[0]["id"]
    for work_dir in cluster.worker_dirs:
        executors = [p for p in (work_dir / app_id).iterdir() if p.is_dir()]
        assert executors, f"no executor of {app_id} ran on {work_dir}"
        for executor in executors:
            # the executor fetched the code zip and ran tasks (its own log, not the driver's)
            assert (executor / "kraft_audit.zip").is_file()
            assert "Running task" in (executor / "stderr").read_text(errors="replace")


@pytest.mark.interpreted  # a 25-record run: compiling generated code costs more than it saves (tests/conftest.py)
def test_the_standalone_run_writes_the_same_delta_tables_as_a_local_run(
    standalone_run: Submitted, local_run: InProcess
) -> None:
    assert local_run.returncode == standalone_run.returncode == 1
    tables = delta_tables(local_run.warehouse)
    assert {"metadata_records", "violations", "effective_configs", "audit_runs", "findings"} <= tables
    assert delta_tables(standalone_run.warehouse) == tables
    for table in sorted(tables):
        local_rows = delta_rows(local_run.warehouse / table)
        assert delta_rows(standalone_run.warehouse / table) == local_rows, table
    assert standalone_run.summary["violations_by_severity"] == local_run.summary["violations_by_severity"]
