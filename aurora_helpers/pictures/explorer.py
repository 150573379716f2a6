"""A sharding explorer: pick a mesh, an array shape and a ``PartitionSpec``; see who holds what.

:func:`explore_sharding` builds the mesh on this machine's devices, places nothing, and answers
from the sharding itself (``sharding.devices_indices_map``, as :func:`sharding_blocks` does):
which device holds which block (one box per distinct block in the picture, as
:func:`~aurora_helpers.pictures.sharding.draw_sharding` draws it) and how many bytes each device
holds. Given the other operand's spec, it also compiles ``x @ w`` for those shardings with
``jax.jit`` on these devices and reads the collectives the compiled program holds
(:func:`aurora_helpers.compiled.collectives.count_collectives`), each priced by the course's cost
model (:func:`aurora_helpers.compiled.comm_costs.compiled_traffic`)::

    found = explore_sharding((4, 2), ("data", "model"), (16, 8), P("data", "model"),
                             other_spec=P("model", None))
    found.blocks                      # the distinct blocks of x and their holders
    found.bytes_per_device            # {device id: bytes of x it holds}
    found.matmul.counts               # e.g. 1 all-reduce, over the 'model' axis
    found.matmul.traffic.sent         # bytes each device sends, by the cost model
    found                             # in a notebook: the picture and the tables

The mesh's axes are ``AxisType.Auto``: the compiler, not the array types, decides where the
result lives and inserts the communication the operands' layouts need, which is what the
explorer shows. :class:`ShardingExplorerPanel` puts the same call behind ipywidgets menus, and
:func:`explorer_gallery_html` renders a few configurations as plain HTML (no JavaScript) for the
static site.
"""

from __future__ import annotations

import base64
import html
import io
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import jax
import numpy as np
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

from .._display import RawHTML, format_bytes, html_table, text_table
from ..compiled.collectives import CollectiveCounts, count_collectives
from ..compiled.comm_costs import CollectiveCost, Traffic, compiled_traffic
from ..mesh import balanced_shape
from .sharding import ShardBlock, _draw_blocks, _new_figure, sharding_blocks

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: What a spec's entry may be: no sharding, one mesh axis, or several (major to minor).
SpecEntry = str | tuple[str, ...] | None


def _entry_axes(entry: object) -> tuple[str, ...]:
    if entry is None:
        return ()
    if isinstance(entry, str):
        return (entry,)
    if isinstance(entry, tuple) and all(isinstance(a, str) for a in entry):
        return entry
    raise ValueError(
        f"a PartitionSpec entry must be None, a mesh axis name or a tuple of names, got {entry!r};"
        " e.g. P('data', None) or P(('data', 'model'), None)"
    )


def spec_text(spec: P) -> str:
    """``P('data', None)``: how the course writes a spec."""
    return "P(" + ", ".join(repr(e) for e in spec) + ")"


def _check_shape(name: str, shape: Sequence[int]) -> tuple[int, ...]:
    dims = tuple(shape)
    if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1 for d in dims):
        raise ValueError(f"{name} must be positive integers, got {dims}; e.g. (16, 8)")
    if len(dims) not in (1, 2):
        raise ValueError(
            f"the explorer draws 1-D and 2-D arrays, got {name} {dims}; explore a 2-D view, "
            "e.g. (batch * seq, features): reshaping keeps the sharding of the first dimension"
        )
    return tuple(int(d) for d in dims)


