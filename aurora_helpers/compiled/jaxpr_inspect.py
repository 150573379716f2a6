"""What a function turns into when JAX traces it: primitives, Pallas grids, FFI calls.

A result can be right for the wrong reason: a hard-coded array, a NumPy detour, or plain
``jax.numpy`` where the lesson asked for a kernel. These helpers read the traced program
(``jax.make_jaxpr``), including the programs nested inside ``jit``, ``custom_vjp``, ``cond`` and
friends, so a check can ask *how* a value was computed: did a ``pallas_call`` run, with which
grid; was an FFI target called, with which attributes.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
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


@dataclass(frozen=True)
class Program:
    """One trace of a function for given arguments: the program JAX built, and a way to run
    exactly that program again (not the Python function, which could take another road)."""

    closed: jex_core.ClosedJaxpr
    out_tree: Any
    positions: tuple[int, ...]  # the positional arguments that were traced (the arrays)
    keys: tuple[str, ...] = ()  # the keyword arguments that were traced (the arrays)

    def primitives(self) -> Counter[str]:
        """The primitives the program's result depends on (nested ones included), counted."""
        return Counter(e.primitive.name for e in _used_equations(self.closed.jaxpr))

    def equations(self) -> list[Any]:
        """The equations the program's result depends on (nested ones included)."""
        return list(_used_equations(self.closed.jaxpr))

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """The program on ``args`` (arrays where it traced arrays; the rest as when traced)."""
        inputs = [args[i] for i in self.positions] + [kwargs[k] for k in self.keys]
        outputs = jex_core.jaxpr_as_fun(self.closed)(*inputs)
        # An output the trace knew as a constant comes back as JAX's literal: make it an array.
        arrays = [o if isinstance(o, jax.Array) else jnp.asarray(o) for o in outputs]  # tracers too
        return jax.tree_util.tree_unflatten(self.out_tree, arrays)


