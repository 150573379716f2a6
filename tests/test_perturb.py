"""An operation must decide the result, not only feed it: ``real + 0 * taught(x)`` is rejected.

Issue 38's first class of lazy answer. Each case: a tiny synthetic exercise, the lazy answer
(the taught operation multiplied by zero, thrown into a ``where`` that never picks it, or
shifted uniformly away) rejected, and an honest one accepted, at every place a primitive can sit
(top level, ``jit``, ``shard_map``, loops, ``cond``, custom derivatives).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import aurora_helpers as ah
from aurora_helpers.compiled.jaxpr_inspect import trace_program
from aurora_helpers.compiled.perturb import determines


def _decides(fn, *args, names):
    return determines(trace_program(fn, args, {}), names, args, {})


@pytest.fixture(scope="module")
def ring():
    n = min(4, len(jax.devices()))
    mesh = jax.make_mesh((n,), ("i",))
    return mesh, jax.device_put(jnp.arange(4.0 * n), NamedSharding(mesh, P("i")))


def _total(mesh):
    return jax.shard_map(
        lambda b: lax.psum(b.sum(keepdims=True), "i"), mesh=mesh, in_specs=P("i"), out_specs=P()
    )


def test_an_operation_times_zero_does_not_decide_the_result(ring):
    mesh, x = ring
    total = _total(mesh)
    assert _decides(total, x, names={"psum", "psum_invariant"}) is True
    lazy = lambda a: jnp.sum(a, keepdims=True) + 0 * total(a)  # noqa: E731
    assert _decides(lazy, x, names={"psum", "psum_invariant"}) is False
    assert _decides(lazy, x, names={"shard_map"}) is False
    assert _decides(jax.jit(lazy), x, names={"psum", "psum_invariant"}) is False


@pytest.mark.parametrize(
    "lazy",
    [
        lambda v: jnp.where(True, v * 2.0, jnp.cumsum(v)),  # a branch never taken
        lambda v: v * 2.0 + jnp.cumsum(v) - jnp.cumsum(v),  # added and taken away again
        lambda v: v * 2.0 + lax.stop_gradient(jnp.cumsum(v)) * 0.0,
        lambda v: lax.cond(v[0] > 1e9, lambda: jnp.cumsum(v), lambda: v * 2.0),
    ],
)
def test_an_idle_operation_is_found_whatever_hides_it(lazy):
    v = jnp.arange(5.0)
    assert _decides(lazy, v, names={"cumsum"}) is False


@pytest.mark.parametrize(
    "honest",
    [
        lambda v: jnp.cumsum(v),
        lambda v: jnp.argmax(jnp.cumsum(v) * jnp.array([1.0, -1, 1, -1, 1])),  # order, not size
        lambda v: jax.nn.softmax(jnp.cumsum(v)),  # a uniform shift would not show
        lambda v: jnp.cumsum(v)[2],  # one element of it
        lambda v: lax.fori_loop(0, 3, lambda i, c: c + jnp.cumsum(v), jnp.zeros(5)),
        lambda v: lax.cond(v[0] < 1e9, lambda: jnp.cumsum(v), lambda: v),
        lambda v: jax.checkpoint(jnp.cumsum)(v),
        lambda v: jnp.cumsum(v) > 3.0,  # a comparison of it
    ],
)
def test_an_operation_that_decides_the_result_is_found_where_it_sits(honest):
    assert _decides(honest, jnp.arange(5.0), names={"cumsum"}) is True


def test_integers_booleans_and_absent_operations():
    counts = lambda v: jnp.zeros(4, jnp.int32).at[v].add(1)  # noqa: E731
    v = jnp.array([0, 1, 1, 3])
    assert _decides(counts, v, names={"scatter-add"}) is True
    by_hand = lambda v: (v[:, None] == jnp.arange(4)).sum(0).astype(jnp.int32)  # noqa: E731
    assert _decides(lambda v: by_hand(v) + 0 * counts(v), v, names={"scatter-add"}) is False
    assert _decides(lambda v: v > 1, v, names={"gt"}) is True
    assert _decides(by_hand, v, names={"scatter-add"}) is None  # nothing to change


def test_uses_rejects_the_idle_operation_with_a_message_about_the_idea(ring):
    mesh, x = ring
    total = _total(mesh)
    expected = jnp.sum(x, keepdims=True)

    def lazy(a):
        return jnp.sum(a, keepdims=True) + 0 * total(a)

    route = [ah.uses("shard_map", "psum", why="each device sums its block")]
    assert ah.check("t.n", total, expected=expected, args=(x,), route=route).solved
    result = ah.check("t.n", lazy, expected=expected, args=(x,), route=route)
    assert result.wrong and "does not change" in result.detail
    assert "each device sums its block" in result.detail
    assert "0 *" not in result.detail and "multipl" not in result.detail  # the idea, not the code


def test_the_rewritten_program_keeps_what_is_not_a_program():
    """Parameters such as a scatter's dimension numbers pass through untouched."""
    fn = lambda v: jnp.zeros(4).at[v].add(1.0) + jnp.cumsum(jnp.ones(4))  # noqa: E731
    v = jnp.array([0, 2])
    assert _decides(fn, v, names={"cumsum"}) is True
    np.testing.assert_array_equal(trace_program(fn, (v,), {}).run(v), fn(v))
