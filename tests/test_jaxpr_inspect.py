"""Reading how a value was computed: primitives, Pallas grids, FFI calls, static arguments."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import pallas as pl

import aurora_helpers as ah


def _double(x, block):
    def kernel(x_ref, o_ref):
        o_ref[...] = 2 * x_ref[...]

    spec = pl.BlockSpec((block,), lambda i: (i,))
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(x.shape[0] // block,),
        in_specs=[spec],
        out_specs=spec,
        interpret=True,
    )(x)


def test_counts_nested_primitives_and_grids():
    x = jnp.ones(8, jnp.float32)
    nested = jax.jit(lambda v: jnp.sin(_double(v, 2)))
    counts = ah.primitive_counts(nested, x)
    assert counts["pallas_call"] == 1 and counts["sin"] == 1
    assert ah.pallas_grids(_double, x, 4) == [(2,)]
    assert ah.pallas_grids(jax.vmap(lambda v: _double(v, 2)), jnp.ones((3, 8))) == [(3, 4)]
    assert ah.pallas_grids(jnp.sin, x) == []
    assert ah.ffi_calls(jnp.sin, x) == []


def test_hard_coded_and_numpy_answers_are_told_apart():
    x = jnp.ones(4, jnp.float32)
    assert ah.primitive_counts(lambda v: jnp.full(4, 2.0), x)["pallas_call"] == 0
    with pytest.raises(TypeError, match="NumPy"):
        ah.primitive_counts(lambda v: np.asarray(v) * 2, x)


def _summed(v):
    return jnp.sum(v)


def test_an_unused_call_is_not_counted():
    """What the result does not depend on is left out (XLA would drop it), nested ones too."""
    x = jnp.ones(8, jnp.float32)

    def idle_kernel(v):
        _double(v, 2)  # called, its result thrown away
        return 2 * v

    def idle_inside_jit(v):
        return jax.jit(lambda w: (_double(w, 2), 2 * w))(v)[1]

    def idle_scatter(v):
        _ = jnp.zeros(4).at[jnp.array([1, 2])].add(1.0)
        return _summed(v)

    for fn in (idle_kernel, idle_inside_jit):
        assert ah.primitive_counts(fn, x)["pallas_call"] == 0, fn.__name__
        assert ah.pallas_grids(fn, x) == [], fn.__name__
        assert ah.primitive_counts(fn, x, include_unused=True)["pallas_call"] == 1, fn.__name__
    assert ah.primitive_counts(idle_scatter, x)["scatter-add"] == 0
    assert ah.primitive_counts(idle_scatter, x, include_unused=True)["scatter-add"] == 1
    used = jax.jit(lambda w: (_double(w, 2), 2 * w))
    assert ah.primitive_counts(lambda v: used(v)[0], x)["pallas_call"] == 1


def test_only_the_used_branch_outputs_and_whole_loops_count():
    x = jnp.ones(8, jnp.float32)

    def one_output_of_cond(v):
        pair = jax.lax.cond(v[0] > 0, lambda a: (2 * a, jnp.sin(a)), lambda a: (a, a), v)
        return pair[0]

    counts = ah.primitive_counts(one_output_of_cond, x)
    assert counts["cond"] == 1 and counts["mul"] == 1 and counts["sin"] == 0

    def loop(v):  # a carry feeds the next iteration: the body counts whole
        return jax.lax.fori_loop(0, 3, lambda i, c: jnp.cos(c) + i, v)

    assert ah.primitive_counts(loop, x)["cos"] == 1


def test_used_equations_reads_operands_of_what_the_result_uses():
    x = jnp.ones(8, jnp.float32)

    def two_kernels(v):
        _double(v, 4)  # unused
        return _double(v, 2)

    (used,) = ah.used_equations(two_kernels, x, primitive="pallas_call")
    assert tuple(used.params["grid_mapping"].grid) == (4,)
    assert len(ah.used_equations(two_kernels, x, primitive="pallas_call", include_unused=True)) == 2
    names = {e.primitive.name for e in ah.used_equations(two_kernels, x)}
    assert {"pallas_call", "mul"} <= names  # the kernel's body counts whole


def test_block_shapes_and_the_work_around_kernels():
    x = jnp.ones((4, 8), jnp.float32)

    def whole(v):  # no BlockSpecs: every program of the grid sees the whole array
        return pl.pallas_call(
            lambda x_ref, o_ref: o_ref.__setitem__(..., 2 * x_ref[...]),
            out_shape=jax.ShapeDtypeStruct(v.shape, v.dtype),
            grid=(2,),
            interpret=True,
        )(v)

    assert ah.pallas_block_shapes(whole, x) == [[(4, 8), (4, 8)]]
    assert ah.pallas_block_shapes(lambda v: _double(v.reshape(-1), 8), x) == [[(8,), (8,)]]
    around = ah.used_equations(lambda v: _double(jnp.sin(v), 8), x.reshape(-1), kernel_bodies=False)
    assert {e.primitive.name for e in around} >= {"sin", "pallas_call"}
    assert "mul" not in {e.primitive.name for e in around}  # the kernel's own work
