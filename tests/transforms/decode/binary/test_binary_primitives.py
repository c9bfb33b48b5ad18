"""Varints and compression codecs: round trips, Kafka's limits, and corrupt input failing cleanly."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from transforms.decode.binary.compression import DecompressionError, compress, decompress
from transforms.decode.binary.varint import (
    encode_uvarint,
    encode_varint,
    encode_varlong,
    read_uvarint,
    read_varint,
    read_varlong,
)


@given(st.integers(0, 2**32 - 1))
def test_uvarint_round_trips(value: int) -> None:
    encoded = encode_uvarint(value)
    assert read_uvarint(encoded + b"\xff", 0) == (value, len(encoded))


@given(st.integers(-(2**31), 2**31 - 1))
def test_zigzag_varint_round_trips(value: int) -> None:
    assert read_varint(encode_varint(value), 0) == (value, len(encode_varint(value)))


@given(st.integers(-(2**63), 2**63 - 1))
def test_zigzag_varlong_round_trips(value: int) -> None:
    assert read_varlong(encode_varlong(value), 0)[0] == value


@pytest.mark.parametrize(
    ("encoded", "value"),
    [(b"\x00", 0), (b"\x01", -1), (b"\x02", 1), (b"\x7f", -64), (b"\x80\x01", 64)],
    ids=["0", "-1", "1", "-64", "64"],
)
def test_zigzag_matches_kafka_examples(encoded: bytes, value: int) -> None:
    assert read_varint(encoded, 0) == (value, len(encoded))


def test_over_long_varint_is_rejected_and_truncated_one_raises_index_error() -> None:
    with pytest.raises(ValueError, match="too long"):
        read_varint(b"\x80\x80\x80\x80\x80\x01", 0)
    with pytest.raises(IndexError):
        read_uvarint(b"\x80", 0)


@pytest.mark.parametrize("codec", [1, 2, 3, 4], ids=["gzip", "snappy", "lz4", "zstd"])
@settings(max_examples=30, deadline=None)
@given(payload=st.binary(max_size=70_000))
def test_codec_round_trips(codec: int, payload: bytes) -> None:
    assert decompress(codec, compress(codec, payload)) == payload


@pytest.mark.parametrize("codec", [1, 2, 3, 4, 5, 7], ids=["gzip", "snappy", "lz4", "zstd", "codec5", "codec7"])
@settings(max_examples=200, deadline=None)
@given(garbage=st.binary(max_size=200))
def test_corrupt_compressed_stream_fails_only_with_decompression_error(codec: int, garbage: bytes) -> None:
    with contextlib.suppress(DecompressionError):
        decompress(codec, garbage)


@pytest.mark.parametrize("codec", [1, 2, 3, 4], ids=["gzip", "snappy", "lz4", "zstd"])
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_damaged_real_stream_fails_only_with_decompression_error(codec: int, data: st.DataObject) -> None:
    stream = bytearray(compress(codec, b"retention.ms=86400000;" * 200))
    index = data.draw(st.integers(0, len(stream) - 1))
    stream[index] ^= data.draw(st.integers(1, 255))
    cut = data.draw(st.integers(0, len(stream)))
    with contextlib.suppress(DecompressionError):
        decompress(codec, bytes(stream[:cut]))
