"""Automatic checks for exercises and for the claims a notebook makes.

A notebook's exercise has three cells: the task (markdown), the learner's answer (a code cell
tagged ``solution``, which holds the course's own solution, hidden), and a check::

    ah.check("03.1", addressable_ids, expected={0, 1, 2, 3})

:func:`check` accepts the answer as a value or as a function to call with ``args``. In a student
copy (``aurora student``) each solution body is replaced by a stub; the check then reports
"not solved yet" instead of raising, so the notebook still runs top to bottom.

A wrong answer is reported, not raised: the check returns a red "wrong" result naming what
differs, so one wrong exercise does not stop "Run all" and every exercise gets a status. Two
environment variables change that for tools: ``AURORA_CHECKS=raise`` makes a wrong answer raise
:class:`ExerciseFailed` (the course's own tests, so a broken solution fails them), and
``AURORA_GRADE_LOG=<file>`` appends one JSON line per check (``aurora grade`` reads it). Both
names, and the line's format, are defined in :mod:`aurora_helpers.contract`.
"""

from __future__ import annotations

import functools
import html
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from ..compiled.jaxpr_inspect import Program, trace_program
from ..contract import CheckRecord, Status, checks_raise, log_check
from .off_limits import OffLimits, reached_problem, watching
from .traced_numpy import SWITCHES, watching_numpy_on_traced

#: A requirement on how an answer computes: called with the learner's function and the first
#: call's ``args`` and ``kwargs``, it returns the problems it found (empty when the route is right).
RouteCheck = Callable[[Callable[..., Any], tuple[Any, ...], dict[str, Any]], list[str]]

#: Primitives that hand values to Python on the host and back: where a check reads the traced
#: program, a result that depends on one was computed by the host, not by JAX (``jax.debug.print``
#: is a ``debug_callback`` and feeds no result, so a trial print is fine).
HOST_CALLBACKS = frozenset({"pure_callback", "io_callback", "callback"})

#: The route checks that read the traced program (``ah.uses``, ``ah.avoids``, ...): a check with
#: one takes its values from the same trace (see :func:`_traced_call`).
_READS_TRACE: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()
#: Those of them that hold for every case's program: what an answer must never do. A check that
#: requires an operation reads the first case's alone (JAX may leave an operation out of a
#: degenerate case's program: a scatter of no values).
_EVERY_CASE: weakref.WeakSet[Callable[..., Any]] = weakref.WeakSet()


def on_every_case(requirement: RouteCheck) -> RouteCheck:
    """Mark a route check to run on every case the check tries, not the first alone (and return
    it). For a notebook's own check that watches what the answer does while it runs (compiles
    nothing, places nothing, starts no process): the values the watched calls return are the
    ones compared, so an answer that behaves for the one call a check watches and does the work
    another way in the others is caught. Write it to hold for every case (an empty input
    included)."""
    _EVERY_CASE.add(requirement)
    return requirement


def reads_trace(requirement: RouteCheck, *, every_case: bool = False) -> RouteCheck:
    """Mark a route check as one that reads the answer's traced program (and return it):
    the first case's, or with ``every_case`` each case's."""
    _READS_TRACE.add(requirement)
    if every_case:
        _EVERY_CASE.add(requirement)
    return requirement


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

    @property
    def wrong(self) -> bool:
        return self.status == "wrong"

    def _headline(self) -> str:
        mark = {"solved": "✅", "not solved yet": "⏳", "wrong": "❌"}[self.status]
        return f"{mark} Exercise {self.exercise}: {self.status}."

    def _lines(self) -> list[str]:
        """The detail as lines: each problem (one per case or group of cases), then the hint."""
        return [line for line in self.detail.splitlines() if line.strip()]

    def __str__(self) -> str:
        lines = self._lines()
        if self.status != "wrong" or not lines:
            return " ".join([self._headline(), *lines])
        return "\n".join([self._headline(), *(f"  • {line}" for line in lines)])

    __repr__ = __str__

    def _repr_html_(self) -> str:
        colour = {"solved": "#1a7f37", "not solved yet": "#9a6700", "wrong": "#cf222e"}[self.status]
        head = f"<div style='color:{colour};font-weight:600'>{html.escape(self._headline())}"
        lines = self._lines()
        if self.status != "wrong" or not lines:
            return head + "".join(f" {html.escape(line)}" for line in lines) + "</div>"
        items = "".join(
            f"<li style='white-space:pre-wrap'>{html.escape(line)}</li>" for line in lines
        )
        return f"{head}</div><ul style='color:{colour};margin:0.2em 0'>{items}</ul>"


