"""Matplotlib pictures of meshes and shardings: which device holds which block of an array.

``jax.debug.visualize_array_sharding`` draws a text table and needs ``rich``; these pictures need
only matplotlib, return the :class:`matplotlib.figure.Figure` (so a notebook can show it, save it
or check it), and keep one colour per device across pictures. As in JAX's picture, each distinct
block is one box, labelled with every device that holds it and how many copies there are ("devs
0,2,4,6 ×4"): a block held by one device has that device's colour; a replicated block is one
greyed box in the colour of its first holder, so copies never look like a split.

The blocks come from the sharding itself (``sharding.devices_indices_map(shape)``), the same map
that decides what ``x.addressable_shards`` hold; :func:`sharding_blocks` returns them as data.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import jax

from .._checks import positive_int
from .._figures import new_figure

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

#: Devices with ids 0-9 get the ten strong colours of ``tab20``, ids 10-19 the light ones.
_PALETTE_SIZE = 20


#: What the pictures accept: a placed array, or a sharding (together with a ``shape=``).
ShardedThing = jax.Array | jax.sharding.Sharding


@dataclass(frozen=True)
class ShardBlock:
    """One block of an array and every device that holds a copy of it."""

    bounds: tuple[tuple[int, int], ...]
    """``(start, stop)`` along each array dimension."""
    device_ids: tuple[int, ...]
    """Devices holding this block, ascending; more than one means the block is replicated."""

    @property
    def replicated(self) -> bool:
        return len(self.device_ids) > 1

    @property
    def index(self) -> tuple[slice, ...]:
        """The block as a NumPy index: ``x[block.index]``."""
        return tuple(slice(a, b) for a, b in self.bounds)


def device_color(device_id: int) -> tuple[float, float, float, float]:
    """The colour every picture uses for device ``device_id`` (RGBA)."""
    from matplotlib import colormaps

    slot = (2 * device_id) % _PALETTE_SIZE + (device_id // (_PALETTE_SIZE // 2)) % 2
    return tuple(colormaps["tab20"](slot))  # type: ignore[return-value]


def _normalise(index: tuple[slice, ...], shape: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    bounds = []
    for s, n in zip(index, shape, strict=True):
        start, stop, step = s.indices(n)
        if step != 1:
            raise ValueError(f"strided shard index {s} cannot be drawn as a block")
        bounds.append((start, stop))
    return tuple(bounds)


def _sharding_and_shape(
    x: ShardedThing, shape: Sequence[int] | None
) -> tuple[jax.sharding.Sharding, tuple[int, ...]]:
    if isinstance(x, jax.sharding.Sharding):
        if shape is None:
            raise ValueError(
                "a sharding alone has no shape; pass shape=..., e.g. draw_sharding(s, shape=(8, 4))"
            )
        return x, tuple(shape)
    sharding = getattr(x, "sharding", None)
    if not isinstance(sharding, jax.sharding.Sharding):
        raise TypeError(
            f"expected a jax.Array or a jax.sharding.Sharding, got {type(x).__name__}; "
            "place data first, e.g. jax.device_put(np_array, NamedSharding(mesh, P('x')))"
        )
    if shape is not None and tuple(shape) != tuple(x.shape):
        raise ValueError(f"shape={tuple(shape)} differs from the array's shape {tuple(x.shape)}")
    return sharding, tuple(x.shape)


def sharding_blocks(x: ShardedThing, shape: Sequence[int] | None = None) -> tuple[ShardBlock, ...]:
    """The distinct blocks of ``x`` (an array, or a sharding with ``shape``) and who holds them.

    Blocks are sorted by position (row-major); a scalar is one block of shape ``()``.
    """
    sharding, full_shape = _sharding_and_shape(x, shape)
    holders: dict[tuple[tuple[int, int], ...], list[int]] = {}
    for device, index in sharding.devices_indices_map(full_shape).items():
        # JAX's annotation of devices_indices_map names a Device type mypy cannot resolve.
        device_id: int = device.id  # type: ignore[attr-defined]
        holders.setdefault(_normalise(index, full_shape), []).append(device_id)
    return tuple(ShardBlock(bounds, tuple(sorted(ids))) for bounds, ids in sorted(holders.items()))


def _new_figure(width: float, height: float) -> Figure:
    return new_figure(width, height, layout="constrained")


def _rows_cols(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) > 2:
        raise ValueError(
            f"pictures show 0-, 1- and 2-D arrays, got shape {shape}; draw a 2-D view instead, "
            "e.g. x.reshape(x.shape[0], -1) keeps the sharding of dimension 0"
        )
    if len(shape) == 2:
        return shape[0], shape[1]
    return 1, (shape[0] if shape else 1)


def _id_list(ids: Sequence[int]) -> str:
    """``0,2,4,6``; a run of consecutive ids longer than three as ``0–7``."""
    if len(ids) > 3 and list(ids) == list(range(ids[0], ids[-1] + 1)):
        return f"{ids[0]}–{ids[-1]}"
    if len(ids) > 6:
        return ",".join(str(i) for i in ids[:3]) + ",…," + str(ids[-1])
    return ",".join(str(i) for i in ids)


def block_label(ids: Sequence[int], *, wrap: bool = False) -> str:
    """The label of a block held by devices ``ids``: ``dev 3``, or ``devs 0,2,4,6 ×4`` (the
    holders and the number of copies; ``wrap`` puts the count on a line of its own)."""
    if len(ids) == 1:
        return f"dev {ids[0]}"
    return f"devs {_id_list(ids)}" + ("\n" if wrap else " ") + f"×{len(ids)}"


def block_color(ids: Sequence[int]) -> tuple[float, float, float, float]:
    """A block's fill: its device's colour, or for a replicated block the first holder's colour
    washed towards grey (one box, one colour: a copy is not a part)."""
    colour = device_color(ids[0])
    if len(ids) == 1:
        return colour
    grey = 0.86
    return (*(0.35 * c + 0.65 * grey for c in colour[:3]), 1.0)  # type: ignore[return-value]


def _spec_text(sharding: jax.sharding.Sharding) -> str:
    spec = getattr(sharding, "spec", None)
    if spec is None:
        return type(sharding).__name__
    return "P(" + ", ".join(repr(p) for p in spec) + ")"


def _draw_blocks(ax: Axes, x: ShardedThing, shape: Sequence[int] | None, title: str | None) -> None:
    from matplotlib.patches import Rectangle

    sharding, full_shape = _sharding_and_shape(x, shape)
    blocks = sharding_blocks(sharding, full_shape)
    n_rows, n_cols = _rows_cols(full_shape)
    for block in blocks:
        # Draw 1-D arrays as one row and a scalar as a single cell.
        (r0, r1), (c0, c1) = (((0, 1), (0, 1)), ((0, 1), *block.bounds), block.bounds)[
            len(full_shape)
        ]
        ax.add_patch(
            Rectangle(
                (c0, r0),
                c1 - c0,
                r1 - r0,
                facecolor=block_color(block.device_ids),
                edgecolor="black",
                linewidth=1.5,
                gid="block "
                + ",".join(f"{a}:{b}" for a, b in block.bounds)
                + " devices "
                + ",".join(str(i) for i in block.device_ids),
            )
        )
        # Narrow, tall blocks get their label turned sideways so neighbours do not overlap.
        width, height = (c1 - c0) / n_cols, (r1 - r0) / n_rows
        sideways = width < 0.2 and height > width
        ax.text(
            (c0 + c1) / 2,
            (r0 + r1) / 2,
            block_label(block.device_ids, wrap=not sideways and width < 0.5),
            ha="center",
            va="center",
            fontsize=8 if len(blocks) <= 8 else 7,
            rotation=90 if sideways else 0,
            bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "alpha": 0.8, "lw": 0},
        )
    ax.set_xlim(0, n_cols)
    ax.set_ylim(n_rows, 0)
    ax.set_aspect("auto")
    ax.set_xticks(sorted({b.bounds[-1][0] for b in blocks if b.bounds} | {n_cols}))
    ax.set_yticks(
        sorted({b.bounds[0][0] for b in blocks} | {n_rows}) if len(full_shape) == 2 else []
    )
    ax.tick_params(labelsize=7, length=2)
    dtype = getattr(x, "dtype", None)
    head = f"{dtype}{list(full_shape)}" if dtype is not None else f"shape {list(full_shape)}"
    ax.set_title(title if title is not None else f"{head}\n{_spec_text(sharding)}", fontsize=9)


def draw_sharding(
    x: ShardedThing, *, shape: Sequence[int] | None = None, title: str | None = None
) -> Figure:
    """A picture of which device holds which block of ``x`` (1-D or 2-D array, or a sharding
    with ``shape``). One box per distinct block, labelled with its holders and copies ("devs
    0,1 ×2"); a block on one device has that device's colour, a replicated block a greyed one.
    """
    _, full_shape = _sharding_and_shape(x, shape)
    n_rows, n_cols = _rows_cols(full_shape)
    fig = _new_figure(3.2, 1.2 if len(full_shape) < 2 else 1.0 + 2.2 * min(1.0, n_rows / n_cols))
    _draw_blocks(fig.add_subplot(), x, shape, title)
    return fig


def draw_shardings(
    arrays: Mapping[str, jax.Array] | Sequence[jax.Array], *, ncols: int | None = None
) -> Figure:
    """Several sharding pictures side by side, to compare layouts of the same data.

    Args:
        arrays: ``{title: array}``, or a sequence of arrays (titled by shape and spec).
        ncols: panels per row (default: all in one row, at most 4).
    """
    items = list(arrays.items()) if isinstance(arrays, Mapping) else [(None, a) for a in arrays]
    if not items:
        raise ValueError("nothing to draw: pass at least one array")
    cols = positive_int("ncols", ncols) if ncols is not None else min(len(items), 4)
    rows = math.ceil(len(items) / cols)
    fig = _new_figure(2.8 * cols, 2.4 * rows)
    for i, (title, array) in enumerate(items):
        _draw_blocks(fig.add_subplot(rows, cols, i + 1), array, None, title)
    return fig


def draw_mesh(mesh: jax.sharding.Mesh, *, title: str | None = None) -> Figure:
    """A picture of a mesh: its devices laid out by axis (first axis down, the others across),
    each in its device colour and labelled with its id."""
    from matplotlib.patches import Rectangle

    devices = getattr(mesh, "devices", None)
    if devices is None or not hasattr(mesh, "axis_names"):
        raise TypeError(
            f"expected a jax.sharding.Mesh, got {type(mesh).__name__}; "
            "make one with jax.make_mesh or ah.make_mesh"
        )
    names, sizes = tuple(mesh.axis_names), tuple(devices.shape)
    grid = devices.reshape(1, -1) if len(sizes) == 1 else devices.reshape(sizes[0], -1)
    n_rows, n_cols = grid.shape
    fig = _new_figure(1.0 + 0.9 * n_cols, 0.8 + 0.7 * n_rows)
    ax = fig.add_subplot()
    for (r, c), device in zip(
        ((r, c) for r in range(n_rows) for c in range(n_cols)), grid.flat, strict=True
    ):
        ax.add_patch(
            Rectangle(
                (c, r),
                1,
                1,
                facecolor=device_color(device.id),
                edgecolor="white",
                linewidth=2,
                gid=f"device {device.id}",
            )
        )
        ax.text(c + 0.5, r + 0.5, f"dev {device.id}", ha="center", va="center", fontsize=9)
    ax.set_xlim(0, n_cols)
    ax.set_ylim(n_rows, 0)
    ax.set_aspect("equal")
    across = names if len(names) == 1 else names[1:]
    ax.set_xlabel(" × ".join(f"{n} ({mesh.shape[n]})" for n in across), fontsize=9)
    ax.set_ylabel(f"{names[0]} ({sizes[0]})" if len(names) > 1 else "", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
    types = getattr(mesh, "axis_types", None)
    kinds = sorted({getattr(t, "name", str(t)) for t in types}) if types else []
    default = "Mesh " + " × ".join(f"{n}={s}" for n, s in zip(names, sizes, strict=True))
    ax.set_title(title or (default + (f"  ({', '.join(kinds)})" if kinds else "")), fontsize=9)
    return fig