def trace_program(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Program:
    """Trace ``fn(*args, **kwargs)`` once: array arguments (positional or keyword) are traced;
    the rest (sizes, flags, meshes) stay static.

    The program's constants are copied as the trace left them: a host buffer the function
    closed over, which a callback could fill while the program runs, is not read again.

    Raises:
        TypeError: ``fn`` cannot be traced because it takes a NumPy detour (or returns something
            that is not an array or a pytree of them).
    """
    positions = tuple(i for i, a in enumerate(args) if _is_array(a))
    keys = tuple(k for k, v in kwargs.items() if _is_array(v))

    def traced(*arrays: Any) -> Any:
        full, named = list(args), dict(kwargs)
        for i, a in zip(positions, arrays[: len(positions)], strict=True):
            full[i] = a
        for k, a in zip(keys, arrays[len(positions) :], strict=True):
            named[k] = a
        return fn(*full, **named)

    inputs = [args[i] for i in positions] + [kwargs[k] for k in keys]
    try:
        closed, shape = jax.make_jaxpr(traced, return_shape=True)(*inputs)
    except jax.errors.TracerArrayConversionError as err:
        raise TypeError(
            f"{getattr(fn, '__name__', fn)!r} cannot be traced: it converts a traced value to a "
            "NumPy array. Compute with jax.numpy (or inside the kernel) instead of NumPy."
        ) from err
    consts = [c if isinstance(c, jax.Array) else copy.deepcopy(c) for c in closed.consts]
    frozen = jex_core.ClosedJaxpr(closed.jaxpr, consts)
    return Program(frozen, jax.tree_util.tree_structure(shape), positions, keys)


def _trace(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The jaxpr of ``fn(*args, **kwargs)``; arguments that are not arrays stay static."""
    return trace_program(fn, args, kwargs).closed.jaxpr


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


#: Collectives that combine an axis: their result is the same on every device of that axis.
_COMBINING = frozenset(
    {"psum", "psum2", "psum_invariant", "pmax", "pmin", "all_gather", "all_gather_invariant"}
)
#: Collectives that reduce across an axis, whose operand :func:`reduced_operands` examines.
REDUCTIONS = frozenset(
    {"psum", "psum2", "psum_invariant", "pmax", "pmin", "reduce_scatter", "psum_scatter"}
)


@dataclass(frozen=True)
class ReducedOperand:
    """One reduction over a mesh axis inside ``shard_map``, and what enters it.

    ``from_blocks``: the operand depends on a block of an input that ``in_specs`` split along
    ``axis`` (each device's own data), not only on copies of replicated values, the device's
    index or what an earlier collective already combined.
    """

    primitive: str
    axis: str
    from_blocks: bool


def _spec_axes(spec: Any) -> set[str]:
    """Mesh axes named by one ``in_specs`` entry (a PartitionSpec) or ``in_names`` entry (dict)."""
    entries = spec.values() if isinstance(spec, dict) else (spec or ())
    found: set[str] = set()
    for entry in entries:
        names = entry if isinstance(entry, tuple | list) else (entry,)
        found.update(str(n) for n in names if n is not None)
    return found


def _eqn_axes(eqn: Any) -> set[str]:
    axes = eqn.params.get("axes", eqn.params.get("axis_name", ()))
    names = axes if isinstance(axes, tuple | list) else (axes,)
    return {str(n) for n in names}


def reduced_operands(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[ReducedOperand]:
    """Every reduction over a mesh axis (``psum``, ``pmax``, ``psum_scatter``, ...) inside the
    ``shard_map`` calls that the result of ``fn`` depends on, with whether its operand comes from
    the devices' own blocks.

    A ``psum`` over copies of a replicated value, or over a global result computed before the
    ``shard_map``, is present and used, but it reduces nothing that differs between devices: such
    a per-device program did no per-device work. Data counts as a device's own when it derives
    from an input that ``in_specs`` split along the reduced axis, through any operation except a
    collective that already combined that axis (``all_gather``, ``psum``); ``axis_index`` alone
    is not data.
    """
    found: list[ReducedOperand] = []
    for eqn in used_equations(fn, *args, primitive="shard_map", **kwargs):
        specs = eqn.params.get("in_specs", eqn.params.get("in_names"))
        if specs is not None:
            body = eqn.params["jaxpr"]
            _carry_axes(body, [_spec_axes(s) for s in specs], found, only_used=True)
    return found


def _carry_axes(
    jaxpr: Any, in_axes: list[set[str]], found: list[ReducedOperand], only_used: bool = False
) -> list[set[str]]:
    """Follow which split axes each value of ``jaxpr`` carries; note each reduction met.

    Returns the axes each output carries. A nested program whose inputs are the equation's own
    (``jit``, custom derivatives, ``checkpoint``; ``cond`` branches after the predicate) is
    followed input for input; any other (loops) gets every axis its operands carry.
    """
    used = {id(e) for e in _used_equations(jaxpr)} if only_used else None
    axes_of: dict[Any, set[str]] = dict(zip(jaxpr.invars, in_axes, strict=True))

    def of(v: Any) -> set[str]:
        return axes_of.get(v, set()) if _is_var(v) else set()

    for eqn in jaxpr.eqns:
        if used is not None and id(eqn) not in used:
            continue
        name = eqn.primitive.name
        operands = [of(v) for v in eqn.invars]
        carried = set().union(*operands)
        if name in REDUCTIONS:
            for axis in sorted(_eqn_axes(eqn)):
                found.append(ReducedOperand(name, axis, axis in carried))
        outs: list[set[str]] | None = None
        for value in eqn.params.values():
            for sub in _sub_jaxprs(value):
                if len(sub.invars) == len(operands) and name not in _LOOPS:
                    mine = operands
                elif name == "cond" and len(sub.invars) == len(operands) - 1:
                    mine = operands[1:]
                else:
                    mine = [set(carried) for _ in sub.invars]
                sub_outs = _carry_axes(sub, mine, found)
                if len(sub_outs) == len(eqn.outvars) and name not in _LOOPS:
                    outs = (
                        sub_outs
                        if outs is None
                        else [a | b for a, b in zip(outs, sub_outs, strict=True)]
                    )
        if name in _COMBINING:
            carried -= _eqn_axes(eqn)
        for i, v in enumerate(eqn.outvars):
            axes_of[v] = set(outs[i]) if outs is not None else set(carried)
    return [of(v) for v in jaxpr.outvars]


#: Operations that move an array or change its layout without computing on its values.
_PLACEMENTS = frozenset(
    {"reshard", "sharding_constraint", "device_put", "mesh_cast", "copy", "copy_p", "pvary"}
)


def computed_outside(
    fn: Callable[..., Any], *args: Any, around: str = "shard_map", **kwargs: Any
) -> list[str]:
    """The primitives that compute on ``fn``'s array arguments outside every ``around`` call
    (``shard_map``) and that the result depends on, in program order.

    Empty when the arguments reach the result only through ``shard_map`` (placing or resharding
    them on the way is not computing); what is done to a ``shard_map``'s results afterwards does
    not count. ``jnp.mean`` on the global array beside a ``shard_map``, or a global matmul fed
    into one, shows up here even when its value is then mixed with the ``shard_map``'s.
    """
    found: list[str] = []
    jaxpr = _trace(fn, args, kwargs)
    _outside(jaxpr, [True] * len(jaxpr.invars), around, found)  # every traced array argument
    return found


def _outside(jaxpr: Any, carries: list[bool], around: str, found: list[str]) -> list[bool]:
    """Which values of ``jaxpr`` carry the arguments' data outside ``around``; note each
    primitive that computes on them. Returns the flag of each output."""
    used = {id(e) for e in _used_equations(jaxpr)}
    flag: dict[Any, bool] = dict(zip(jaxpr.invars, carries, strict=True))

    def of(v: Any) -> bool:
        return flag.get(v, False) if _is_var(v) else False

    for eqn in jaxpr.eqns:
        if id(eqn) not in used:
            continue
        name = eqn.primitive.name
        operands = [of(v) for v in eqn.invars]
        outs: list[bool]
        if name == around or not any(operands):
            outs = [False] * len(eqn.outvars)
        elif name in _PLACEMENTS:
            outs = [True] * len(eqn.outvars)
        else:
            subs = [s for value in eqn.params.values() for s in _sub_jaxprs(value)]
            calls = [s for s in subs if len(s.invars) == len(operands)]
            if (
                name not in _LOOPS
                and calls
                and all(len(s.outvars) == len(eqn.outvars) for s in calls)
            ):
                outs = [False] * len(eqn.outvars)
                for sub in calls:  # a nested jit, checkpoint or custom derivative: look inside
                    outs = [
                        a or b
                        for a, b in zip(outs, _outside(sub, operands, around, found), strict=True)
                    ]
            else:
                found.append(name)
                outs = [True] * len(eqn.outvars)
        for v, f in zip(eqn.outvars, outs, strict=True):
            flag[v] = f
    return [of(v) for v in jaxpr.outvars]
