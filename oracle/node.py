"""A KRaft node of a fetched release on loopback: combined (``process.roles=broker,controller``, ``node.id=1``), or a
broker only that joins another node's quorum (a scenario's second broker, possibly of another release).

The node lives in a work directory of its own: ``server.properties``, the log4j configuration, ``node.log`` (the
JVM's output) and ``data/`` (``log.dirs``, holding ``__cluster_metadata-0``). It is formatted with the release's
``kafka.tools.StorageTool`` (the same class in 3.x and 4.x), started as a direct child process
(``java ... kafka.Kafka server.properties``, so the pid is the JVM's own, not a wrapper script's), and counted as
started when its broker port accepts connections. The quorum is static (``controller.quorum.voters``), which every
release from 3.x to 4.4 formats without ``--standalone``.

Stopping sends SIGTERM and, after ``STOP_TIMEOUT_S`` (10 s), SIGKILL: a combined node can take over 30 s to finish
a controlled shutdown against its own controller (a lone node of 3.7–4.4 here exits in under a second, code 143).
Killing it loses nothing the harness reads, since the KRaft leader flushes the metadata log before it commits a
record; ``StopResult.how`` records which signal ended it.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from oracle.runtime import Release

JVM_OPTIONS = ("-Xms128m", "-Xmx512m", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true")
FORMAT_TIMEOUT_S = 90
START_TIMEOUT_S = 90
STOP_TIMEOUT_S = 10

LOG4J1 = """log4j.rootLogger=INFO, out
log4j.appender.out=org.apache.log4j.ConsoleAppender
log4j.appender.out.layout=org.apache.log4j.PatternLayout
log4j.appender.out.layout.ConversionPattern=[%d] %p %m (%c)%n
"""

# Command-line tools log only warnings, so their output is what they print.
TOOL_LOG4J1 = LOG4J1.replace("rootLogger=INFO", "rootLogger=WARN")

LOG4J2 = """status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = out
"""
TOOL_LOG4J2 = LOG4J2.replace("rootLogger.level = INFO", "rootLogger.level = WARN")

# The lines of a node's log that explain why it stopped, most specific first.
_FATAL = re.compile(r"Exiting Kafka due to fatal exception|Fatal error|fatal exception", re.IGNORECASE)
_EXCEPTION = re.compile(r"\b[\w.$]+(Exception|Error)\b: .+")


def free_port() -> int:
    """A TCP port on 127.0.0.1 nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def new_cluster_id() -> str:
    """A cluster id as Kafka's ``Uuid.randomUuid().toString()`` prints one (URL-safe base64, no padding).

    Like Kafka's, it never starts with ``-``: StorageTool's argument parser would read such an id as an option.
    """
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cid.startswith("-"):
            return cid


def render_properties(props: dict[str, str]) -> str:
    """``server.properties`` text: one ``key=value`` line per entry, in the given order.

    Values are written as given except for the characters ``java.util.Properties`` treats specially (backslash
    and a leading space), so the node reads back exactly the string in ``props``.
    """
    lines = []
    for key, value in props.items():
        escaped = value.replace("\\", "\\\\")
        if escaped.startswith(" "):
            escaped = "\\" + escaped
        lines.append(f"{key}={escaped}")
    return "\n".join(lines) + "\n"