def build_mesh(
    mesh_shape: Sequence[int],
    axis_names: Sequence[str],
    *,
    devices: Sequence[Any] | None = None,
) -> jax.sharding.Mesh:
    """A mesh of ``mesh_shape`` over the first devices of ``devices`` (default: this machine's),
    with ``Auto`` axes.

    Raises:
        ValueError: the shape and names differ in length, a name is repeated or empty, a size is
            not positive, or the mesh needs more devices than there are (the message says how
            many there are, and how to simulate more CPU devices).
    """
    sizes, names = tuple(mesh_shape), tuple(axis_names)
    if not names or len(sizes) != len(names):
        raise ValueError(
            f"mesh shape {sizes} has {len(sizes)} axes but {len(names)} names {names}; give one "
            "name per axis, e.g. shape (4, 2) with names ('data', 'model')"
        )
    if any(not isinstance(n, str) or not n.isidentifier() for n in names):
        raise ValueError(f"axis names must be identifiers such as 'data', got {names!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"axis names must be distinct, got {names}")
    if any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1 for s in sizes):
        raise ValueError(f"every mesh axis size must be a positive integer, got {sizes}")
    pool = list(jax.devices() if devices is None else devices)
    needed = math.prod(sizes)
    if needed > len(pool):
        raise ValueError(
            f"mesh shape {sizes} needs {needed} devices but this machine has {len(pool)}; "
            f"pick sizes whose product is at most {len(pool)}, or simulate more CPU devices "
            f"(ah.setup_devices({needed}) before JAX starts: restart the kernel first)"
        )
    grid = np.array(pool[:needed], dtype=object).reshape(sizes)
    return jax.sharding.Mesh(grid, names, axis_types=(AxisType.Auto,) * len(names))


def check_spec(spec: P, shape: Sequence[int], mesh: jax.sharding.Mesh, *, name: str = "x") -> P:
    """``spec`` if it can lay out an array of ``shape`` on ``mesh``; otherwise a ``ValueError``
    that says what is wrong and what would work.

    Raises:
        ValueError: more entries than dimensions, an axis the mesh lacks, an axis used twice, or
            a dimension whose size the axes' devices do not divide.
    """
    if not isinstance(spec, P):
        raise TypeError(f"expected a PartitionSpec, e.g. P('data', None), got {spec!r}")
    dims = tuple(shape)
    if len(spec) > len(dims):
        raise ValueError(
            f"{spec_text(spec)} has {len(spec)} entries but {name} has {len(dims)} dimension(s) "
            f"{dims}; give at most one entry per dimension"
        )
    used: list[str] = []
    for d, entry in enumerate(spec):
        axes = _entry_axes(entry)
        for axis in axes:
            if axis not in mesh.shape:
                raise ValueError(
                    f"{spec_text(spec)} names axis {axis!r}, which the mesh lacks; its axes are "
                    f"{tuple(mesh.axis_names)}"
                )
            if axis in used:
                raise ValueError(
                    f"{spec_text(spec)} uses axis {axis!r} twice; an axis can split one "
                    "dimension only (an array has one coordinate per device along it)"
                )
            used.append(axis)
        parts = math.prod(mesh.shape[a] for a in axes)
        if dims[d] % parts:
            below = dims[d] - dims[d] % parts
            hint = f"{below} or {below + parts}" if below else f"{parts}"
            raise ValueError(
                f"{spec_text(spec)} splits dimension {d} of {name} (size {dims[d]}) into {parts} "
                f"blocks (axes {axes}), which does not divide it; make that size a multiple of "
                f"{parts} (e.g. {hint}) or shard it over fewer devices"
            )
    return spec


def _bytes_of(block: ShardBlock, itemsize: int) -> int:
    return math.prod(b - a for a, b in block.bounds) * itemsize


def _holdings(blocks: Iterable[ShardBlock], itemsize: int) -> dict[int, int]:
    return {device: _bytes_of(block, itemsize) for block in blocks for device in block.device_ids}


def _block_text(block: ShardBlock) -> str:
    return "[" + ", ".join(f"{a}:{b}" for a, b in block.bounds) + "]"


def _figure_html(fig: Figure) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img alt="sharding picture" src="data:image/png;base64,{data}"/>'


@dataclass(frozen=True)
class MatmulExploration:
    """``x @ w`` compiled for the operands' shardings: where the result lives, what moves."""

    other_shape: tuple[int, ...]
    other_spec: P
    other_sharding: NamedSharding
    other_blocks: tuple[ShardBlock, ...]
    out_shape: tuple[int, ...]
    out_sharding: jax.sharding.Sharding
    """The result's sharding, as the compiled program has it (XLA's choice unless
    ``out_spec`` fixed it)."""
    out_blocks: tuple[ShardBlock, ...]
    counts: CollectiveCounts
    """The collectives of the compiled program (those that move data)."""
    traffic: Traffic
    """Each collective priced by the cost model (on a switch), in ``counts.ops`` order."""
    mesh_axes: tuple[tuple[str, ...], ...]
    """The mesh axes each collective runs along, in ``counts.ops`` order."""

    def rows(self) -> list[tuple[str, str, int, str, int, float]]:
        """One row per collective: kind, mesh axes, group size, result per device, the array's
        bytes (as the cost model takes it), bytes each device sends."""
        out = []
        for op, cost, axes in zip(self.counts.ops, self.traffic.costs, self.mesh_axes, strict=True):
            out.append(
                (op.kind, ",".join(axes), cost.devices, op.result, cost.nbytes, float(cost.sent))
            )
        return out


