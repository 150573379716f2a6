"""What a function turns into when JAX traces it: primitives, Pallas grids, FFI calls.

A result can be right for the wrong reason: a hard-coded array, a NumPy detour, or plain
``jax.numpy`` where the lesson asked for a kernel. These helpers read the traced program
(``jax.make_jaxpr``), including the programs nested inside ``jit``, ``custom_vjp``, ``cond`` and
friends, so a check can ask *how* a value was computed: did a ``pallas_call`` run, with which
grid; was an FFI target called, with which attributes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from jax.extend import core as jex_core


@dataclass(frozen=True)
class FfiCall:
    """One ``jax.ffi.ffi_call`` in a traced program."""

    target: str
    attributes: dict[str, Any]
    vmap_method: str | None


def _sub_jaxprs(value: Any) -> Iterator[Any]:
    if isinstance(value, jex_core.ClosedJaxpr):
        yield value.jaxpr
    elif isinstance(value, jex_core.Jaxpr):
        yield value
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _sub_jaxprs(item)


#: Primitives whose nested programs feed their outputs back in (loop carries): every output of
#: their body counts as used once the loop's result is used.
_LOOPS = frozenset({"while", "scan"})


def _equations(jaxpr: Any) -> Iterator[Any]:
    """Every equation of ``jaxpr`` and of the programs nested in it, used or not."""
    for eqn in jaxpr.eqns:
        yield eqn
        for value in eqn.params.values():
            for sub in _sub_jaxprs(value):
                yield from _equations(sub)


def _used_equations(
    jaxpr: Any, wanted: list[bool] | None = None, kernels: bool = True
) -> Iterator[Any]:
    """The equations that the outputs of ``jaxpr`` (those ``wanted``) depend on, nested ones too.

    A backward walk from the outputs: an equation counts when one of its results is used, and then
    its operands are used. A call whose result is thrown away (an idle ``shard_map``, ``psum``,
    ``pallas_call`` or ``ffi_call`` beside a plain answer) is left out, as XLA would drop it. A
    nested program is walked with the same rule when its outputs are the call's outputs one for
    one (``jit``, ``shard_map``, ``cond`` branches, custom derivatives, ``checkpoint``); a loop
    body, or a kernel that writes through references (``pallas_call``), counts whole; with
    ``kernels=False`` a kernel's body is not walked at all (what runs outside the kernels).
    """
    outs = jaxpr.outvars
    used = {
        v for v, want in zip(outs, wanted or [True] * len(outs), strict=True) if want and _is_var(v)
    }
    kept: list[tuple[Any, list[bool]]] = []
    for eqn in reversed(jaxpr.eqns):
        results = [v in used for v in eqn.outvars]
        if not any(results):
            continue
        kept.append((eqn, results))
        used.update(v for v in eqn.invars if _is_var(v))
    for eqn, results in reversed(kept):
        yield eqn
        if not kernels and eqn.primitive.name == "pallas_call":
            continue
        for value in eqn.params.values():
            for sub in _sub_jaxprs(value):
                if eqn.primitive.name in _LOOPS:
                    yield from _used_equations(sub, None, kernels)
                elif len(sub.outvars) == len(results):
                    yield from _used_equations(sub, results, kernels)
                else:  # a kernel writes its results through references: all of it is used
                    yield from _equations(sub)


def _is_var(value: Any) -> bool:
    return isinstance(value, jex_core.Var) and not isinstance(value, jex_core.Literal)


def _is_array(value: Any) -> bool:
    return isinstance(value, jax.Array | np.ndarray | jax.ShapeDtypeStruct)


def _trace(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The jaxpr of ``fn(*args, **kwargs)``; arguments that are not arrays stay static."""
    positions = [i for i, a in enumerate(args) if _is_array(a)]

    def traced(*arrays: Any) -> Any:
        full = list(args)
        for i, a in zip(positions, arrays, strict=True):
            full[i] = a
        return fn(*full, **kwargs)

    try:
        return jax.make_jaxpr(traced)(*(args[i] for i in positions)).jaxpr
    except jax.errors.TracerArrayConversionError as err:
        raise TypeError(
            f"{getattr(fn, '__name__', fn)!r} cannot be traced: it converts a traced value to a "
            "NumPy array. Compute with jax.numpy (or inside the kernel) instead of NumPy."
        ) from err