@dataclass(frozen=True)
class Case:
    """One more input a function answer must handle, which the learner does not see.

    ``label`` names the case in messages (``"n = 0"``, ``"a 3 x 5 matrix"``).
    """

    args: tuple[Any, ...]
    expected: Any
    label: str
    kwargs: dict[str, Any] = field(default_factory=dict)


def _is_stub(value: Any) -> bool:
    return value is Ellipsis or value is NotImplemented


def _describe_sharding(x: Any) -> str:
    """``NamedSharding(P('d',), memory_kind=pinned_host)``: the layout and, if any, the memory."""
    sharding = getattr(x, "sharding", None)
    spec = getattr(sharding, "spec", None)
    if spec is None:
        return repr(sharding)
    memory = getattr(sharding, "memory_kind", None)
    where = f", memory_kind={memory}" if memory else ""
    return f"{type(sharding).__name__}({spec}{where})"


def _equal(a: object, b: object) -> bool:
    """``a == b`` for values whose stubs do not declare ``__eq__`` (JAX's tree structures)."""
    return bool(a == b)


def _structure_problem(got: Any, expected: Any, path: str = "") -> str:
    """Say where and how two pytrees' shapes differ (keys, lengths, types), by path."""
    where = f"{path}: " if path else ""
    if isinstance(expected, dict) and isinstance(got, dict):
        missing = sorted(map(str, expected.keys() - got.keys()))
        extra = sorted(map(str, got.keys() - expected.keys()))
        if missing or extra:
            parts = [
                f"missing key(s) {missing}" if missing else "",
                f"unexpected key(s) {extra}" if extra else "",
            ]
            return f"{where}the dict differs: " + ", ".join(p for p in parts if p)
        for key in expected:
            inner = _structure_problem(got[key], expected[key], f"{path}[{key!r}]")
            if inner:
                return inner
        return ""
    if isinstance(expected, list | tuple) and isinstance(got, list | tuple):
        if type(got) is not type(expected):
            return f"{where}got a {type(got).__name__}, expected a {type(expected).__name__}"
        if len(got) != len(expected):
            return f"{where}got {len(got)} items, expected {len(expected)}"
        for index, (g, e) in enumerate(zip(got, expected, strict=True)):
            inner = _structure_problem(g, e, f"{path}[{index}]")
            if inner:
                return inner
        return ""
    if (got is None) != (expected is None):
        return f"{where}got {got!r:.60}, expected a {type(expected).__name__}"
    if _is_leaf_like(got) and _is_leaf_like(expected):
        return ""
    if type(got) is not type(expected):
        return f"{where}got a {type(got).__name__}, expected a {type(expected).__name__}"
    got_tree = jax.tree_util.tree_structure(got)
    exp_tree = jax.tree_util.tree_structure(expected)
    return (
        ""
        if _equal(got_tree, exp_tree)
        else f"{where}structure differs: got {got_tree}, expected {exp_tree}"
    )