@dataclass(frozen=True)
class ShardingExploration:
    """What :func:`explore_sharding` found; shows itself as the picture and the tables."""

    mesh: jax.sharding.Mesh
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    spec: P
    sharding: NamedSharding
    blocks: tuple[ShardBlock, ...]
    """The distinct blocks of x and their holders (:func:`sharding_blocks`)."""
    bytes_per_device: dict[int, int]
    """``{device id: bytes of x it holds}`` for every device of the mesh."""
    matmul: MatmulExploration | None = None
    """``x @ w`` compiled, when the other operand's spec was given."""
    _figure_cache: list[str] = field(default_factory=list, compare=False, repr=False)

    @property
    def nbytes(self) -> int:
        """Bytes of the whole of x."""
        return math.prod(self.shape) * self.dtype.itemsize

    @property
    def copies(self) -> int:
        """How many devices hold each element of x (1: split, no copies)."""
        return sum(self.bytes_per_device.values()) // max(self.nbytes, 1)

    def title(self) -> str:
        mesh = " × ".join(f"{n}={s}" for n, s in self.mesh.shape.items())
        text = f"mesh {mesh}, x {self.dtype.name}{list(self.shape)} {spec_text(self.spec)}"
        if self.matmul is not None:
            text += f", x @ w with w{list(self.matmul.other_shape)} "
            text += spec_text(self.matmul.other_spec)
        return text

    def draw(self) -> Figure:
        """x's blocks (and, for the matmul, w's and the result's), one box per distinct block."""
        panels: list[tuple[jax.sharding.Sharding, tuple[int, ...], str]] = [
            (self.sharding, self.shape, f"x {list(self.shape)}\n{spec_text(self.spec)}")
        ]
        if self.matmul is not None:
            m = self.matmul
            out_spec = getattr(m.out_sharding, "spec", None)
            panels.append(
                (
                    m.other_sharding,
                    m.other_shape,
                    f"w {list(m.other_shape)}\n{spec_text(m.other_spec)}",
                )
            )
            panels.append(
                (
                    m.out_sharding,
                    m.out_shape,
                    f"x @ w {list(m.out_shape)}\n"
                    + (spec_text(out_spec) if out_spec is not None else "compiled"),
                )
            )
        fig = _new_figure(2.8 * len(panels), 2.4)
        for i, (sharding, shape, title) in enumerate(panels):
            _draw_blocks(fig.add_subplot(1, len(panels), i + 1), sharding, shape, title)
        return fig

    def device_rows(self) -> list[tuple[object, ...]]:
        """One row per device: its id, x's block and bytes (and w's and the result's)."""

        def by_device(blocks: Iterable[ShardBlock]) -> dict[int, ShardBlock]:
            return {d: b for b in blocks for d in b.device_ids}

        x = by_device(self.blocks)
        extra = (
            (by_device(self.matmul.other_blocks), by_device(self.matmul.out_blocks))
            if self.matmul is not None
            else ()
        )
        rows: list[tuple[object, ...]] = []
        for device in sorted(self.bytes_per_device):
            row: list[object] = [device, _block_text(x[device]), self.bytes_per_device[device]]
            for held in extra:
                block = held[device]
                row += [_block_text(block), _bytes_of(block, self.dtype.itemsize)]
            rows.append(tuple(row))
        return rows

    def _device_headers(self) -> tuple[str, ...]:
        heads: tuple[str, ...] = ("device", "x block", "x bytes")
        if self.matmul is not None:
            heads += ("w block", "w bytes", "x @ w block", "x @ w bytes")
        return heads

    def _collective_headers(self) -> tuple[str, ...]:
        return (
            "collective",
            "mesh axes",
            "devices",
            "result per device",
            "array bytes",
            "sent per device",
        )

    def __str__(self) -> str:
        parts = [self.title(), text_table(self._device_headers(), self.device_rows())]
        if self.matmul is not None:
            if self.matmul.counts.total:
                parts.append(text_table(self._collective_headers(), self.matmul.rows()))
                parts.append(str(self.matmul.traffic))
            else:
                parts.append("x @ w: no collectives, every device computes its block alone")
        return "\n\n".join(parts)

    def tables_html(self) -> str:
        """The bytes-per-device table and, for the matmul, the collectives table (HTML)."""
        cap = (
            f"bytes per device: x is {format_bytes(self.nbytes)}, held "
            f"{self.copies} time(s) over {len(self.bytes_per_device)} devices"
        )
        rows = [
            tuple(f"{c:,}" if isinstance(c, int) and i > 1 else c for i, c in enumerate(r))
            for r in self.device_rows()
        ]
        out = html_table(self._device_headers(), rows, caption=cap)
        if self.matmul is not None:
            m = self.matmul
            if not m.counts.total:
                out += "<p><b>x @ w</b>: no collectives; every device computes its block alone.</p>"
            else:
                crows = [
                    (k, axes, n, RawHTML(f"<code>{html.escape(r)}</code>"), f"{b:,}", f"{s:,.0f}")
                    for k, axes, n, r, b, s in m.rows()
                ]
                out += html_table(
                    self._collective_headers(),
                    crows,
                    caption=f"x @ w compiled: {m.counts}; {m.traffic}",
                )
        return out

    def html(self) -> str:
        """The title, the picture (an inline PNG) and the tables: plain HTML, no JavaScript."""
        if not self._figure_cache:
            self._figure_cache.append(_figure_html(self.draw()))
        return (
            f"<div><p><b>{html.escape(self.title())}</b></p>{self._figure_cache[0]}"
            f"{self.tables_html()}</div>"
        )

    def _repr_html_(self) -> str:
        return self.html()