def _walk(jaxpr: Any, include_unused: bool) -> Iterator[Any]:
    return _equations(jaxpr) if include_unused else _used_equations(jaxpr)


def primitive_counts(
    fn: Callable[..., Any], *args: Any, include_unused: bool = False, **kwargs: Any
) -> Counter[str]:
    """How often each primitive appears when ``fn(*args, **kwargs)`` is traced, nested ones included.

    Only what the result depends on counts: an operation whose result is never used (an idle
    ``psum`` or ``pallas_call`` beside the real computation) is not counted, unless
    ``include_unused=True``. Array arguments are traced; others (sizes, flags) are passed as they
    are, as static values.

    Raises:
        TypeError: ``fn`` cannot be traced because it takes a NumPy detour.
    """
    jaxpr = _trace(fn, args, kwargs)
    return Counter(e.primitive.name for e in _walk(jaxpr, include_unused))


def pallas_grids(
    fn: Callable[..., Any], *args: Any, include_unused: bool = False, **kwargs: Any
) -> list[tuple[int, ...]]:
    """The ``grid`` of every ``pallas_call`` the result of ``fn`` depends on (``()``: no grid)."""
    return [
        tuple(int(g) for g in e.params["grid_mapping"].grid)
        for e in _walk(_trace(fn, args, kwargs), include_unused)
        if e.primitive.name == "pallas_call"
    ]


def ffi_calls(
    fn: Callable[..., Any], *args: Any, include_unused: bool = False, **kwargs: Any
) -> list[FfiCall]:
    """Every ``jax.ffi.ffi_call`` the result of ``fn`` depends on: target, attributes, vmap method."""
    return [
        FfiCall(
            str(e.params["target_name"]),
            dict(e.params.get("attributes", ())),
            e.params.get("vmap_method"),
        )
        for e in _walk(_trace(fn, args, kwargs), include_unused)
        if e.primitive.name == "ffi_call"
    ]


def used_equations(
    fn: Callable[..., Any],
    *args: Any,
    primitive: str | None = None,
    include_unused: bool = False,
    kernel_bodies: bool = True,
    **kwargs: Any,
) -> list[Any]:
    """The equations (``jax.extend.core.JaxprEqn``) that the result of ``fn(*args)`` depends on.

    For route checks that read an operation's operands or parameters (how many arrays a
    ``pallas_call`` receives, a convolution's ``window_strides``): ``primitive`` keeps only the
    equations of that primitive. A call whose result is thrown away is left out, unless
    ``include_unused=True``. ``kernel_bodies=False`` leaves out what runs inside ``pallas_call``
    kernels: what remains is the work done around them.
    """
    jaxpr = _trace(fn, args, kwargs)
    if include_unused:
        found: Iterator[Any] = _equations(jaxpr)
    else:
        found = _used_equations(jaxpr, None, kernel_bodies)
    return [e for e in found if primitive is None or e.primitive.name == primitive]


def _block_size(dim: Any) -> int | None:
    """One block dimension as an int (``None`` for a squeezed one), across the releases' types."""
    size = getattr(dim, "block_size", dim)
    return None if size is None or not isinstance(size, int | np.integer) else int(size)


def pallas_block_shapes(
    fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> list[list[tuple[int | None, ...]]]:
    """The block shape of every operand (inputs, then outputs) of each ``pallas_call`` used.

    Without ``in_specs``/``out_specs`` a block is the whole array: each program of the grid sees
    all of it. ``None`` marks a squeezed dimension.
    """
    return [
        [
            tuple(_block_size(d) for d in m.block_shape)
            for m in e.params["grid_mapping"].block_mappings
        ]
        for e in used_equations(fn, *args, primitive="pallas_call", **kwargs)
    ]
