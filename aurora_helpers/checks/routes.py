"""Requirements on *how* an exercise answer computes, for ``ah.check(..., route=[...])``.

A right value can come from the wrong route: a hard-coded array, a NumPy detour, ``jnp.mean`` on
the global array where the lesson is ``psum`` inside ``shard_map``. Each factory here returns a
route check: a function ``(answer, args, kwargs) -> problems`` that :func:`~aurora_helpers.check`
calls with the learner's function and the first call's arguments. An empty list means the route
is right. Messages name the idea the exercise teaches, never the code that answers it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jax

from ..compiled.perturb import Where
from .exercises import RouteCheck, reads_trace, untraceable

#: Names a primitive has had across the supported JAX releases (``psum`` inside ``shard_map`` is
#: ``psum_invariant`` in recent releases; a nested ``jit`` is ``pjit`` in older ones).
PRIMITIVE_ALIASES: Mapping[str, frozenset[str]] = {
    "psum": frozenset({"psum", "psum2", "psum_invariant"}),
    "jit": frozenset({"jit", "pjit"}),
    "pjit": frozenset({"jit", "pjit"}),
    "all_gather": frozenset({"all_gather", "all_gather_invariant"}),
    "pvary": frozenset({"pvary", "pcast"}),
    "pcast": frozenset({"pvary", "pcast"}),
    "loop": frozenset({"while", "scan"}),
}


def _names(primitive: str) -> frozenset[str]:
    return PRIMITIVE_ALIASES.get(primitive, frozenset({primitive}))


def _untraceable(err: Exception) -> list[str]:
    return [untraceable(err)]


def _primitive_check(
    primitives: tuple[str, ...], want: bool, why: str, where: Where = None
) -> RouteCheck:
    """A route check that the result does (``want``) or does not depend on each of ``primitives``;
    where it must, each one must also *determine* it (its outputs changed, the result changes)."""
    tail = f" ({why})" if why else ""
    if where is not None:  # another form of the operation may be there: say which is missing
        tail = f" in the form this exercise asks for{tail}"

    def requirement(
        fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[str]:
        from ..compiled.jaxpr_inspect import trace_program
        from ..compiled.perturb import determines

        try:
            program = trace_program(fn, args, kwargs)
        except (TypeError, jax.errors.ConcretizationTypeError) as err:
            return _untraceable(err)
        if where is None:
            counts = program.primitives()
            present = {p: any(counts.get(n, 0) for n in _names(p)) for p in primitives}
        else:  # only the equations ``where`` accepts count
            eqns = program.equations()
            present = {
                p: any(e.primitive.name in _names(p) and where(e.params) for e in eqns)
                for p in primitives
            }
        off = [p for p, here in present.items() if here != want]
        if off:
            names = ", ".join(off)
            if want:
                return [f"nothing your function returns goes through {names}{tail}"]
            return [f"your function's result goes through {names}{tail}"]
        if not want:
            return []
        original = program.run(*args, **kwargs)  # one run, shared by every operation checked
        idle = [
            p
            for p in primitives
            if determines(program, _names(p), args, kwargs, original, where) is False
        ]
        if not idle:
            return []
        names = ", ".join(idle)
        return [
            f"your result does not change when what {names} computes changes: it is in your "
            f"function, but something else decides the values you return{tail}"
        ]

    return reads_trace(requirement, every_case=not want)


def uses(*primitives: str, why: str = "", where: Where = None) -> RouteCheck:
    """The answer's result depends on each primitive (nested ``jit``/``shard_map``/loops included).

    Only what the result depends on counts: a ``shard_map``, ``psum`` or ``pallas_call`` called
    beside the real computation and thrown away (which XLA would drop) does not satisfy it, and
    neither does one whose values do not decide the result (``real + 0 * taught(x)``): the
    program is run again with that operation's outputs changed, and the result must change
    (:func:`aurora_helpers.compiled.perturb.determines`).

    Names are as ``jax.make_jaxpr`` prints them (``"shard_map"``, ``"ppermute"``, ``"psum"``,
    ``"all_gather"``, ``"reduce_scatter"``, ``"scatter-add"``, ``"while"``); ``"loop"`` accepts a
    ``while`` or a ``scan``. ``why`` ends the message (what the exercise practises).

    ``where`` (a function of an equation's parameters) counts only the equations it accepts, for
    presence and for necessity: ``uses("gather", where=lambda p: p["mode"] == FILL)`` asks that a
    gather *in fill mode* decide the result, so a clamped read beside a fill read multiplied by
    zero does not pass.
    """
    if not primitives:
        raise ValueError("uses() needs at least one primitive name, e.g. uses('psum')")
    return _primitive_check(primitives, True, why, where)


def avoids(*primitives: str, why: str = "") -> RouteCheck:
    """The answer's result depends on none of these primitives (the shortcut the lesson replaces)."""
    if not primitives:
        raise ValueError("avoids() needs at least one primitive name, e.g. avoids('while')")
    return _primitive_check(primitives, False, why)


def reduces_own_blocks(axis: str, *, why: str = "") -> RouteCheck:
    """Inside ``shard_map``, a reduction over ``axis`` that the result depends on reduces data
    from each device's own block (see :func:`~aurora_helpers.reduced_operands`).

    It rejects the collective that is present and used but idle in substance: a ``psum`` over a
    mean computed on the global array before the ``shard_map``, over replicated copies, or over
    an ``all_gather`` of everything.
    """

    def requirement(
        fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[str]:
        from ..compiled.jaxpr_inspect import reduced_operands

        try:
            reductions = [r for r in reduced_operands(fn, *args, **kwargs) if r.axis == axis]
        except (TypeError, jax.errors.ConcretizationTypeError) as err:
            return _untraceable(err)
        if any(r.from_blocks for r in reductions):
            return []
        tail = f" ({why})" if why else ""
        if not reductions:
            return [f"nothing your function returns comes from a reduction over '{axis}'{tail}"]
        return [
            f"your reduction over '{axis}' combines values that are already the same on every "
            f"device, not each device's own block of the data{tail}"
        ]

    return reads_trace(requirement)


def computes_per_device(*, why: str = "") -> RouteCheck:
    """The array arguments reach the result only through ``jax.shard_map``: nothing outside a
    ``shard_map`` computes on them (see :func:`~aurora_helpers.computed_outside`).

    It rejects a global computation beside or before the per-device program whose value the
    result still carries: ``jnp.mean`` or a matmul on the whole arrays, mixed with a
    ``shard_map``'s result (``+ 0 * s``) or fed into it as a replicated operand.
    """

    def requirement(
        fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[str]:
        from ..compiled.jaxpr_inspect import computed_outside

        try:
            outside = computed_outside(fn, *args, **kwargs)
        except (TypeError, jax.errors.ConcretizationTypeError) as err:
            return _untraceable(err)
        if not outside:
            return []
        names = ", ".join(dict.fromkeys(outside))
        tail = f" ({why})" if why else ""
        return [
            f"your result depends on work done on the whole arrays outside shard_map ({names}): "
            f"the per-device program must do the computing{tail}"
        ]

    return reads_trace(requirement, every_case=True)


def compiled_collectives(expected: Mapping[str, int], *, why: str = "") -> RouteCheck:
    """The compiled program's collectives (those that move data) are exactly ``expected``.

    ``expected`` maps HLO collective names (``"all-reduce"``, ``"all-gather"``,
    ``"reduce-scatter"``, ``"all-to-all"``, ``"collective-permute"``) to counts; leave out the
    zeros. ``{}`` means "no communication at all".
    """
    want = {k: int(v) for k, v in expected.items() if v}

    def requirement(
        fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[str]:
        from ..compiled.collectives import count_collectives

        got = count_collectives(fn, *args, **kwargs).as_dict(nonzero=True)
        if got == want:
            return []
        tail = f" ({why})" if why else ""
        said = ", ".join(f"{v} {k}" for k, v in sorted(got.items())) or "no collectives"
        wanted = ", ".join(f"{v} {k}" for k, v in sorted(want.items())) or "no collectives"
        return [f"your compiled program has {said}; this exercise expects {wanted}{tail}"]

    return reads_trace(requirement)


def compiles_once(calls: int = 3) -> RouteCheck:
    """Calling the answer ``calls`` times with the same arguments compiles at most one program."""
    if calls < 2:
        raise ValueError(f"compiles_once(calls={calls}): use at least 2 calls to see a recompile")

    def requirement(
        fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[str]:
        from ..compiled.compiles import count_compilations

        jax.block_until_ready(fn(*args, **kwargs))  # whatever the first call compiles is allowed
        with count_compilations() as compiled:
            for _ in range(calls):
                jax.block_until_ready(fn(*args, **kwargs))
        if compiled.count == 0:
            return []
        return [
            f"calling your function again with the same inputs compiled {compiled.count} more "
            "program(s): something changes between calls (a new jit each time, or a value that "
            "should be static)"
        ]

    return requirement


def jitted() -> RouteCheck:
    """The answer is a function transformed by ``jax.jit`` (it can be lowered)."""

    def requirement(
        fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[str]:
        if callable(getattr(fn, "lower", None)):
            return []
        return ["your function is not a jit-compiled function (it has no .lower)"]

    return requirement


def returns_sharding(
    spec_or_sharding: jax.sharding.PartitionSpec | jax.sharding.Sharding,
    mesh: jax.sharding.Mesh | None = None,
) -> RouteCheck:
    """The answer returns a ``jax.Array`` laid out like ``spec_or_sharding``.

    Give a ``Sharding``, or a ``PartitionSpec`` and the ``mesh`` it refers to.
    """
    if isinstance(spec_or_sharding, jax.sharding.PartitionSpec):
        if mesh is None:
            raise ValueError("returns_sharding(P(...)) needs the mesh the spec refers to")
        want: jax.sharding.Sharding = jax.sharding.NamedSharding(mesh, spec_or_sharding)
    else:
        want = spec_or_sharding

    def requirement(
        fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> list[str]:
        out = fn(*args, **kwargs)
        if not isinstance(out, jax.Array):
            return [f"your function returns a {type(out).__name__}, not a jax.Array on devices"]
        if out.sharding.is_equivalent_to(want, out.ndim):
            return []
        spec = getattr(out.sharding, "spec", None)
        shown = f"spec {spec}" if spec is not None else type(out.sharding).__name__
        wanted = getattr(want, "spec", type(want).__name__)
        return [
            f"your result is laid out as {shown} over {len(out.sharding.device_set)} device(s); "
            f"the exercise asks for {wanted} over {len(want.device_set)}"
        ]

    return requirement