def explore_sharding(
    mesh_shape: Sequence[int],
    axis_names: Sequence[str],
    shape: Sequence[int],
    spec: P,
    *,
    other_spec: P | None = None,
    other_shape: Sequence[int] | None = None,
    out_spec: P | None = None,
    dtype: Any = "float32",
    devices: Sequence[Any] | None = None,
) -> ShardingExploration:
    """Who holds which block of an array laid out by ``spec``, and (given ``other_spec``) what
    ``x @ w`` makes the devices send.

    Args:
        mesh_shape: devices along each mesh axis, e.g. ``(4, 2)``.
        axis_names: one name per axis, e.g. ``("data", "model")``.
        shape: x's shape (1-D or 2-D).
        spec: x's :class:`~jax.sharding.PartitionSpec`.
        other_spec: w's spec; compiles ``x @ w`` (x must be 2-D) and reads its collectives.
        other_shape: w's shape (default ``(shape[1], shape[1])``).
        out_spec: the result's spec; by default the compiler chooses.
        dtype: the elements' dtype (bytes per element).
        devices: the devices to build the mesh on (default ``jax.devices()``); the mesh takes
            the first ``prod(mesh_shape)``.

    Raises:
        ValueError: the mesh does not fit the devices, or a spec does not fit its array (the
            message says why, and what would fit).
    """
    mesh = build_mesh(mesh_shape, axis_names, devices=devices)
    dims = _check_shape("shape", shape)
    kind = np.dtype(dtype)
    check_spec(spec, dims, mesh, name="x")
    sharding = NamedSharding(mesh, spec)
    blocks = sharding_blocks(sharding, dims)
    matmul = None
    if other_spec is not None:
        matmul = _explore_matmul(mesh, dims, sharding, other_spec, other_shape, out_spec, kind)
    elif other_shape is not None or out_spec is not None:
        raise ValueError("other_shape and out_spec describe the matmul: give other_spec too")
    return ShardingExploration(
        mesh, dims, kind, spec, sharding, blocks, _holdings(blocks, kind.itemsize), matmul
    )


