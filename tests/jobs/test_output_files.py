"""#58 item 3: output files never replace what is at the path unless it is a regular file.

A character device or a named pipe is written into (``/dev/null`` stays the system's ``/dev/null``), a pipe with
no reader is a one-line error instead of a hang, a directory, socket or block device is refused, and a regular
file is still replaced atomically. ``jobs.preflight.check_output_file`` decides the same before the run starts.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from jobs.output_files import output_problem, write_output
from jobs.preflight import check_output_file
from schemas.errors import StorageError, UsageError


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "summary.fifo"
    os.mkfifo(path)
    return path


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        yield path


def _block_device() -> Path | None:
    for name in sorted(os.listdir("/dev")):
        path = Path("/dev", name)
        try:
            if stat.S_ISBLK(path.stat().st_mode):
                return path
        except OSError:
            continue
    return None


def test_a_regular_file_is_replaced_atomically(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old\n", encoding="utf-8")
    before = target.stat().st_ino
    check_output_file("--summary-json", str(target))
    write_output(target, "new\n")
    assert target.read_text(encoding="utf-8") == "new\n"
    assert target.stat().st_ino != before  # a new file renamed over the old one, not rewritten in place
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary file left behind


def test_a_symlink_to_a_regular_file_stays_a_link(tmp_path: Path) -> None:
    real = tmp_path / "real.xml"
    real.write_text("old\n", encoding="utf-8")
    link = tmp_path / "link.xml"
    link.symlink_to(real)
    write_output(link, "new\n")
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new\n"


def test_dev_stdout_redirected_to_a_file_is_written_through_the_descriptor(tmp_path: Path) -> None:
    out = tmp_path / "out.txt"
    script = (
        "from jobs.output_files import write_output; "
        "print('before'); write_output('/dev/stdout', 'summary\\n'); print('verdict')"
    )
    root = Path(__file__).resolve().parents[2]
    with out.open("wb") as handle:
        before = os.fstat(handle.fileno()).st_ino
        subprocess.run([sys.executable, "-c", script], stdout=handle, check=True, cwd=root)
    # in order, in the file the shell opened (not a new file renamed over it, which would lose the verdict)
    assert out.read_text(encoding="utf-8") == "before\nsummary\nverdict\n" and out.stat().st_ino == before
    assert Path("/dev/stdout").is_symlink() or not Path("/dev/stdout").exists()


def test_dev_null_is_written_into_not_replaced() -> None:
    before = os.stat("/dev/null")
    check_output_file("--junit", "/dev/null")
    write_output("/dev/null", "<testsuites/>\n")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_a_character_device_that_cannot_take_the_text_is_a_storage_error() -> None:
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    with pytest.raises(StorageError, match=r"^/dev/full: cannot write: No space left on device$"):
        write_output("/dev/full", "{}\n")
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_fifo_with_a_reader_receives_the_whole_text(fifo: Path) -> None:
    text = "x" * 1_000_000 + "\n"  # far more than a pipe buffer: the writer must wait for the reader
    read_fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reader is there before the writer opens
    os.set_blocking(read_fd, True)
    held_open = os.open(fifo, os.O_WRONLY)  # a second writer: the reader sees no end of file before the write
    received: list[bytes] = []

    def read_all() -> None:
        with os.fdopen(read_fd, "rb") as handle:
            received.append(handle.read())

    reader = threading.Thread(target=read_all)
    reader.start()
    check_output_file("--summary-json", str(fifo))
    try:
        write_output(fifo, text)
    finally:
        os.close(held_open)
        reader.join(timeout=30)
    assert received == [text.encode()] and fifo.is_fifo()


def test_a_fifo_without_a_reader_is_a_usage_error_not_a_hang(fifo: Path) -> None:
    check_output_file("--summary-json", str(fifo))  # whether a reader exists is only known by opening it
    with pytest.raises(UsageError, match="a named pipe with no reader"):
        write_output(fifo, "{}\n")
    assert fifo.is_fifo()


def test_a_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is a directory; give a file name"):
        check_output_file("--summary-json", str(tmp_path))
    with pytest.raises(UsageError, match="is a directory"):
        write_output(tmp_path, "{}\n")
    assert tmp_path.is_dir()


def test_a_socket_is_refused(unix_socket: Path) -> None:
    with pytest.raises(UsageError, match=r"^--junit .*: is a socket; give a regular file"):
        check_output_file("--junit", str(unix_socket))
    with pytest.raises(UsageError, match="is a socket"):
        write_output(unix_socket, "<testsuites/>\n")
    assert unix_socket.is_socket()


def test_a_block_device_is_refused_and_never_opened() -> None:
    device = _block_device()
    if device is None:
        pytest.skip("no block device under /dev")
    assert output_problem(device) == "is a block device; give a regular file, a character device or a named pipe"
    with pytest.raises(UsageError, match="is a block device"):
        write_output(device, "{}\n")


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        ("/proc/version", "is on /proc or /sys, not a file kraft-audit can write"),
        ("/proc/junit.xml", "/proc is on /proc or /sys, where no file can be created"),
        ("/sys/kernel/reports/junit.xml", "/sys/kernel is on /proc or /sys, where no file can be created"),
        ("/proc/self/status", "is on /proc or /sys, not a file kraft-audit can write"),
    ],
    ids=["proc-version", "new-in-proc", "new-in-sys", "proc-self"],
)
def test_kernel_file_systems_are_refused_before_the_run(location: str, expected: str) -> None:
    if not Path(location).parent.parent.exists():
        pytest.skip(f"no {location}")
    with pytest.raises(UsageError) as caught:
        check_output_file("--junit", location)
    assert str(caught.value) == f"--junit {location}: {expected}"


def test_a_read_only_file_is_refused_when_not_root(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write any file; os.access says so")
    target = tmp_path / "ro.json"
    target.write_text("{}", encoding="utf-8")
    target.chmod(0o444)
    with pytest.raises(UsageError, match="not writable"):
        check_output_file("--summary-json", str(target))
