"""The Pallas block map and its picture agree with what a kernel actually touches."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import matplotlib
import numpy as np
import pytest
from jax.experimental import pallas as pl
from matplotlib.figure import Figure

import aurora_helpers as ah

matplotlib.use("Agg")


def _owner(grid, shape, spec):
    """Run a kernel that writes its flat program id into its block (interpret mode)."""

    def kernel(x_ref, o_ref):
        flat = pl.program_id(0)
        for axis in range(1, len(grid)):
            flat = flat * grid[axis] + pl.program_id(axis)
        o_ref[...] = jnp.full(o_ref.shape, flat, o_ref.dtype)

    return np.asarray(
        pl.pallas_call(
            kernel,
            out_shape=jax.ShapeDtypeStruct(shape, jnp.int32),
            grid=grid,
            in_specs=[spec],
            out_specs=spec,
            interpret=True,
        )(jnp.zeros(shape, jnp.float32))
    )


@pytest.mark.parametrize(
    ("grid", "shape", "spec"),
    [
        ((4,), (16, 8), pl.BlockSpec((4, 8), lambda i: (i, 0))),
        ((2,), (8, 16), pl.BlockSpec((8, 8), lambda j: (0, j))),
        ((2, 3), (8, 12), pl.BlockSpec((4, 4), lambda i, j: (i, j))),
    ],
)
def test_blocks_match_what_the_kernel_writes(grid, shape, spec):
    blocks = ah.pallas_blocks(grid, shape, spec)
    owner = _owner(grid, shape, spec)
    cover = np.zeros(shape, int)
    for flat, block in enumerate(blocks):
        assert block.programs == (tuple(np.unravel_index(flat, grid)),)
        assert (owner[block.index] == flat).all()
        cover[block.index] += 1
    assert (cover == 1).all()


def test_shared_blocks_list_every_program():
    # A matmul's left operand: program (i, j) reads row block i for every j.
    blocks = ah.pallas_blocks((2, 3), (8, 4), ((4, 4), lambda i, j: (i, 0)))
    assert [b.bounds for b in blocks] == [((0, 4), (0, 4)), ((4, 8), (0, 4))]
    assert blocks[0].programs == ((0, 0), (0, 1), (0, 2))


def test_bad_specs_are_reported():
    with pytest.raises(ValueError, match="outside shape"):
        ah.pallas_blocks((3,), (8, 4), ((4, 4), lambda i: (i, 0)))
    with pytest.raises(ValueError, match="does not divide"):
        ah.pallas_blocks((2,), (9, 4), ((4, 4), lambda i: (i, 0)))
    with pytest.raises(ValueError, match="differ in rank"):
        ah.pallas_blocks((2,), (8,), ((4, 4), lambda i: (i, 0)))
    with pytest.raises(ValueError, match="returned 1 block indices"):
        ah.pallas_blocks((2,), (8, 4), ((4, 4), lambda i: i))
    with pytest.raises(TypeError, match="BlockSpec"):
        ah.pallas_blocks((2,), (8, 4), "rows")


def test_draw_returns_a_figure_with_one_patch_per_block():
    spec = pl.BlockSpec((4, 8), lambda i: (i, 0))
    fig = ah.draw_pallas_blocks((4,), {"x": ((16, 8), spec), "v": ((8,), ((2,), lambda i: (i,)))})
    assert isinstance(fig, Figure)
    x_ax, v_ax = fig.axes
    assert len(x_ax.patches) == 4 and len(v_ax.patches) == 4
    first = x_ax.patches[1]
    assert (first.get_y(), first.get_height(), first.get_width()) == (4, 4, 8)
    assert [t.get_text() for t in x_ax.texts] == ["0", "1", "2", "3"]
    colours = {p.get_facecolor() for p in x_ax.patches}
    assert len(colours) == 4
    with pytest.raises(ValueError, match="rank-1 and rank-2"):
        ah.draw_pallas_blocks((1,), {"t": ((2, 2, 2), ((2, 2, 2), lambda i: (0, 0, 0)))})