def _explore_matmul(
    mesh: jax.sharding.Mesh,
    dims: tuple[int, ...],
    sharding: NamedSharding,
    other_spec: P,
    other_shape: Sequence[int] | None,
    out_spec: P | None,
    kind: np.dtype[Any],
) -> MatmulExploration:
    if len(dims) != 2:
        raise ValueError(f"x @ w needs a 2-D x, got shape {dims}; e.g. shape (16, 8)")
    w_dims = _check_shape("other_shape", other_shape or (dims[1], dims[1]))
    if len(w_dims) != 2 or w_dims[0] != dims[1]:
        raise ValueError(
            f"x {dims} @ w {w_dims}: w must be 2-D with {dims[1]} rows (x's columns), "
            f"e.g. other_shape=({dims[1]}, {w_dims[-1]})"
        )
    check_spec(other_spec, w_dims, mesh, name="w")
    out_dims = (dims[0], w_dims[1])
    w_sharding = NamedSharding(mesh, other_spec)
    out_shardings = None
    if out_spec is not None:
        check_spec(out_spec, out_dims, mesh, name="x @ w")
        out_shardings = NamedSharding(mesh, out_spec)
    step = jax.jit(lambda a, b: a @ b, out_shardings=out_shardings)
    compiled = step.lower(
        jax.ShapeDtypeStruct(dims, kind, sharding=sharding),
        jax.ShapeDtypeStruct(w_dims, kind, sharding=w_sharding),
    ).compile()
    counts = count_collectives(compiled)
    out_sharding = compiled.output_shardings
    if not isinstance(out_sharding, jax.sharding.Sharding):  # a pytree of one
        out_sharding = jax.tree.leaves(out_sharding)[0]
    costs: tuple[CollectiveCost, ...] = compiled_traffic(counts).costs
    return MatmulExploration(
        w_dims,
        other_spec,
        w_sharding,
        sharding_blocks(w_sharding, w_dims),
        out_dims,
        out_sharding,
        sharding_blocks(out_sharding, out_dims),
        counts,
        Traffic(costs),
        tuple(op.mesh_axes(mesh) for op in counts.ops),
    )


def specs_for(axis_names: Sequence[str], rank: int, *, longest: int = 2) -> list[P]:
    """Every spec of ``rank`` entries over ``axis_names`` (each entry None, one axis, or a tuple
    of up to ``longest`` axes; no axis twice): the choices a menu offers. ``P()``-like
    all-``None`` spec first."""
    names = tuple(axis_names)
    entries: list[SpecEntry] = [None, *names]
    for k in range(2, min(longest, len(names)) + 1):
        entries += list(itertools.permutations(names, k))
    out = []
    for combo in itertools.product(entries, repeat=rank):
        used = [a for e in combo for a in _entry_axes(e)]
        if len(used) == len(set(used)):
            out.append(P(*combo))
    return out


