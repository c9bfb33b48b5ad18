"""How many records and decompressed bytes binary decoding may produce, per file and per ingest.

Compression lets a few bytes stand for many records: a 4,215-byte segment of zstd batches, each under the
per-batch cap (``compression.MAX_DECOMPRESSED_BYTES``), decoded to 4.3 million NoOp rows (issue 58). The
per-batch cap bounds memory, not the rows of a file, so decoding also keeps a budget per file and one shared by
the files of an ingest. What is past a budget is never dropped: it becomes one quarantine row with its position,
the first offset it holds and the reason (``decode.decode_file``).

The defaults are far above what a real cluster writes:

* Kafka writes the metadata log and snapshots uncompressed (the KRaft leader's batches carry codec 0); a
  compressed batch comes from another writer. Real metadata logs compress about 7.5 times with zstd at its
  highest level (the segments of ``../shared/real-metadata``, up to 3.7 MB), so a decompression ratio of 64
  leaves an eight-fold margin, while a bomb of zeros or of identical NoOp records reaches 1,000 and more.
* The ratio is taken over the file (and over the ingest's input bytes), with an allowance of 1 MiB so that a
  tiny file holding one legitimately compressed batch is never refused.
* Rows are capped at one per input byte of the file (and of the ingest) plus 1,000: a real metadata file holds
  one record per ~70 bytes (the real segments: 353,439 bytes, 4,929 records), and about 10 bytes per record even
  at zstd's best ratio, so a real file stays ten times below it; an uncompressed record needs 7 bytes at least.
* A metadata log segment is at most ``metadata.log.segment.bytes`` (1 GiB by default) and a cluster's snapshot
  holds a record per partition, broker, topic and config: millions of records. 50 million records per file and
  500 million per ingest are never reached by real input; 4 GiB of decompressed records per file and 64 GiB per
  ingest neither (uncompressed records need no budget: their rows are bounded by the file's own bytes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

MAX_DECOMPRESSION_RATIO: Final = 64
DECOMPRESSION_ALLOWANCE: Final = 1 << 20
MAX_DECOMPRESSED_BYTES_PER_FILE: Final = 4 << 30
MAX_DECOMPRESSED_BYTES_PER_INGEST: Final = 64 << 30
MAX_RECORDS_PER_FILE: Final = 50_000_000
MAX_ROWS_PER_INPUT_BYTE: Final = 1
ROW_ALLOWANCE: Final = 1_000
MAX_RECORDS_PER_INGEST: Final = 500_000_000


@dataclass(slots=True)
class DecodeBudget:
    """What the binary files of one ingest may still produce; ``decode_file`` spends it as it decodes.

    One budget is shared by every file decoded in one process call: the driver's decode of a small input (the
    whole ingest) or one executor task's files (``transforms.decode.files``). Tests and callers may pass tighter
    limits.
    """

    records: int = MAX_RECORDS_PER_INGEST  # rows (records and record-level quarantine rows) still allowed
    decompressed_bytes: int = MAX_DECOMPRESSED_BYTES_PER_INGEST  # absolute cap still allowed
    ratio: int = MAX_DECOMPRESSION_RATIO
    allowance: int = DECOMPRESSION_ALLOWANCE
    input_bytes: int = 0  # binary input bytes seen so far (the ratio's base)
    decompressed: int = 0  # decompressed bytes produced (or attempted) so far
    rows: int = 0  # rows produced so far

    def open_file(self, size: int) -> FileBudget:
        """The budget of one file of ``size`` bytes: the per-file caps, within what the ingest has left."""
        self.input_bytes += size
        file_decompressed = min(MAX_DECOMPRESSED_BYTES_PER_FILE, self.ratio * size + self.allowance)
        file_records = min(MAX_RECORDS_PER_FILE, MAX_ROWS_PER_INPUT_BYTE * size + ROW_ALLOWANCE)
        ingest_records = min(self.records, MAX_ROWS_PER_INPUT_BYTE * self.input_bytes + ROW_ALLOWANCE - self.rows)
        records = max(0, min(file_records, ingest_records))
        return FileBudget(
            ingest=self,
            records=records,
            records_cap=records,
            records_binding="ingest" if ingest_records < file_records else "file",
            decompressed=file_decompressed,
            file_decompressed_cap=file_decompressed,
        )

    def decompressed_left(self) -> int:
        """Decompressed bytes the ingest still allows: its absolute cap and its ratio over the input seen."""
        by_ratio = self.ratio * self.input_bytes + self.allowance - self.decompressed
        return max(0, min(self.decompressed_bytes, by_ratio))


@dataclass(slots=True)
class FileBudget:
    """One file's remaining records and decompressed bytes; spending also spends the ingest's budget."""

    ingest: DecodeBudget
    records: int  # rows this file may still produce (within the ingest's)
    records_cap: int  # ``records`` when the file was opened
    records_binding: str  # which cap ``records_cap`` is: "file" or "ingest"
    decompressed: int  # bytes this file's batches may still decompress to
    file_decompressed_cap: int
    decompression_reason: str = ""  # set once a batch was refused for the budget: no later batch is decompressed

    @property
    def decompression_spent(self) -> bool:
        """A batch was refused for the decompressed-bytes budget; later compressed batches are not attempted."""
        return bool(self.decompression_reason)

    def decompression_limit(self) -> tuple[int, str]:
        """The most bytes the next batch may decompress to under the budgets, and which budget binds."""
        ingest_left = self.ingest.decompressed_left()
        if ingest_left < self.decompressed:
            return ingest_left, "ingest"
        return self.decompressed, "file"

    def spend_decompressed(self, size: int) -> None:
        """Account ``size`` decompressed bytes (a failed attempt costs its limit: that work was done)."""
        self.decompressed = max(0, self.decompressed - size)
        self.ingest.decompressed += size
        self.ingest.decompressed_bytes = max(0, self.ingest.decompressed_bytes - size)

    def refuse_decompression(self, scope: str) -> None:
        """Record that the ``scope`` ("file" or "ingest") budget refused a batch: the rest stays compressed."""
        if scope == "file":
            self.decompression_reason = (
                f"the file's decompressed-bytes cap ({self.file_decompressed_cap} bytes: {self.ingest.ratio} times "
                f"its size plus {self.ingest.allowance}, at most {MAX_DECOMPRESSED_BYTES_PER_FILE}) is reached"
            )
        else:
            self.decompression_reason = (
                f"the ingest's decompressed-bytes cap ({self.ingest.ratio} times its binary input bytes plus "
                f"{self.ingest.allowance}, within its absolute cap) is reached"
            )

    def spend_records(self, count: int) -> None:
        """Account ``count`` rows."""
        self.records -= count
        self.ingest.records -= count
        self.ingest.rows += count