def _is_leaf_like(value: Any) -> bool:
    return jax.tree_util.treedef_is_leaf(jax.tree_util.tree_structure(value))


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

    Works on pytrees (lists, tuples, dicts of arrays and scalars); each difference names the path
    of the leaf (``['collectives']['all-reduce']: got 2, expected 1``). For each array leaf it compares,
    in order: shape, dtype, sharding (``check_sharding``; only for JAX arrays), then values to
    ``rtol``/``atol``. Other leaves are compared with ``==``.
    """
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    exp_with_paths, exp_tree = jax.tree_util.tree_flatten_with_path(expected)
    if not _equal(got_tree, exp_tree):
        found = _structure_problem(got, expected)
        return [found or f"structure differs: got {got_tree}, expected {exp_tree}"]
    problems: list[str] = []
    for g, (path, e) in zip(got_leaves, exp_with_paths, strict=True):
        where = f"{jax.tree_util.keystr(path)}: " if path else ""
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
        elif not _plain_equal(g, e):
            problems.append(f"{where}got {g!r}, expected {e!r}")
    return problems


def _plain_equal(got: Any, expected: Any) -> bool:
    """``got == expected`` only when that comparison gives a real truth value.

    An object with odd equality (an array where a scalar is expected, ``np.ma.masked``, a class
    whose ``__eq__`` always says yes) must not pass as the expected number or string.
    """
    numbers = int | float | np.number
    if (
        isinstance(got, np.ndarray | jax.Array)
        and np.ndim(got) == 0
        and isinstance(expected, numbers)
    ):
        got = got.item()  # a JAX or NumPy scalar where a Python number is expected
    odd = isinstance(got, np.ndarray | jax.Array) or type(got).__eq__ is not type(expected).__eq__
    if odd and not (isinstance(got, numbers) and isinstance(expected, numbers)):
        return False
    try:
        same = got == expected
    except Exception:
        return False
    return isinstance(same, bool | np.bool_) and bool(same)


def assert_matches(got: Any, expected: Any, **options: Any) -> None:
    """Raise an AssertionError naming every difference between ``got`` and ``expected``.

    Takes the options of :func:`differences`. Notebooks use it to check a claim against a
    reference computed another way.
    """
    problems = differences(got, expected, **options)
    if problems:
        raise AssertionError("; ".join(problems))


def _error_gist(err: BaseException) -> str:
    """``TypeError: first line of the message`` (JAX's long messages cut to their first line)."""
    lines = [line for line in str(err).strip().splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if len(first) > 300:
        first = first[:297] + "..."
    return f"{type(err).__name__}: {first}" if first else type(err).__name__


class _StillStub(Exception):
    """Internal: the answer turned out to be a stub."""


def _call(answer: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    try:
        value = answer(*args, **kwargs)
    except (NotImplementedError, NotSolvedYet) as err:
        raise _StillStub("Fill in the body of the function.") from err
    if _is_stub(value):
        raise _StillStub("The function still returns `...`.")
    return value


class _Recorder:
    """The answer as a route check calls it: each call with the case's own arguments (the same
    objects) keeps what it returned or raised, so that the check compares the values the watched
    calls gave, and a stub, or an error a route check swallowed where no watched call returned a
    value, is still seen (a route check may provoke an error on purpose, under a guard)."""

    def __init__(
        self, answer: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> None:
        self.answer, self.args, self.kwargs = answer, args, kwargs
        self.calls = 0
        self.values: list[Any] = []
        self.errors: list[Exception] = []
        self.stub = ""

    def _is_the_case(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        # Identity tells the case's own objects apart, except for values Python shares (small
        # ints, interned strings, None): a route check calling with its own hidden n = 3 would
        # pass for the case n = 3. Arguments of those kinds alone are never taken for the case.
        if not any(
            not isinstance(a, int | float | complex | str | bytes | bool | type(None))
            for a in [*self.args, *self.kwargs.values()]
        ):
            return False
        return (
            len(args) == len(self.args)
            and all(a is b for a, b in zip(args, self.args, strict=True))
            and kwargs.keys() == self.kwargs.keys()
            and all(kwargs[k] is self.kwargs[k] for k in kwargs)
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        mine = self._is_the_case(args, kwargs)
        try:
            value = self.answer(*args, **kwargs)
        except (NotImplementedError, NotSolvedYet):
            self.stub = "Fill in the body of the function."
            raise
        except Exception as err:
            if mine:
                self.errors.append(err)
            raise
        if _is_stub(value):
            self.stub = "The function still returns `...`."
        elif mine and not _holds_tracer(value):
            self.values.append(value)
        return value

    def __getattr__(self, name: str) -> Any:  # a route check may read the function's attributes
        return getattr(self.answer, name)


def _holds_tracer(value: Any) -> bool:
    """Whether a value is a traced one (a route check that traces the answer: not a result)."""
    return any(isinstance(leaf, jax.core.Tracer) for leaf in jax.tree.leaves(value))


class _Untraceable(Exception):
    """Internal: the answer cannot be traced where the check reads its traced program."""


def untraceable(err: BaseException) -> str:
    """What to say of an answer JAX cannot trace (the route checks say it too)."""
    first = (str(err).splitlines() or [""])[0][:200]
    return (
        f"JAX cannot trace your function ({first}); compute with JAX operations on the "
        "arguments, not with NumPy or Python values taken out of them"
    )


def _traced_call(
    answer: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, Program]:
    """The answer's value as the program JAX traces from it computes it, and that program.

    A check whose route checks read the traced program takes its values from the same trace, so
    an answer cannot give the values by one road (NumPy on concrete inputs) and show the route
    checks another (the JAX it takes when traced). An answer JAX cannot trace there is wrong
    (:class:`_Untraceable`), unless it is still the stub.
    """
    try:
        with watching_numpy_on_traced() as asked:
            program = trace_program(answer, args, kwargs)
    except (NotImplementedError, NotSolvedYet) as err:
        raise _StillStub("Fill in the body of the function.") from err
    except Exception as err:  # a NumPy detour, a stub's `...`, a non-array result
        _call(answer, args, kwargs)  # a stub says so here
        raise _Untraceable(untraceable(err)) from err
    if asked:  # NumPy tried on the traced values, the error caught, JAX taken instead
        raise _Untraceable(SWITCHES)
    return program.run(*args, **kwargs), program


def _route_problems(
    requirement: RouteCheck,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> list[str]:
    try:
        return requirement(fn, args, kwargs)
    except Exception as err:
        return [f"its route could not be checked: {_error_gist(err)}"]


def _replaying(answer: Callable[..., Any], program: Program) -> Callable[..., Any]:
    """A function that runs ``program`` (one trace of ``answer``), named as the answer is."""

    @functools.wraps(answer)
    def replay(*args: Any, **kwargs: Any) -> Any:
        return program.run(*args, **kwargs)

    return replay


def check(
    exercise: str,
    answer: Any,
    expected: Any = None,
    *,
    args: Sequence[Any] = (),
    kwargs: dict[str, Any] | None = None,
    cases: Sequence[Case] = (),
    route: Sequence[RouteCheck] = (),
    hint: str | None = None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    check_dtype: bool = True,
    check_sharding: bool = False,
    compare: Callable[[Any, Any], list[str]] | None = None,
    off_limits: OffLimits = (),
) -> CheckResult:
    """Check an exercise answer and say what differs.

    Args:
        exercise: the exercise's label, e.g. ``"03.2"``.
        answer: the learner's value, or a callable, which is called as ``answer(*args, **kwargs)``.
        expected: the reference value (a pytree of arrays and scalars) for ``args``. May be left
            out when ``cases`` holds every input to try.
        cases: more inputs for a function answer, each with its own expected value (sizes and
            edge cases the learner does not see); each mismatch names the case.
        route: requirements on how a function answer computes (see :mod:`aurora_helpers.checks.routes`),
            run with the first call's arguments: the lesson's collective is in the program, the
            function compiled once, ... A right value by the wrong route is still wrong. Where
            one of them reads the traced program (``ah.uses``, ``ah.avoids``, ...), every value
            comes from the program JAX traces from the answer, the route checks read that same
            program, and a result computed by a host callback is wrong.
        hint: a sentence added to a "wrong" message, pointing to the idea the exercise needs.
        compare: a custom comparison returning a list of differences (empty when correct);
            replaces the default :func:`differences`.
        off_limits: the check's own references (the notebook's function that computes the
            expected value; names of built-in methods such as ``"cost_analysis"``): an answer
            that reaches one while it runs, by any path, is wrong
            (:mod:`aurora_helpers.checks.off_limits`).

    Returns:
        A :class:`CheckResult`: "solved"; "not solved yet" when the answer is still a stub
        (``...`` or a function raising ``NotImplementedError``/:class:`NotSolvedYet`); "wrong"
        with every difference found (an exception the answer raised counts as wrong, and is named).

    Before anything runs, the answer's cells as this kernel ran them are screened with the rules
    ``aurora grade`` applies (:mod:`aurora_helpers.checks.answer_cells`): an answer that breaks one is
    "wrong", with what to change, here as in the grader.

    Raises:
        ExerciseFailed: the answer is wrong and ``AURORA_CHECKS=raise`` is set (the course's tests).
    """
    from .answer_cells import answer_problems

    broken = answer_problems(exercise)
    result = (
        _broken_rules(exercise, broken)
        if broken
        else _judge(
            exercise,
            answer,
            expected,
            args=tuple(args),
            kwargs=dict(kwargs or {}),
            cases=tuple(cases),
            route=tuple(route),
            hint=hint,
            off_limits=off_limits,
            compare=compare
            or (
                lambda got, want: differences(
                    got,
                    want,
                    rtol=rtol,
                    atol=atol,
                    check_dtype=check_dtype,
                    check_sharding=check_sharding,
                )
            ),
        )
    )
    log_check(CheckRecord(result.exercise, result.status, result.detail))
    if result.wrong and checks_raise():
        raise ExerciseFailed(f"Exercise {exercise}: {result.detail}")
    return result


def _broken_rules(exercise: str, problems: list[str]) -> CheckResult:
    """A "wrong" result naming the rules of answer cells the answer breaks (it did not run)."""
    return CheckResult(
        exercise,
        "wrong",
        "\n".join(
            [
                "the answer breaks a rule of answer cells (`aurora grade` applies the same rules)",
                *(p.rstrip(". ") for p in problems[:5]),
                "Change that, then run the answer cell and this check again",
            ]
        ),
    )


def _once(problem: str, labels: list[str], runs: int) -> str:
    """One problem on one line, with the cases that showed it (said once, not once per case).

    ``labels`` are the cases' labels (``"for n = 2: "``; ``""`` for the call the notebook shows).
    """
    names = [
        label.removeprefix("for ").removesuffix(": ") or "the arguments shown" for label in labels
    ]
    problem = problem.rstrip(". ")
    if runs == 1:
        return problem
    if len(names) == 1:
        return f"for {names[0]}: {problem}"
    if len(names) == runs:
        return f"in all {runs} cases tried: {problem}"
    return f"for {', '.join(names)} ({len(names)} of the {runs} cases tried): {problem}"


def _detail(problems: list[str], hint: str | None) -> str:
    """The lines of a "wrong" report: one per problem, then the hint."""
    lines = [p.rstrip(". ") for p in dict.fromkeys(problems)]
    if hint:
        lines.append(f"Hint: {hint.rstrip()}")
    return "\n".join(lines)


def _judge(
    exercise: str,
    answer: Any,
    expected: Any,
    *,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    cases: tuple[Case, ...],
    route: tuple[RouteCheck, ...],
    hint: str | None,
    compare: Callable[[Any, Any], list[str]],
    off_limits: OffLimits = (),
) -> CheckResult:
    if _is_stub(answer):
        return CheckResult(exercise, "not solved yet", "Replace the `...` in the answer cell.")
    is_function = callable(answer) and not isinstance(answer, jax.Array)
    if (cases or route) and not is_function:
        raise TypeError(
            f"check({exercise!r}): `cases` and `route` need a function answer, got a "
            f"{type(answer).__name__}"
        )
    runs: list[tuple[str, tuple[Any, ...], dict[str, Any], Any]] = []
    if expected is not None or not cases:
        runs.append(("", args, kwargs, expected))
    runs += [(f"for {case.label}: ", case.args, case.kwargs, case.expected) for case in cases]
    one_trace = is_function and any(r in _READS_TRACE for r in route)
    # The route checks that run the answer themselves (the notebooks' own, ``ah.compiles_once``):
    # the first case's run is theirs (the values its calls return are the ones compared: no
    # unwatched call to do the work in), and each case's with :func:`on_every_case`.
    watched = [r for r in route if not (one_trace and r in _READS_TRACE)] if is_function else []

    def watched_for(number: int) -> list[RouteCheck]:
        return [r for r in watched if not number or r in _EVERY_CASE]

    programs: list[tuple[int, str, tuple[Any, ...], dict[str, Any], Any, Program]] = []
    problems: list[str] = []
    per_case: dict[str, list[str]] = {}  # a problem -> the cases that showed it

    def said(problem: str, label: str) -> None:
        per_case.setdefault(problem, [])
        if label not in per_case[problem]:
            per_case[problem].append(label)

    def run_watched(
        requirements: Sequence[RouteCheck],
        label: str,
        call_args: tuple[Any, ...],
        call_kwargs: dict[str, Any],
        want: Any,
    ) -> tuple[bool, list[RouteCheck]]:
        """Run ``requirements`` on one case; whether a call with the case's arguments was watched
        (its values compared), and the requirements that did not call the answer at all (they
        read what the case's own run leaves: run them again after it)."""
        recorder = _Recorder(answer, call_args, call_kwargs)
        idle: list[RouteCheck] = []
        for requirement in requirements:
            before = recorder.calls
            with watching(off_limits) as reached:
                found = _route_problems(requirement, recorder, call_args, call_kwargs)
            if recorder.calls == before:
                idle.append(requirement)
                continue
            for problem in [reached_problem(reached)] if reached else found:
                said(problem, label)
        if recorder.stub:
            raise _StillStub(recorder.stub)
        if not recorder.values:  # every watched call raised: a route check swallowed it
            for error in recorder.errors:
                said(f"your function raised {_error_gist(error)}", label)
        for got in recorder.values:
            for problem in compare(got, want):
                said(problem, label)
        return bool(recorder.values or recorder.errors), idle

    def read_after(
        requirements: Sequence[RouteCheck],
        label: str,
        call_args: tuple[Any, ...],
        call_kwargs: dict[str, Any],
    ) -> None:
        """Run the route checks that read what a case's run left (they call no answer)."""
        for requirement in requirements:
            with watching(off_limits) as reached:
                found = _route_problems(requirement, answer, call_args, call_kwargs)
            for problem in [reached_problem(reached)] if reached else found:
                said(problem, label)

    try:
        for number, (label, call_args, call_kwargs, want) in enumerate(runs):
            idle: list[RouteCheck] = []
            if watched_for(number) and not one_trace:
                covered, idle = run_watched(
                    watched_for(number), label, call_args, call_kwargs, want
                )
                if covered:
                    read_after(idle, label, call_args, call_kwargs)  # they read this run
                    continue
            try:
                with watching(off_limits) as reached:
                    if one_trace:
                        got, program = _traced_call(answer, call_args, call_kwargs)
                        programs.append((number, label, call_args, call_kwargs, want, program))
                    else:
                        got = _call(answer, call_args, call_kwargs) if is_function else answer
                if reached:
                    said(reached_problem(reached), label)
                    continue
            except _StillStub:
                raise
            except _Untraceable as err:
                said(str(err), label)
                continue
            except Exception as err:  # the learner's code failed: say how, then give the hint
                said(f"your function raised {_error_gist(err)}", label)
                continue
            for problem in compare(got, want):
                said(problem, label)
            read_after(idle, label, call_args, call_kwargs)  # what the case's run left
        # Every run's own program: the route checks that read programs, and host callbacks.
        for number, label, call_args, call_kwargs, want, program in programs:
            on_host = sorted(HOST_CALLBACKS & set(program.primitives()))
            if on_host:
                problem = (
                    f"your result is computed on the host, through {', '.join(on_host)}: "
                    "compute it with JAX operations, on the devices"
                )
                said(problem, label)
            replay = _replaying(answer, program)
            reading = [r for r in route if r in _READS_TRACE and (r in _EVERY_CASE or not number)]
            for requirement in reading:
                for problem in _route_problems(requirement, replay, call_args, call_kwargs):
                    said(problem, label)
            if watched_for(number):  # the requirements that call the answer, on this case too
                _, idle = run_watched(watched_for(number), label, call_args, call_kwargs, want)
                read_after(idle, label, call_args, call_kwargs)
        problems += [_once(problem, labels, len(runs)) for problem, labels in per_case.items()]
    except _StillStub as stub:
        return CheckResult(exercise, "not solved yet", str(stub))
    if problems:
        return CheckResult(exercise, "wrong", _detail(problems, hint))
    return CheckResult(exercise, "solved")