def mesh_shapes(devices: int, *, max_axes: int = 3) -> list[tuple[int, ...]]:
    """Mesh shapes whose sizes multiply to a divisor of ``devices`` (sizes above 1 except in a
    one-axis mesh), most devices first: the choices the panel's mesh menu offers."""
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 1:
        raise ValueError(f"devices must be a positive integer, got {devices!r}")

    def splits(total: int, axes: int) -> list[tuple[int, ...]]:
        if axes == 1:
            return [(total,)] if total > 1 else []
        return [
            (first, *rest)
            for first in range(2, total + 1)
            if total % first == 0
            for rest in splits(total // first, axes - 1)
        ]

    out: list[tuple[int, ...]] = []
    for total in (d for d in range(devices, 0, -1) if devices % d == 0):
        out.append((total,))
        for axes in range(2, max_axes + 1):
            out += splits(total, axes)
    return out


@dataclass(frozen=True)
class ExplorerConfig:
    """One configuration of the explorer, for :func:`explorer_gallery_html`."""

    mesh_shape: tuple[int, ...]
    axis_names: tuple[str, ...]
    shape: tuple[int, ...]
    spec: P
    other_spec: P | None = None
    caption: str = ""

    def explore(self, devices: Sequence[Any] | None = None) -> ShardingExploration:
        return explore_sharding(
            self.mesh_shape,
            self.axis_names,
            self.shape,
            self.spec,
            other_spec=self.other_spec,
            devices=devices,
        )


def gallery_configs(devices: int = 8) -> tuple[ExplorerConfig, ...]:
    """The gallery's configurations for ``devices`` devices, on the balanced two-axis mesh
    (``data`` × ``model``: 8 devices give 4 × 2, 6 give 3 × 2, 5 give 5 × 1): x split by rows,
    by rows and columns, by rows over both axes, replicated; then three matmuls ``x @ w``. The
    captions describe the inputs only: what moves is what the compiled program holds, as the
    tables under each picture show.

    Raises:
        ValueError: ``devices`` is not a positive integer.
    """
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 1:
        raise ValueError(f"devices must be a positive integer, got {devices!r}")
    mesh = balanced_shape(devices, 2)
    rows, cols = 2 * mesh[0] * mesh[1], 4 * mesh[1]
    names = ("data", "model")

    def config(spec: P, other: P | None, caption: str) -> ExplorerConfig:
        return ExplorerConfig(mesh, names, (rows, cols), spec, other, caption)

    return (
        config(P("data", None), None, "x's rows split over 'data'"),
        config(P("data", "model"), None, "x's rows split over 'data', its columns over 'model'"),
        config(P(("data", "model"), None), None, "x's rows split over 'data' and 'model' at once"),
        config(P(), None, "x replicated"),
        config(
            P("data", None),
            P(None, "model"),
            "x @ w: x's rows over 'data', w's columns over 'model'",
        ),
        config(
            P("data", "model"),
            P("model", None),
            "x @ w: the contracted dimension split over 'model' in both operands",
        ),
        config(
            P("data", None),
            P("model", None),
            "x @ w: w's rows split over 'model', x's columns whole",
        ),
    )


class GalleryHTML(str):
    """The gallery's HTML; a notebook cell that ends with it shows it rendered."""

    def _repr_html_(self) -> str:
        return str(self)


def explorer_gallery_html(
    configs: Iterable[ExplorerConfig] | None = None, *, devices: Sequence[Any] | None = None
) -> GalleryHTML:
    """The explorer's output for each configuration, as one HTML fragment (inline PNG pictures
    and tables, no JavaScript): the static site's stand-in for the live panel.

    Args:
        configs: what to show (default: :func:`gallery_configs` for the devices' count).
        devices: the devices to explore on (default ``jax.devices()``).

    Raises:
        ValueError: a configuration does not fit the devices (e.g. a mesh of 8 on 4 devices).
    """
    pool = list(jax.devices() if devices is None else devices)
    sections = []
    for config in gallery_configs(len(pool)) if configs is None else configs:
        found = config.explore(pool)
        head = html.escape(config.caption or found.title())
        sections.append(f"<section><h4>{head}</h4>{found.html()}</section>")
    return GalleryHTML('<div class="sharding-explorer-gallery">' + "".join(sections) + "</div>")


#: The other-operand menu's first entry (a value of its own: a menu shows no entry for None).
_NO_MATMUL = "no matmul"

#: The names the panel gives a mesh's axes until the learner types others.
_DEFAULT_NAMES = ("data", "model", "stage")


def _parse_ints(text: str) -> tuple[int, ...]:
    try:
        values = tuple(
            int(t) for t in text.replace("×", ",").replace("x", ",").split(",") if t.strip()
        )
    except ValueError:
        raise ValueError(f"{text!r} is not a list of sizes; write e.g. 16, 8") from None
    if not values:
        raise ValueError("give at least one size, e.g. 16, 8")
    return values


class ShardingExplorerPanel:
    """Menus for :func:`explore_sharding` and its live picture and tables.

    The controls (``controls`` by name): ``mesh`` (a menu of mesh shapes that fit this
    machine), ``names`` (axis names, comma-separated), ``shape`` (x's shape, e.g. ``16, 8``),
    ``spec`` (a menu of x's specs for those names and that rank), ``other_spec`` (w's spec for
    ``x @ w``, or no matmul), ``columns`` (w's columns). Each change recomputes; the outputs
    are ``ipywidgets.HTML`` widgets (``picture``, ``tables``, ``message``) whose ``value`` a test
    reads, as ``result`` (the last :class:`ShardingExploration`) and ``error`` (why the inputs
    gave none, with a hint).

    Args:
        devices: the devices to explore (default ``jax.devices()``).
    """

    def __init__(self, devices: Sequence[Any] | None = None) -> None:
        import ipywidgets as w

        self._devices = list(jax.devices() if devices is None else devices)
        n = len(self._devices)
        shapes = mesh_shapes(n)
        start = next((s for s in shapes if len(s) == 2), shapes[0])
        names = _DEFAULT_NAMES[: len(start)]
        style = {"description_width": "120px"}
        self.controls: dict[str, Any] = {
            "mesh": w.Dropdown(
                options=[(" × ".join(map(str, s)), s) for s in shapes],
                value=start,
                description="mesh shape",
                style=style,
            ),
            "names": w.Text(", ".join(names), description="axis names", style=style),
            # A shape that the starting mesh divides, whatever the device count.
            "shape": w.Text(
                f"{2 * math.prod(start)}, {4 * start[-1]}", description="x shape", style=style
            ),
            "spec": w.Dropdown(description="x spec", style=style),
            "other_spec": w.Dropdown(description="x @ w, w spec", style=style),
            "columns": w.BoundedIntText(
                8, min=1, max=1 << 16, description="w columns", style=style
            ),
        }
        self.picture = w.HTML()
        self.tables = w.HTML()
        self.message = w.HTML()
        self.result: ShardingExploration | None = None
        self.error = ""
        self._updating = False
        self._refresh_menus()
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
        self.widget = w.VBox(
            [
                w.HBox(
                    [
                        w.VBox(list(self.controls.values())[:3]),
                        w.VBox(list(self.controls.values())[3:]),
                    ]
                ),
                self.message,
                self.picture,
                self.tables,
            ]
        )
        self.update()

    def _names(self) -> tuple[str, ...]:
        return tuple(n.strip() for n in self.controls["names"].value.split(",") if n.strip())

    def _refresh_menus(self) -> None:
        """Offer the specs that the current names and x's rank allow; keep the chosen ones when
        they are still on offer."""
        names = self._names()
        try:
            rank = len(_parse_ints(self.controls["shape"].value))
        except ValueError:
            rank = 2
        self._updating = True
        try:
            spec, other = self.controls["spec"], self.controls["other_spec"]
            x_specs = specs_for(names, rank)
            keep = spec.value
            spec.options = [(spec_text(s), s) for s in x_specs]
            spec.value = keep if keep in x_specs else x_specs[0]
            w_specs = specs_for(names, 2)
            keep = other.value
            other.options = [(_NO_MATMUL, _NO_MATMUL)] + [(spec_text(s), s) for s in w_specs]
            other.value = keep if isinstance(keep, P) and keep in w_specs else _NO_MATMUL
        finally:
            self._updating = False

    def _on_change(self, change: dict[str, Any]) -> None:
        if self._updating:
            return
        owner = change.get("owner")
        if owner is self.controls["mesh"] and len(self._names()) != len(change["new"]):
            # A mesh with another number of axes: offer default names for it.
            self._updating = True
            try:
                self.controls["names"].value = ", ".join(_DEFAULT_NAMES[: len(change["new"])])
            finally:
                self._updating = False
            self._refresh_menus()
        if owner in (self.controls["names"], self.controls["shape"]):
            self._refresh_menus()
        self.update()

    def update(self) -> None:
        """Explore the controls' configuration and redraw the outputs (or say what is wrong)."""
        c = self.controls
        try:
            shape = _parse_ints(c["shape"].value)
            other = c["other_spec"].value if isinstance(c["other_spec"].value, P) else None
            self.result = explore_sharding(
                c["mesh"].value,
                self._names(),
                shape,
                c["spec"].value,
                other_spec=other,
                other_shape=(shape[-1], c["columns"].value) if other is not None else None,
                devices=self._devices,
            )
            self.error = ""
        except ValueError as err:
            self.result, self.error = None, str(err)
        if self.result is None:
            self.message.value = f"<b>Cannot lay this out:</b> {html.escape(self.error)}"
            self.picture.value = self.tables.value = ""
            return
        self.message.value = f"<b>{html.escape(self.result.title())}</b>"
        self.picture.value = _figure_html(self.result.draw())
        self.tables.value = self.result.tables_html()

    def snapshot(self) -> str:
        """The outputs' HTML as they are now (a static page's stand-in for the live panel)."""
        return "\n".join(x.value for x in (self.message, self.picture, self.tables))

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget)
