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
