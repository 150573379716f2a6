"""Automatic checks for exercises and for the claims a notebook makes.

A notebook's exercise has three cells: the task (markdown), the learner's answer (a code cell
tagged ``solution``, which holds the course's own solution, hidden), and a check::

    ah.check("03.1", addressable_ids, expected={0, 1, 2, 3})

:func:`check` accepts the answer as a value or as a function to call with ``args``. In a student
copy (``aurora student``) each solution body is replaced by a stub; the check then reports
"not solved yet" instead of raising, so the notebook still runs top to bottom.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import jax
import numpy as np

Status = Literal["solved", "not solved yet"]


class ExerciseFailed(AssertionError):
    """An answer was given but differs from the expected one; the message says how."""


class NotSolvedYet(Exception):
    """What a stubbed answer raises; :func:`check` turns it into a "not solved yet" report."""


@dataclass(frozen=True)
class CheckResult:
    """Outcome of :func:`check`. Shows as a coloured line in notebooks."""

    exercise: str
    status: Status
    detail: str = ""

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def __str__(self) -> str:
        mark = "✅" if self.solved else "⏳"
        tail = f" {self.detail}" if self.detail else ""
        return f"{mark} Exercise {self.exercise}: {self.status}.{tail}"

    __repr__ = __str__

    def _repr_html_(self) -> str:
        colour = "#1a7f37" if self.solved else "#9a6700"
        return f"<div style='color:{colour};font-weight:600'>{html.escape(str(self))}</div>"


def _is_stub(value: Any) -> bool:
    return value is Ellipsis or value is NotImplemented


def _describe_sharding(x: Any) -> str:
    sharding = getattr(x, "sharding", None)
    spec = getattr(sharding, "spec", None)
    return f"{type(sharding).__name__}({spec})" if spec is not None else repr(sharding)


def _equal(a: object, b: object) -> bool:
    """``a == b`` for values whose stubs do not declare ``__eq__`` (JAX's tree structures)."""
    return bool(a == b)


def differences(
    got: Any,
    expected: Any,
    *,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    check_dtype: bool = True,
    check_sharding: bool = False,
) -> list[str]:
    """Every way ``got`` differs from ``expected``, in words; empty when they match.

    Works on pytrees (lists, tuples, dicts of arrays and scalars). For each array leaf it compares,
    in order: shape, dtype, sharding (``check_sharding``; only for JAX arrays), then values to
    ``rtol``/``atol``. Other leaves are compared with ``==``.
    """
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    exp_leaves, exp_tree = jax.tree_util.tree_flatten(expected)
    if not _equal(got_tree, exp_tree):
        return [f"structure differs: got {got_tree}, expected {exp_tree}"]
    problems: list[str] = []
    for path_index, (g, e) in enumerate(zip(got_leaves, exp_leaves, strict=True)):
        where = "" if len(exp_leaves) == 1 else f"leaf {path_index}: "
        if isinstance(e, (jax.Array, np.ndarray, np.generic)):
            if not hasattr(g, "shape"):
                problems.append(f"{where}got a {type(g).__name__}, expected an array")
                continue
            if tuple(g.shape) != tuple(e.shape):
                problems.append(
                    f"{where}shape differs: got {tuple(g.shape)}, expected {tuple(e.shape)}"
                )
                continue
            if check_dtype and np.dtype(g.dtype) != np.dtype(e.dtype):
                problems.append(f"{where}dtype differs: got {g.dtype}, expected {e.dtype}")
            if (
                check_sharding
                and isinstance(e, jax.Array)
                and not (
                    isinstance(g, jax.Array) and g.sharding.is_equivalent_to(e.sharding, e.ndim)
                )
            ):
                problems.append(
                    f"{where}sharding differs: got {_describe_sharding(g)}, "
                    f"expected {_describe_sharding(e)}"
                )
            g_np, e_np = np.asarray(g), np.asarray(e)
            if g_np.dtype.kind in "fc" or e_np.dtype.kind in "fc":
                close = np.isclose(g_np, e_np, rtol=rtol, atol=atol, equal_nan=True)
            else:
                close = g_np == e_np
            if not np.all(close):
                bad = int(np.size(close) - np.count_nonzero(close))
                first = (
                    np.unravel_index(int(np.argmin(close)), np.shape(close))
                    if np.ndim(close)
                    else ()
                )
                problems.append(
                    f"{where}values differ at {bad} of {np.size(close)} positions; first at index "
                    f"{tuple(int(i) for i in first)}: got {g_np[first].tolist()!r}, expected {e_np[first].tolist()!r}"
                )
        elif g != e:
            problems.append(f"{where}got {g!r}, expected {e!r}")
    return problems


def assert_matches(got: Any, expected: Any, **options: Any) -> None:
    """Raise an AssertionError naming every difference between ``got`` and ``expected``.

    Takes the options of :func:`differences`. Notebooks use it to check a claim against a
    reference computed another way.
    """
    problems = differences(got, expected, **options)
    if problems:
        raise AssertionError("; ".join(problems))


def check(
    exercise: str,
    answer: Any,
    expected: Any,
    *,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    hint: str | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    check_dtype: bool = True,
    check_sharding: bool = False,
    compare: Callable[[Any, Any], list[str]] | None = None,
) -> CheckResult:
    """Check an exercise answer and say what differs.

    Args:
        exercise: the exercise's label, e.g. ``"03.2"``.
        answer: the learner's value, or a callable, which is called as ``answer(*args, **kwargs)``.
        expected: the reference value (a pytree of arrays and scalars).
        hint: a sentence added to the failure message, pointing to the idea the exercise needs.
        compare: a custom comparison returning a list of differences (empty when correct);
            replaces the default :func:`differences`.

    Returns:
        A :class:`CheckResult`: "solved", or "not solved yet" when the answer is still a stub
        (``...`` or a function raising ``NotImplementedError``/:class:`NotSolvedYet`).

    Raises:
        ExerciseFailed: the answer differs from ``expected``; the message names how.
    """
    if _is_stub(answer):
        return CheckResult(exercise, "not solved yet", "Replace the `...` in the answer cell.")
    if callable(answer) and not isinstance(answer, jax.Array):
        try:
            answer = answer(*args, **(kwargs or {}))
        except (NotImplementedError, NotSolvedYet):
            return CheckResult(exercise, "not solved yet", "Fill in the body of the function.")
        if _is_stub(answer):
            return CheckResult(exercise, "not solved yet", "The function still returns `...`.")
    if compare is not None:
        problems = compare(answer, expected)
    else:
        problems = differences(
            answer,
            expected,
            rtol=rtol,
            atol=atol,
            check_dtype=check_dtype,
            check_sharding=check_sharding,
        )
    if problems:
        message = f"Exercise {exercise}: " + "; ".join(problems)
        if hint:
            message += f". Hint: {hint}"
        raise ExerciseFailed(message)
    return CheckResult(exercise, "solved")
