"""Device meshes from axis names, with a balanced shape chosen when none is given."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
from jax.sharding import AxisType, Mesh


def balanced_shape(n_devices: int, n_axes: int) -> tuple[int, ...]:
    """Split ``n_devices`` into ``n_axes`` factors as equal as possible, largest first.

    ``balanced_shape(8, 2) == (4, 2)``, ``balanced_shape(8, 3) == (2, 2, 2)``,
    ``balanced_shape(6, 2) == (3, 2)``, ``balanced_shape(7, 2) == (7, 1)``.
    """
    if n_devices < 1:
        raise ValueError(f"need at least one device, got {n_devices}")
    if n_axes < 1:
        raise ValueError(f"need at least one axis, got {n_axes}")
    best: tuple[int, ...] | None = None

    # Exhaustive over divisors: device counts are small, and the search is exact.
    def search(remaining: int, axes_left: int, prefix: tuple[int, ...]) -> None:
        nonlocal best
        if axes_left == 1:
            shape = tuple(sorted((*prefix, remaining), reverse=True))
            if best is None or (max(shape), shape) < (max(best), best):
                best = shape
            return
        for d in range(1, remaining + 1):
            if remaining % d == 0:
                search(remaining // d, axes_left - 1, (*prefix, d))

    search(n_devices, n_axes, ())
    assert best is not None
    return best


def make_mesh(
    axis_names: str | Sequence[str],
    shape: Sequence[int] | None = None,
    *,
    axis_types: AxisType | Sequence[AxisType] = AxisType.Explicit,
    devices: Sequence[Any] | None = None,
) -> Mesh:
    """A :class:`jax.sharding.Mesh` over ``devices`` (default: all of them) with named axes.

    Args:
        axis_names: one name (``"data"``) or several (``("data", "model")``).
        shape: devices along each axis; by default a balanced split of all the devices
            (8 devices and two axes give ``(4, 2)``).
        axis_types: one :class:`jax.sharding.AxisType` for every axis, or one per axis.
            ``Explicit`` (the default, as in ``jax.make_mesh``) makes shardings part of array
            types; ``Auto`` leaves them to the compiler.
        devices: the devices to use, in order.

    Raises:
        ValueError: a name is repeated or empty, a size is not positive, the sizes do not
            multiply to the device count, or more devices are asked for than exist. The message
            names the devices available and a shape that would fit.
    """
    names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
    if not names:
        raise ValueError("a mesh needs at least one axis name, e.g. make_mesh('data')")
    if any(not isinstance(n, str) or not n for n in names):
        raise ValueError(f"axis names must be non-empty strings, got {names!r}")
    if len(set(names)) != len(names):
        dupes = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"axis names must be distinct; repeated: {', '.join(dupes)}")

    pool = list(jax.devices() if devices is None else devices)
    available = len(pool)
    if shape is None:
        sizes = balanced_shape(available, len(names))
    else:
        sizes = tuple(shape)
        if len(sizes) != len(names):
            raise ValueError(
                f"shape {sizes} has {len(sizes)} entries but there are {len(names)} axis names {names}"
            )
        bad = [s for s in sizes if isinstance(s, bool) or not isinstance(s, int) or s < 1]
        if bad:
            raise ValueError(f"every mesh axis size must be a positive integer; got {sizes}")
        needed = math.prod(sizes)
        if needed != available:
            hint = f"{available} device(s) available; for example shape={balanced_shape(available, len(names))}"
            if needed > available:
                raise ValueError(f"shape {sizes} needs {needed} devices but only {hint}")
            raise ValueError(
                f"shape {sizes} uses {needed} of the {hint}, or pass devices=jax.devices()[:{needed}]"
            )

    types = (axis_types,) * len(names) if isinstance(axis_types, AxisType) else tuple(axis_types)
    if len(types) != len(names):
        raise ValueError(f"{len(types)} axis types given for {len(names)} axes {names}")
    return jax.make_mesh(sizes, names, axis_types=types, devices=pool)
