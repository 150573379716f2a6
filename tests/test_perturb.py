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


def test_only_the_form_the_exercise_asks_for_counts_with_where():
    """01.2's lazy answer: a clamped read decides the result, and a fill-mode read beside it is
    multiplied by zero; perturbing every gather at once let the clamped one carry it."""
    from jax.lax import GatherScatterMode

    x, idx = jnp.arange(10.0), jnp.array([0, 3, 12])
    fill = lambda p: p["mode"] == GatherScatterMode.FILL_OR_DROP  # noqa: E731

    def honest(x, idx):
        return x.at[idx].get(mode="fill", fill_value=-1.0)

    def lazy(x, idx):
        clipped = x.at[idx].get(mode="clip") * (idx < 10) - 1.0 * (idx >= 10)
        return clipped + 0 * x.at[idx].get(mode="fill", fill_value=-1.0)

    def other_form_only(x, idx):
        return x.at[idx].get(mode="clip") * (idx < 10) - 1.0 * (idx >= 10)

    want = honest(x, idx)
    route = [ah.uses("gather", where=fill)]
    assert ah.check("p.w", honest, args=(x, idx), expected=want, route=route).solved
    lazy_result = ah.check("p.w", lazy, args=(x, idx), expected=want, route=route)
    assert lazy_result.wrong and "does not change" in lazy_result.detail
    missing = ah.check("p.w", other_form_only, args=(x, idx), expected=want, route=route)
    assert missing.wrong and "in the form this exercise asks for" in missing.detail
    # Without `where`, the clamped read carries the lazy answer (what the reviewer found).
    assert ah.check("p.w", lazy, args=(x, idx), expected=want, route=[ah.uses("gather")]).solved


def test_a_change_lost_to_rounding_is_no_change():
    """``(real + t) - t``: the taught operation's changed outputs move the result by rounding
    only; it did not decide the result."""
    x = jnp.linspace(0.1, 1.0, 8)

    def through_rounding(x):
        t = jnp.cumsum(x)
        return (2 * x + t) - t

    result = ah.check(
        "p.r", through_rounding, args=(x,), expected=2 * x, route=[ah.uses("cumsum")], rtol=1e-4
    )
    assert result.wrong and "does not change when what cumsum computes changes" in result.detail
