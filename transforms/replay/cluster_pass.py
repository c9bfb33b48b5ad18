"""The replay pass as a Spark plan: each cluster's bronze records grouped (``applyInArrow``) and replayed by
``transforms.replay.machine``, every output in one frame.

The frame has ``cluster_id`` and one struct column per output of ``machine.OUTPUTS`` (``PASS_ROWS``); a row holds
exactly one of them. ``output`` selects one output's rows as a frame of its fields. A pure plan: nothing runs until
the caller reads it (``transforms.replay.state`` passes it through the caller's ``keep``, so the records are
replayed once and every silver frame reads the held rows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import (
    ArrayType,
    BooleanType,
    DataType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

from schemas.bronze import METADATA_RECORDS
from schemas.replay import FEATURES_DDL, NAME_VALUE_DDL
from transforms.cycle_collection import cycle_collection_paused
from transforms.replay.json_reading import Spec, type_spec
from transforms.replay.machine import OUTPUTS, PASS_INPUT, replay_cluster
from transforms.timestamps import as_utc

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)

# The Spark type of every output field (machine.OUTPUTS names them in order).
_OUTPUT_DDL: Final = {
    "cluster": (
        "snapshot_end_offset long, snapshot_kind string, snapshot_timestamp_us long, last_offset long, "
        "last_timestamp_us long, records_applied long, stream_records long, current_level int, broker_count int, "
        "rack_count int, topic_count int"
    ),
    "broker": (
        "node_id int, incarnation_id string, broker_epoch long, rack string, fenced boolean, "
        "in_controlled_shutdown boolean, min_supported_mv int, max_supported_mv int, "
        f"features {FEATURES_DDL}, registration_version int, has_registration_configs boolean, "
        f"registration_offset long, static_configs {NAME_VALUE_DDL}"
    ),
    "controller": (
        "controller_id int, incarnation_id string, min_supported_mv int, max_supported_mv int, registration_offset long"
    ),
    "topic": (
        "topic_id string, topic_name string, partitions int, replication_factor int, internal boolean, "
        "replica_nodes array<int>, created_offset long"
    ),
    "dynamic_config": (
        "resource_type string, resource_name string, name string, value string, value_hash string, "
        "source_offset long, source_timestamp_us long, from_snapshot boolean"
    ),
    "client_entity_config": (
        "entity_user string, entity_client_id string, entity_ip string, kind string, name string, value string, "
        "value_hash string, source_offset long, source_timestamp_us long"
    ),
    "feature": "feature string, level int, source_offset long",
    "finding": (
        "resource_type string, resource_name string, kind string, config_name string, message string, "
        "offset long, is_blocking boolean"
    ),
}


_SIMPLE_TYPES: Final[dict[str, DataType]] = {
    "int": IntegerType(),
    "long": LongType(),
    "double": DoubleType(),
    "boolean": BooleanType(),
    "string": StringType(),
}


def _spark_type(spec: Spec) -> DataType:
    if isinstance(spec, str):
        return _SIMPLE_TYPES[spec]
    kind, inner = spec
    if kind == "array":
        return ArrayType(_spark_type(inner))
    return StructType([StructField(name, _spark_type(field)) for name, field in inner])


def _struct(ddl: str) -> StructType:
    """The Spark struct of a field DDL (read without a session: ``json_reading.type_spec``)."""
    return StructType([StructField(name, _spark_type(spec)) for name, spec in type_spec(ddl)])


PASS_ROWS: Final = StructType(
    [StructField("cluster_id", StringType())] + [StructField(name, _struct(ddl)) for name, ddl in _OUTPUT_DDL.items()]
)


def _micros(moment: datetime | None) -> int | None:
    return None if moment is None else (as_utc(moment) - _EPOCH) // timedelta(microseconds=1)


def _replayer(as_of_offset: int | None, as_of_time_us: int | None) -> Callable[[pa.Table], pa.Table]:
    arrow_schema = to_arrow_schema(PASS_ROWS, timezone="UTC")

    def replay(records: pa.Table) -> pa.Table:
        with cycle_collection_paused():
            return _replayed(records)

    def _replayed(records: pa.Table) -> pa.Table:
        columns = {name: records.column(name).to_pylist() for name in PASS_INPUT}
        cluster_id = records.column("cluster_id")[0].as_py()
        outputs = replay_cluster(columns, as_of_offset=as_of_offset, as_of_time_us=as_of_time_us)
        total = sum(len(rows) for rows in outputs.values())
        arrays: list[pa.Array] = [pa.repeat(pa.scalar(cluster_id, pa.string()), total)]
        before = 0
        for name in OUTPUTS:
            field_type = arrow_schema.field(name).type
            rows = outputs[name]
            arrays.append(_padded(rows, field_type, before, total - before - len(rows)))
            before += len(rows)
        return pa.Table.from_arrays(arrays, schema=arrow_schema)

    return replay


def _padded(rows: list[tuple[Any, ...]], struct_type: pa.StructType, before: int, after: int) -> pa.Array:
    """``rows`` as a struct array, NULL for the ``before`` rows ahead of them and the ``after`` rows behind."""
    fields = [struct_type.field(i) for i in range(struct_type.num_fields)]
    columns: Iterable[tuple[Any, ...]] = zip(*rows, strict=True) if rows else [() for _ in fields]
    values = pa.StructArray.from_arrays(
        [pa.array(list(column), type=field.type) for column, field in zip(columns, fields, strict=True)],
        fields=fields,
    )
    parts = [pa.nulls(before, struct_type), values, pa.nulls(after, struct_type)]
    return pa.concat_arrays([part for part in parts if len(part)]) if before or after else values


def replay_pass(records_df: DataFrame, *, as_of_offset: int | None, as_of_time: datetime | None) -> DataFrame:
    """``PASS_ROWS`` of bronze ``METADATA_RECORDS`` (all clusters), one replay per cluster."""
    inputs = [
        F.unix_micros(F.col("timestamp")).alias(name) if name == "timestamp_us" else F.col(name) for name in PASS_INPUT
    ]
    return (
        records_df.select("cluster_id", *inputs)
        .groupBy("cluster_id")
        .applyInArrow(_replayer(as_of_offset, _micros(as_of_time)), PASS_ROWS)
    )


def replay_pass_of_files(
    records_df: DataFrame,
    cluster_files: Mapping[str, Sequence[str]],
    *,
    as_of_offset: int | None,
    as_of_time: datetime | None,
) -> DataFrame:
    """``PASS_ROWS`` of bronze ``METADATA_RECORDS`` (``records_df``) read from the Parquet files that hold them
    (``cluster_files``: cluster id -> absolute file URIs, every record of the cluster and no other;
    ``DeltaStore.partition_files``).

    The same rows as ``replay_pass(records_df)``, without moving the records through Spark: ``replay_pass`` shuffles
    every record with its payload to group them by cluster (the benchmark's L: 1.8 M records); here a task reads
    each of its clusters' files with pyarrow (the columns the pass reads) and replays them.

    ``records_df`` is not read, only planned: the pass's source is the cluster list and, in a union,
    ``records_df`` under a filter no record passes (Parquet's row-group statistics skip every row group), so that
    the planner sizes the pass, and every later frame, at least as large as the records.
    From the cluster list alone (a few hundred bytes) it took every silver frame for a small table and broadcast it
    into joins: at L, with the silver frames of 140,000 topics and 437,000 dynamic configs, the resolution took
    55-64 s against 50-52 s, and the evaluation 44-49 s against 39-43 s.
    """
    spark = records_df.sparkSession
    clusters = sorted(cluster_files.items())
    replay = _replayer(as_of_offset, _micros(as_of_time))

    def replay_clusters(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for index in batch.column("id").to_pylist():
                if index is not None:  # the union's other side has no row; were it to, it names no cluster
                    cluster_id, files = clusters[index]
                    yield from replay(_cluster_records(cluster_id, files)).to_batches()

    # A few tasks of several clusters each (a task per cluster would leave every later frame in as many
    # partitions: at L, 100 partitions of a few rows, and the later stages took 30-80% longer).
    tasks = max(1, min(len(clusters), 2 * spark.sparkContext.defaultParallelism))
    # Both sides of the union carry every column of the records: a projection to fewer columns would scale the
    # planner's size down by its row width.
    widths = [F.col(name).alias(f"_sized_{name}") for name in records_df.columns]
    no_record = records_df.where(F.col("offset") < F.lit(_LONG_MIN)).select(
        F.lit(None).cast("long").alias("id"), *widths
    )
    cluster_list = spark.range(0, len(clusters), 1, tasks).select(
        "id", *[F.lit(None).cast(field.dataType).alias(f"_sized_{field.name}") for field in records_df.schema.fields]
    )
    source = cluster_list.unionByName(no_record).repartition(tasks)
    return source.mapInArrow(replay_clusters, PASS_ROWS)


_LONG_MIN: Final = -(2**63)


# The Parquet columns the pass reads (``timestamp_us`` comes from ``timestamp``) and their Arrow types.
_FILE_COLUMNS: Final = tuple("timestamp" if name == "timestamp_us" else name for name in PASS_INPUT)
_FILE_SCHEMA: Final = to_arrow_schema(StructType([METADATA_RECORDS[name] for name in _FILE_COLUMNS]), timezone="UTC")


def _cluster_records(cluster_id: str, files: Sequence[str]) -> pa.Table:
    """The pass's input columns of one cluster's files, as ``replay_pass`` selects them from the table."""
    parts = []
    for uri in files:
        filesystem, path = pafs.FileSystem.from_uri(uri)
        with pq.ParquetFile(path, filesystem=filesystem) as parquet:  # the footer read once, for schema and read
            found = set(parquet.schema_arrow.names)
            table = parquet.read(columns=[c for c in _FILE_COLUMNS if c in found])
        for field in _FILE_SCHEMA:  # a file written before a column was added: NULL, as Spark reads it
            if field.name not in found:
                table = table.append_column(field, pa.nulls(table.num_rows, field.type))
        parts.append(table.select(list(_FILE_COLUMNS)).cast(_FILE_SCHEMA))
    records = pa.concat_tables(parts) if parts else _FILE_SCHEMA.empty_table()
    micros = pc.cast(records.column("timestamp").cast(pa.timestamp("us", tz="UTC")), pa.int64())
    records = records.set_column(records.schema.get_field_index("timestamp"), "timestamp_us", micros)
    return records.append_column("cluster_id", pa.repeat(pa.scalar(cluster_id, pa.string()), records.num_rows))


def output(pass_df: DataFrame, name: str) -> DataFrame:
    """The rows of one output (``machine.OUTPUTS``) as ``cluster_id`` and its fields."""
    return pass_df.where(F.col(name).isNotNull()).select("cluster_id", f"{name}.*")


def timestamp(micros_column: str) -> Column:
    """A ``*_us`` field as a timestamp."""
    return F.timestamp_micros(F.col(micros_column))
