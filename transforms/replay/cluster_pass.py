"""The replay pass as a Spark plan: each cluster's bronze records grouped (``applyInArrow``) and replayed by
``transforms.replay.machine``, every output in one frame.

The frame has ``cluster_id`` and one struct column per output of ``machine.OUTPUTS`` (``PASS_ROWS``); a row holds
exactly one of them. ``output`` selects one output's rows as a frame of its fields. A pure plan: nothing runs until
the caller reads it (``transforms.replay.state`` passes it through the caller's ``keep``, so the records are
replayed once and every silver frame reads the held rows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from typing import Any, Final

import pyarrow as pa
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

from schemas.replay import FEATURES_DDL, NAME_VALUE_DDL
from transforms.kit.cycle_collection import cycle_collection_paused
from transforms.kit.timestamps import as_utc
from transforms.replay.json_reading import Spec, type_spec
from transforms.replay.machine import OUTPUTS, PASS_INPUT, replay_cluster

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


def output(pass_df: DataFrame, name: str) -> DataFrame:
    """The rows of one output (``machine.OUTPUTS``) as ``cluster_id`` and its fields."""
    return pass_df.where(F.col(name).isNotNull()).select("cluster_id", f"{name}.*")


def timestamp(micros_column: str) -> Column:
    """A ``*_us`` field as a timestamp."""
    return F.timestamp_micros(F.col(micros_column))
