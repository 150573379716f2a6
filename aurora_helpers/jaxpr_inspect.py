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


def _equations(jaxpr: Any) -> Iterator[Any]:
    for eqn in jaxpr.eqns:
        yield eqn
        for value in eqn.params.values():
            for sub in _sub_jaxprs(value):
                yield from _equations(sub)


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


def primitive_counts(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Counter[str]:
    """How often each primitive appears when ``fn(*args, **kwargs)`` is traced, nested ones included.

    Array arguments are traced; others (sizes, flags) are passed as they are, as static values.

    Raises:
        TypeError: ``fn`` cannot be traced because it takes a NumPy detour.
    """
    return Counter(e.primitive.name for e in _equations(_trace(fn, args, kwargs)))


def pallas_grids(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[tuple[int, ...]]:
    """The ``grid`` of every ``pallas_call`` in ``fn``'s traced program (``()`` for no grid)."""
    return [
        tuple(int(g) for g in e.params["grid_mapping"].grid)
        for e in _equations(_trace(fn, args, kwargs))
        if e.primitive.name == "pallas_call"
    ]


def ffi_calls(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[FfiCall]:
    """Every ``jax.ffi.ffi_call`` in ``fn``'s traced program: target name, attributes, vmap method."""
    return [
        FfiCall(
            str(e.params["target_name"]),
            dict(e.params.get("attributes", ())),
            e.params.get("vmap_method"),
        )
        for e in _equations(_trace(fn, args, kwargs))
        if e.primitive.name == "ffi_call"
    ]
