"""Does an operation *determine* a program's result? Change its outputs and see.

Reading a traced program tells whether a result depends on an operation, not whether it needs
it: ``real + 0 * taught(x)`` depends on ``taught`` and ignores it. Here the program JAX traced
is run again with every output of the named primitives changed, in two ways (each element moved
by an amount that differs from its neighbours, which a uniform shift such as ``softmax`` cannot
hide; and the values reversed and mirrored, which an order-keeping step such as ``argmax`` or a
threshold cannot hide); if the result stays the same both times, the operation did not decide
it.

The change is made by rewriting the program: each named equation's results pass through one
more primitive, ``aurora_perturb``, wherever the equation sits (inside ``jit``, ``shard_map``,
loops, conditionals, custom derivatives), except inside kernels (``pallas_call``), whose bodies
write through references. The rewritten program runs with the same inputs as the original.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.extend import core as jex_core
from jax.interpreters import mlir

from .jaxpr_inspect import Program

#: Primitives whose nested programs are not rewritten (kernel bodies write through references).
_OPAQUE = frozenset({"pallas_call"})


def _moved(x: jax.Array, *, mode: int) -> jax.Array:
    """``x`` with every element changed, in one of :data:`MODES` ways.

    Mode 0 moves each element by ±(1 + |x|) × (0.5, 0.75 or 1), the sign alternating and the
    size cycling along the flattened array (integers by ±1–3, booleans flipped). Mode 1 reverses
    the flattened array and mirrors it, ``-reversed(x) - 1`` (booleans: reversed and flipped),
    which reorders the values, so a result that keeps only their order (``argmax``) or their side
    of a threshold still sees a change.
    """
    if mode == 1:
        flipped = jnp.flip(x.reshape(-1)).reshape(x.shape)
        if x.dtype == jnp.bool_:
            return jnp.logical_not(flipped)
        if jnp.issubdtype(x.dtype, jnp.inexact) or jnp.issubdtype(x.dtype, jnp.integer):
            return -flipped - jnp.ones((), x.dtype)  # unsigned: wraps, still a change
        return x
    if x.dtype == jnp.bool_:
        return jnp.logical_not(x)
    index = lax.iota(np.int32, max(x.size, 1)).reshape(x.shape) if x.ndim else jnp.int32(0)
    sign = 1 - 2 * (index % 2)
    step = 1 + index % 3
    if jnp.issubdtype(x.dtype, jnp.inexact):
        size = (0.25 * (1 + step)).astype(x.dtype)
        return x + (1 + jnp.abs(x)).astype(x.dtype) * size * sign.astype(x.dtype)
    if jnp.issubdtype(x.dtype, jnp.unsignedinteger):
        return x + step.astype(x.dtype)
    if jnp.issubdtype(x.dtype, jnp.integer):
        return x + (step * sign).astype(x.dtype)
    return x  # PRNG keys and other extended types: nothing sensible to move


#: How many ways :func:`_moved` changes values; :func:`determines` tries them in turn.
MODES = 2

perturb_p = jex_core.Primitive("aurora_perturb")
perturb_p.def_impl(_moved)
perturb_p.def_abstract_eval(lambda aval, *, mode: aval)  # same shape, dtype, sharding, vma
mlir.register_lowering(perturb_p, mlir.lower_fun(_moved, multiple_results=False))


#: Which of a named primitive's equations to change, by their parameters (None: all of them).
Where = Callable[[Mapping[str, Any]], bool] | None


def _rewrite_value(
    value: Any, names: Collection[str], hits: list[int], mode: int, where: Where = None
) -> Any:
    if isinstance(value, jex_core.ClosedJaxpr):
        return jex_core.ClosedJaxpr(_rewrite(value.jaxpr, names, hits, mode, where), value.consts)
    if isinstance(value, jex_core.Jaxpr):
        return _rewrite(value, names, hits, mode, where)
    if isinstance(value, tuple | list) and any(_holds_program(v) for v in value):
        return type(value)(_rewrite_value(v, names, hits, mode, where) for v in value)  # branches
    return value  # a parameter that holds no program (dimension numbers, shapes) stays itself


def _holds_program(value: Any) -> bool:
    if isinstance(value, jex_core.ClosedJaxpr | jex_core.Jaxpr):
        return True
    return isinstance(value, tuple | list) and any(_holds_program(v) for v in value)


def _rewrite(
    jaxpr: Any, names: Collection[str], hits: list[int], mode: int, where: Where = None
) -> Any:
    """``jaxpr`` with the results of every equation named in ``names`` (and, with ``where``,
    whose parameters it accepts) passed through ``aurora_perturb``; ``hits`` counts the
    equations changed."""
    eqns = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name not in _OPAQUE:
            params = {k: _rewrite_value(v, names, hits, mode, where) for k, v in eqn.params.items()}
            eqn = eqn.replace(params=params)
        if eqn.primitive.name not in names or (where is not None and not where(eqn.params)):
            eqns.append(eqn)
            continue
        hits.append(1)
        fresh = [jex_core.Var(v.aval) for v in eqn.outvars]
        eqns.append(eqn.replace(outvars=fresh))
        eqns += [
            eqn.replace(
                invars=[new],
                outvars=[old],
                primitive=perturb_p,
                params={"mode": mode},
                effects=frozenset(),
            )
            for new, old in zip(fresh, eqn.outvars, strict=True)
            if type(old).__name__ != "DropVar"  # a result nothing reads
        ]
    return jaxpr.replace(eqns=eqns)


def _same(a: Any, b: Any) -> bool:
    """Equal, or for floating point within rounding: an operation whose changed outputs move the
    result by a few units in the last place only (``(real + t) - t``) did not decide it."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    wide = np.asarray(a, dtype=np.complex128 if a.dtype.kind == "c" else np.float64)
    other = np.asarray(b, dtype=wide.dtype)
    finite = np.isfinite(wide)
    scale = float(np.max(np.abs(wide[finite]))) if finite.any() else 0.0
    tol = max(64 * float(np.finfo(a.dtype).eps), 1e-6)
    return bool(np.allclose(wide, other, rtol=tol, atol=tol * max(scale, 1e-30), equal_nan=True))


