"""Budgets see a whole array made anywhere while an answer runs (issue 38's fourth class)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from aurora_helpers.checks.budgets import calls_counted, largest_array_made


def test_a_whole_array_built_on_a_device_and_sliced_is_seen():
    def lazy_block(index):  # the whole array with jnp, then this device's block
        return jnp.arange(1024, dtype=jnp.float32).reshape(32, 32)[index]

    def honest_block(index):  # only this block, from its own coordinates
        rows = np.arange(32)[index[0]]
        return (rows[:, None] * 32 + np.arange(32)[None, :]).astype(np.float32)

    index = (slice(0, 4), slice(None))
    value, made = largest_array_made(lazy_block, index)
    assert value.shape == (4, 32) and made.largest_bytes == 1024 * 4
    assert made.largest_shape == (1024,) or made.largest_shape == (32, 32)
    value, made = largest_array_made(honest_block, index)
    assert made.largest_bytes == 0 and value.shape == (4, 32)  # NumPy on the host, no JAX array


def test_arrays_made_inside_jax_calls_and_returned_in_tuples_count():
    def inside(x):
        parts = jnp.split(jnp.tile(x, 8), 8)
        return parts[0]

    _, made = largest_array_made(inside, jnp.ones(16))
    assert made.largest_bytes == 16 * 8 * 4 and made.count >= 2
    _, nothing = largest_array_made(lambda: 3)
    assert nothing.largest_bytes == 0 and nothing.count == 0


def test_the_watch_is_removed_afterwards_even_on_error():
    import sys

    before = sys.getprofile()

    def fails():
        jnp.zeros(4)
        raise ValueError("no")

    with pytest.raises(ValueError):
        largest_array_made(fails)
    assert sys.getprofile() is before
    assert jax.numpy.ones(2).shape == (2,)


def test_calls_are_counted_whatever_name_calls_them():
    """Issue 38's third class: a total split over many calls, each within a per-call bound."""
    import functools

    def gather(rows):
        return np.concatenate(rows)

    one_call = lambda rows: gather(rows)  # noqa: E731
    alias = gather
    per_row = lambda rows: np.concatenate([alias([r]) for r in rows])  # noqa: E731
    partial_rows = lambda rows: [functools.partial(gather)([r]) for r in rows]  # noqa: E731
    rows = [np.ones(2)] * 5
    assert calls_counted([gather], one_call, rows)[1]["gather"] == 1
    assert calls_counted([gather], per_row, rows)[1]["gather"] == 5
    assert calls_counted([gather], partial_rows, rows)[1]["gather"] == 5
    assert calls_counted([gather], lambda rows: 0, rows)[1] == {"gather": 0}
