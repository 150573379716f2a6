"""The check's own reference, reached by any path, makes an answer wrong (issue 38's sixth class)."""

import copy
import functools
import types

import jax
import jax.numpy as jnp
import pytest

import aurora_helpers as ah


def reference_bytes(n: int) -> int:
    """The notebook's own function, which the check compares against."""
    return 4 * n * n


def honest(n):
    return n * n * jnp.dtype(jnp.float32).itemsize


alias = reference_bytes


def _default_argument(n, rule=reference_bytes):
    return rule(n)


def _copied(n):
    clone = types.FunctionType(reference_bytes.__code__, globals(), "mine")
    return clone(n)


def _wrapped(n):
    return functools.partial(reference_bytes)(n)


def _jitted(n):
    return int(jax.jit(reference_bytes, static_argnums=0)(n))


@pytest.mark.parametrize(
    "lazy",
    [reference_bytes, lambda n: alias(n), _default_argument, _copied, _wrapped, _jitted],
    ids=["itself", "alias", "default", "copy", "partial", "jit"],
)
def test_every_path_to_the_reference_is_found(lazy):
    cases = [ah.Case((k,), 4 * k * k, f"n = {k}") for k in (1, 7)]
    result = ah.check(
        "t.o", lazy, args=(3,), expected=36, cases=cases, off_limits=[reference_bytes]
    )
    assert result.wrong and "reference_bytes" in result.detail
    assert "compares against" in result.detail


def test_an_honest_answer_passes_and_the_watch_is_gone_afterwards():
    import sys

    before = sys.getprofile()
    result = ah.check("t.o", honest, args=(3,), expected=36, off_limits=[reference_bytes])
    assert result.solved, result.detail
    assert sys.getprofile() is before


def test_a_builtin_method_is_followed_by_its_name():
    x = jnp.ones((8, 8))

    def through_xla(a):
        compiled = jax.jit(lambda b: b @ b).lower(a).compile()
        return float(compiled.cost_analysis()["flops"])

    def by_hand(a):
        return float(2 * a.shape[0] ** 3)

    lazy = ah.check("t.c", through_xla, args=(x,), expected=1024.0, off_limits=["cost_analysis"])
    assert lazy.wrong and "cost_analysis" in lazy.detail
    assert ah.check("t.c", by_hand, args=(x,), expected=1024.0, off_limits=["cost_analysis"]).solved

    def through_the_runtime(a):
        compiled = jax.jit(lambda b: b @ b).lower(a).compile()
        executable = copy.copy(compiled).runtime_executable()
        return float(executable.cost_analysis()["flops"])

    try:
        through_the_runtime(x)
    except Exception:  # this release has no runtime executable to read
        return
    # The runtime's own method is a nanobind method, which profile hooks do not see: the road
    # to it, Compiled.runtime_executable, is Python, and is followed by its name.
    names = ["cost_analysis", "runtime_executable"]
    deep = ah.check("t.c", through_the_runtime, args=(x,), expected=1024.0, off_limits=names)
    assert deep.wrong and "runtime_executable" in deep.detail