def base_properties(
    broker_port: int,
    controller_port: int,
    log_dir: Path,
    release: Release,
    *,
    node_id: int = 1,
    voters: str | None = None,
) -> dict[str, str]:
    """What every oracle node runs with before a scenario's static overrides: one replica of everything.

    Without ``voters`` the node is combined (``broker,controller``) and the quorum's only voter, on
    ``controller_port``; with ``voters`` (another node's ``controller.quorum.voters``) it is a broker only, joining
    that quorum, and ``controller_port`` is unused."""
    combined = voters is None
    props = {
        "process.roles": "broker,controller" if combined else "broker",
        "node.id": str(node_id),
        "controller.quorum.voters": f"{node_id}@127.0.0.1:{controller_port}" if combined else str(voters),
        "listeners": (
            f"PLAINTEXT://127.0.0.1:{broker_port},CONTROLLER://127.0.0.1:{controller_port}"
            if combined
            else f"PLAINTEXT://127.0.0.1:{broker_port}"
        ),
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{broker_port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": str(log_dir),
        "offsets.topic.replication.factor": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
    }
    if release.major >= 4:
        props["share.coordinator.state.topic.replication.factor"] = "1"
        props["share.coordinator.state.topic.min.isr"] = "1"
    return props


def startup_error(log_text: str) -> str | None:
    """The line saying why a node did not start: the first exception after Kafka's fatal line, else the first one."""
    lines = log_text.splitlines()
    for index, line in enumerate(lines):
        if _FATAL.search(line):
            for follow in lines[index : index + 40]:
                match = _EXCEPTION.search(follow)
                if match:
                    return match.group(0).strip()
            return line.strip()
    for line in lines:
        match = _EXCEPTION.search(line)
        if match and " ERROR " in f" {line} ":
            return match.group(0).strip()
    for line in lines:
        match = _EXCEPTION.search(line)
        if match:
            return match.group(0).strip()
    return None


# Log lines where a broker says a dynamic configuration was not applied (DynamicBrokerConfig and friends).
_CONFIG_REFUSAL = re.compile(
    r"Failed to update broker configuration|could not be applied|Dynamic .*validation failed|"
    r"Invalid dynamic configuration|Reconfiguration failed|ignoring .*config",
    re.IGNORECASE,
)
_LOG_LINE = re.compile(r"^\[[^\]]+\] (WARN|ERROR) ")


def config_refusals(log_text: str, limit: int = 200) -> list[dict[str, str]]:
    """Each WARN/ERROR entry of a node's log about a dynamic configuration it did not apply, with the exception
    that followed it (its stack frames dropped, the line cut at 500 characters). These refusals answer no request:
    the controller stored the records, the broker logged and kept its old values."""
    found: list[dict[str, str]] = []
    lines = log_text.splitlines()
    for index, line in enumerate(lines):
        if not (_LOG_LINE.match(line) and _CONFIG_REFUSAL.search(line)):
            continue
        reason = ""
        for follow in lines[index + 1 : index + 6]:
            if _LOG_LINE.match(follow):
                break
            match = _EXCEPTION.search(follow)
            if match:
                reason = match.group(0).strip()[:500]
                break
        found.append({"line": line.strip()[:500], "reason": reason})
        if len(found) >= limit:
            break
    return found


@dataclass
class ToolResult:
    """A finished command-line tool: its arguments, exit code and combined output."""

    args: list[str]
    returncode: int
    output: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def error(self) -> str | None:
        """The exception line of a failed run (or its last line), None when it succeeded."""
        if self.ok:
            return None
        found = startup_error(self.output)
        if found:
            return found
        tail = [line for line in self.output.splitlines() if line.strip()]
        return tail[-1].strip() if tail else f"exit code {self.returncode}"


@dataclass
class StartResult:
    """Whether the node came up (its broker port answered) and, if not, why."""

    started: bool
    pid: int | None
    seconds: float
    error: str | None = None
    exit_code: int | None = None


@dataclass
class StopResult:
    """How the node ended: ``SIGTERM``, ``SIGKILL`` (after the timeout) or ``exited`` (it was already gone)."""

    how: str
    seconds: float
    exit_code: int | None


@dataclass
class KafkaNode:
    """A single combined KRaft node in its own temporary directory (removed by ``close`` unless ``keep``)."""

    release: Release
    overrides: dict[str, str] = field(default_factory=dict)
    workdir: Path | None = None
    keep: bool = False
    cluster_id: str = field(default_factory=new_cluster_id)
    node_id: int = 1
    voters: str | None = None  # a broker-only node joining this quorum (see ``base_properties``)
    broker_port: int = field(default_factory=free_port)
    controller_port: int = field(default_factory=free_port)
    _process: subprocess.Popen[bytes] | None = field(default=None, init=False, repr=False)
    _owns_workdir: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.workdir is None:
            self.workdir = Path(tempfile.mkdtemp(prefix=f"kafka-oracle-{self.release.version}-"))
            self._owns_workdir = True
        self.workdir.mkdir(parents=True, exist_ok=True)

    # Paths ------------------------------------------------------------------------------------------------------

    @property
    def root(self) -> Path:
        assert self.workdir is not None
        return self.workdir

    @property
    def log_dir(self) -> Path:
        return self.root / "data"

    @property
    def metadata_dir(self) -> Path:
        """The node's ``__cluster_metadata-0`` partition directory (exists once formatted)."""
        return self.log_dir / "__cluster_metadata-0"

    @property
    def properties_file(self) -> Path:
        return self.root / "server.properties"

    @property
    def log_file(self) -> Path:
        return self.root / "node.log"

    @property
    def bootstrap_servers(self) -> str:
        return f"127.0.0.1:{self.broker_port}"

    @property
    def bootstrap_controllers(self) -> str:
        return f"127.0.0.1:{self.controller_port}"

    @property
    def quorum_voters(self) -> str:
        """The ``controller.quorum.voters`` a broker joining this node's quorum is given."""
        return self.voters or f"{self.node_id}@127.0.0.1:{self.controller_port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def properties(self) -> dict[str, str]:
        """The node's static configuration: the harness's base with the scenario's overrides on top."""
        props = base_properties(
            self.broker_port, self.controller_port, self.log_dir, self.release, node_id=self.node_id, voters=self.voters
        )
        props.update(self.overrides)
        return props

    # Lifecycle --------------------------------------------------------------------------------------------------

    def write_properties(self) -> Path:
        """Write ``server.properties`` and the logging configuration of the release."""
        self.properties_file.write_text(render_properties(self.properties()))
        for prefix, text in (
            ("", LOG4J2 if self.release.log4j2 else LOG4J1),
            ("tool-", TOOL_LOG4J2 if self.release.log4j2 else TOOL_LOG4J1),
        ):
            (self.root / (prefix + self._log_config_name)).write_text(text)
        return self.properties_file

    @property
    def _log_config_name(self) -> str:
        return "log4j2.properties" if self.release.log4j2 else "log4j.properties"

    def _logging_option(self, prefix: str = "") -> str:
        path = self.root / (prefix + self._log_config_name)
        return f"-Dlog4j2.configurationFile={path}" if self.release.log4j2 else f"-Dlog4j.configuration=file:{path}"

    def tool(self, main_class: str, *args: str, timeout: float = FORMAT_TIMEOUT_S) -> ToolResult:
        """Run one of the release's command-line tools (a main class) to completion, with a timeout."""
        if not (self.root / ("tool-" + self._log_config_name)).is_file():
            self.write_properties()
        command = self.release.java(main_class, *args, jvm=(*JVM_OPTIONS, self._logging_option("tool-")))
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
            return ToolResult(command, -1, f"{out}\ntimed out after {timeout:.0f} s")
        return ToolResult(command, done.returncode, done.stdout + done.stderr)

    def format(self, release_version: str | None = None) -> ToolResult:
        """``kafka-storage format`` of the log dir for this node's cluster id, at ``release_version`` if given."""
        self.write_properties()
        args = ["format", "-t", self.cluster_id, "-c", str(self.properties_file)]
        if release_version:
            args += ["--release-version", release_version]
        return self.tool("kafka.tools.StorageTool", *args)

    def start(self, timeout: float = START_TIMEOUT_S) -> StartResult:
        """Start the JVM and wait until the broker port answers, the process exits, or ``timeout`` passes."""
        if self._process is not None and self._process.poll() is None:
            raise RuntimeError("the node is already running")
        began = time.monotonic()
        command = self.release.java(
            "kafka.Kafka", str(self.properties_file), jvm=(*JVM_OPTIONS, self._logging_option())
        )
        with self.log_file.open("ab") as log:
            log.write(f"\n==== start {time.strftime('%H:%M:%S')}: {' '.join(command)}\n".encode())
            log.flush()
            self._process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
            )
        log_start = self.log_file.stat().st_size
        while time.monotonic() - began < timeout:
            code = self._process.poll()
            if code is not None:
                return StartResult(False, self._process.pid, time.monotonic() - began, self._error(log_start), code)
            if _port_open(self.broker_port):
                return StartResult(True, self._process.pid, time.monotonic() - began)
            time.sleep(0.25)
        self.stop()
        error = self._error(log_start) or f"the broker port did not answer within {timeout:.0f} s"
        return StartResult(False, self.pid, time.monotonic() - began, error)

    def _error(self, offset: int) -> str | None:
        with self.log_file.open("rb") as log:
            log.seek(offset)
            return startup_error(log.read().decode(errors="replace"))

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> StopResult:
        """SIGTERM, then SIGKILL after ``timeout`` seconds; a node already gone is reported as ``exited``."""
        began = time.monotonic()
        process = self._process
        if process is None:
            return StopResult("exited", 0.0, None)
        if process.poll() is not None:
            return StopResult("exited", 0.0, process.returncode)
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=timeout)
            return StopResult("SIGTERM", time.monotonic() - began, code)
        except subprocess.TimeoutExpired:
            process.kill()
            code = process.wait(timeout=30)
            return StopResult("SIGKILL", time.monotonic() - began, code)

    def restart(self, timeout: float = START_TIMEOUT_S) -> StartResult:
        """Stop the node and start it again on the same directory, ports and server.properties."""
        self.stop()
        return self.start(timeout)

    def close(self) -> None:
        """Stop the node if it runs and remove its directory (unless ``keep`` or it was given one)."""
        self.stop()
        if self._owns_workdir and not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> KafkaNode:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def copy_metadata(self, dest: Path, *, indexes: bool = False) -> Path | None:
        """Copy ``__cluster_metadata-0`` to ``dest``: segments, snapshots (``.checkpoint``), quorum and epoch files.

        A copy of a live node is a prefix of its log. The offset and time indexes are left out unless asked for:
        they are preallocated (10 MiB each), Kafka rebuilds them, and kraft-audit does not read them. A node that
        was formatted and never started has no such directory: its ``bootstrap.checkpoint`` (the records ``kafka-storage
        format`` wrote, in the log dir) is copied there instead, the one file an audit of it can read.
        """
        bootstrap = self.log_dir / "bootstrap.checkpoint"
        if not self.metadata_dir.is_dir() and bootstrap.is_file():
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy2(bootstrap, dest / bootstrap.name)
            return dest
        if not self.metadata_dir.is_dir():
            return None
        dest.mkdir(parents=True, exist_ok=True)
        for item in sorted(self.metadata_dir.iterdir()):
            if item.is_file() and (indexes or item.suffix not in (".index", ".timeindex")):
                shutil.copy2(item, dest / item.name)
        return dest


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def process_alive(pid: int) -> bool:
    """Whether a process with ``pid`` exists (signal 0)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