def _data(x: Any) -> Any:
    """A leaf as plain numbers (a PRNG key as its key data)."""
    if isinstance(x, jax.Array) and jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
        return jax.random.key_data(x)
    return x


def determines(
    program: Program,
    primitives: Collection[str],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    original: Any = None,
    where: Where = None,
) -> bool | None:
    """Whether changing the outputs of ``primitives`` changes what ``program`` returns for these
    arguments: ``True`` (they decide the result), ``False`` (the result ignores them), or ``None``
    when the program holds none of them outside kernels (nothing could be changed).

    ``original``: the program's result for these arguments, if the caller has it (several
    operations checked in turn share one run). ``where``: change only the equations whose
    parameters it accepts (a gather in ``"fill"`` mode, not a clamped one beside it). A run that
    fails at run time once the outputs are changed (a value a later check rejects)
    counts as a change: the operation mattered.
    """
    if original is None:
        original = program.run(*args, **kwargs)
    unchanged = jax.tree_util.tree_leaves(original)
    for mode in range(MODES):
        hits: list[int] = []
        rewritten = _rewrite(program.closed.jaxpr, frozenset(primitives), hits, mode, where)
        if not hits:
            return None
        changed = Program(
            jex_core.ClosedJaxpr(rewritten, program.closed.consts),
            program.out_tree,
            program.positions,
            program.keys,
        )
        try:
            moved = jax.tree_util.tree_leaves(changed.run(*args, **kwargs))
        except jax.errors.JaxRuntimeError:  # the changed values failed a later runtime check
            return True
        if not all(_same(_data(a), _data(b)) for a, b in zip(unchanged, moved, strict=True)):
            return True
    return False
