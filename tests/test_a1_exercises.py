"""The checks of notebook A1's exercises reject wrong answers: hard-coded values, NumPy detours,
and routes that skip the skill (plain jax.numpy instead of a kernel, the wrong tiling, no FFI call).

The notebook runs once in this process (its own cells, minus the Colab one and the cells meant to
raise); then each exercise's check cell runs again with a wrong answer in place of the solution.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import jupytext
import numpy as np
import pytest
from jax.experimental import pallas as pl

import aurora_helpers as ah

from .conftest import NOTEBOOKS

NOTEBOOK = NOTEBOOKS / "A1_custom_kernels.md"


def _code_cells():
    nb = jupytext.read(NOTEBOOK)
    return [c for c in nb.cells if c.cell_type == "code"][1:]  # not the Colab cell


def _check_cell(cells, exercise):
    pattern = re.compile(rf'ah\.check\(\s*"{re.escape(exercise)}"')
    found = [c.source for c in cells if pattern.search(c.source)]
    assert len(found) == 1, f"no single check cell for {exercise}"
    return found[0]


@pytest.fixture(scope="module")
def notebook():
    cells = _code_cells()
    namespace: dict = {"__name__": "a1_notebook"}
    for cell in cells:
        if "raises-exception" in cell.metadata.get("tags", []):
            continue
        exec(compile(cell.source, str(NOTEBOOK), "exec"), namespace)
    return cells, namespace


def _rejects(notebook, exercise, name, wrong):
    cells, namespace = notebook
    scope = {**namespace, name: wrong}
    with pytest.raises((ah.ExerciseFailed, TypeError, jax.errors.JaxRuntimeError)):
        exec(compile(_check_cell(cells, exercise), str(NOTEBOOK), "exec"), scope)


def test_the_solutions_pass(notebook):
    cells, namespace = notebook
    for exercise in ("A1.1", "A1.2", "A1.3"):
        scope = dict(namespace)
        exec(compile(_check_cell(cells, exercise), str(NOTEBOOK), "exec"), scope)


def test_a1_1_rejects_wrong_answers(notebook):
    _, ns = notebook
    xa, ya = np.asarray(ns["xa"]), np.asarray(ns["ya"])
    hard_coded = jnp.asarray((xa - ya) ** 2)
    _rejects(notebook, "A1.1", "squared_difference", lambda x, y: hard_coded)
    _rejects(notebook, "A1.1", "squared_difference", lambda x, y: (np.asarray(x) - y) ** 2)
    _rejects(notebook, "A1.1", "squared_difference", lambda x, y: (x - y) ** 2)  # no kernel

    def difference_kernel(x_ref, y_ref, o_ref):  # a kernel, but the wrong variant
        o_ref[...] = x_ref[...] - y_ref[...]

    _rejects(
        notebook,
        "A1.1",
        "squared_difference",
        lambda x, y: pl.pallas_call(
            difference_kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True
        )(x, y),
    )


def test_a1_2_rejects_wrong_answers(notebook):
    _, ns = notebook
    eps, xc = ns["EPS"], ns["xc"]
    hard_coded = xc * jax.lax.rsqrt(jnp.mean(xc * xc, axis=0, keepdims=True) + eps)

    def plain(x, block_cols):
        return x * jax.lax.rsqrt(jnp.mean(x * x, axis=0, keepdims=True) + eps)

    def one_block(x, block_cols):  # a kernel, but no tiling
        def kernel(x_ref, o_ref):
            v = x_ref[...]
            o_ref[...] = v * jax.lax.rsqrt(jnp.mean(v * v, axis=0, keepdims=True) + eps)

        return pl.pallas_call(
            kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True
        )(x)

    _rejects(notebook, "A1.2", "column_rms_norm", lambda x, b: hard_coded)
    _rejects(notebook, "A1.2", "column_rms_norm", lambda x, b: np.asarray(plain(x, b)))
    _rejects(notebook, "A1.2", "column_rms_norm", plain)
    _rejects(notebook, "A1.2", "column_rms_norm", one_block)
    # Row tiles instead of column tiles: the right grid size, the wrong normalisation.
    _rejects(
        notebook, "A1.2", "column_rms_norm", lambda x, b: ns["rms_norm_pallas"](x, block=b // 2)
    )


def test_a1_3_rejects_wrong_answers(notebook):
    _, ns = notebook
    if not ns["ffi_ready"]:
        pytest.skip("no C++ compiler: the FFI exercise is skipped in the notebook too")
    build, xp = ns["ffi_build"], ns["xp"]
    hard_coded = jnp.asarray((np.abs(np.asarray(xp)) ** 3).sum(axis=-1))

    def ffi_power(x, power, attribute):
        call = jax.ffi.ffi_call(
            build["PowerSum"], jax.ShapeDtypeStruct(x.shape[:-1], x.dtype), vmap_method="sequential"
        )
        return call(x, power=attribute)

    _rejects(notebook, "A1.3", "power_sum_ffi", lambda x, p: hard_coded)
    _rejects(notebook, "A1.3", "power_sum_ffi", lambda x, p: jnp.sum(jnp.abs(x) ** p, axis=-1))
    _rejects(notebook, "A1.3", "power_sum_ffi", lambda x, p: ffi_power(x, p, np.int64(2)))
    _rejects(notebook, "A1.3", "power_sum_ffi", lambda x, p: ffi_power(x, p, np.float32(p)))
