"""ah.read_memory_profile: the pprof fields of JAX's device memory profile, decoded."""

from __future__ import annotations

import gzip

import jax
import jax.numpy as jnp
import pytest

import aurora_helpers as ah
from aurora_helpers.perf.memory_profile import MemorySample


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: int | bytes) -> bytes:
    if isinstance(payload, int):
        return _varint(number << 3) + _varint(payload)
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _synthetic_profile() -> bytes:
    """Two samples: 96 bytes of a buffer made in `make_weights`, an executable of 0 bytes."""
    strings = ["", "allocations", "count", "space", "bytes", "kind", "buffer", "executable",
               "make_weights", "compile"]  # fmt: skip
    s = {name: i for i, name in enumerate(strings)}
    out = b"".join(_field(6, name.encode()) for name in strings)
    out += _field(1, _field(1, s["allocations"]) + _field(2, s["count"]))
    out += _field(1, _field(1, s["space"]) + _field(2, s["bytes"]))
    out += _field(5, _field(1, 1) + _field(2, s["make_weights"]))
    out += _field(5, _field(1, 2) + _field(2, s["compile"]))
    out += _field(4, _field(1, 10) + _field(4, _field(1, 1)))
    out += _field(4, _field(1, 20) + _field(4, _field(1, 2)))
    label = lambda value: _field(3, _field(1, s["kind"]) + _field(2, s[value]))  # noqa: E731
    out += _field(2, _field(1, _varint(10)) + _field(2, _varint(1) + _varint(96)) + label("buffer"))
    out += _field(
        2, _field(1, _varint(20)) + _field(2, _varint(1) + _varint(0)) + label("executable")
    )
    return gzip.compress(out)


def test_a_synthetic_profile_reads_back_its_samples():
    samples = ah.read_memory_profile(_synthetic_profile())
    assert samples == [
        MemorySample(96, "buffer", ("make_weights",)),
        MemorySample(0, "executable", ("compile",)),
    ]
    # Uncompressed bytes read the same.
    assert ah.read_memory_profile(gzip.decompress(_synthetic_profile())) == samples


def test_jax_profile_names_the_function_that_holds_a_buffer():
    def hold_three_kib():
        return jnp.zeros((768,), jnp.float32) + 1

    held = jax.block_until_ready(hold_three_kib())

    def bytes_of(name: str) -> int:
        entries = ah.read_memory_profile(jax.profiler.device_memory_profile())
        return sum(e.bytes for e in entries if e.kind == "buffer" and name in e.functions)

    assert bytes_of("hold_three_kib") == 768 * 4
    del held
    assert bytes_of("hold_three_kib") == 0


def test_an_unknown_wire_type_is_refused():
    with pytest.raises(ValueError, match="wire type"):
        ah.read_memory_profile(bytes([0x0B]))  # field 1, wire type 3 (a group)
