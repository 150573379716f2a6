import contextlib
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import aurora_helpers as ah
from aurora_helpers.checks.exercises import ExerciseFailed, on_every_case


@pytest.fixture
def raising(monkeypatch):
    """The course's tests' mode: a wrong answer raises ExerciseFailed."""
    monkeypatch.setenv("AURORA_CHECKS", "raise")


@pytest.fixture(autouse=True)
def _default_mode(monkeypatch):
    monkeypatch.delenv("AURORA_CHECKS", raising=False)
    monkeypatch.delenv("AURORA_GRADE_LOG", raising=False)


def test_correct_value_is_solved():
    result = ah.check("t.1", jnp.arange(4), expected=np.arange(4, dtype=np.int32))
    assert result.solved and "✅" in str(result) and "solved" in result._repr_html_()


def test_callable_answers_are_called_with_args():
    result = ah.check("t.2", lambda a, b=0: a + b, expected=5, args=(2,), kwargs={"b": 3})
    assert result.solved


@pytest.mark.parametrize("stub", [..., NotImplemented])
def test_stub_values_are_not_solved_yet(stub):
    result = ah.check("t.3", stub, expected=1)
    assert result.status == "not solved yet" and not result.solved and "⏳" in str(result)


def test_stub_functions_are_not_solved_yet():
    def raises():
        raise NotImplementedError("your answer here")

    def not_solved():
        raise ah.NotSolvedYet

    assert ah.check("t.4", raises, expected=1).status == "not solved yet"
    assert ah.check("t.4", not_solved, expected=1).status == "not solved yet"
    assert ah.check("t.4", lambda: ..., expected=1).status == "not solved yet"


def test_errors_in_the_answer_are_reported_with_the_hint():
    result = ah.check("t.5", lambda: 1 / 0, expected=1, hint="divide by the count")
    assert result.wrong and "❌" in str(result)
    assert "your function raised ZeroDivisionError: division by zero" in result.detail
    assert result.detail.endswith("Hint: divide by the count")


def test_a_wrong_answer_is_reported_not_raised_by_default():
    result = ah.check("t.5b", 3, expected=4, hint="count again")
    assert result.status == "wrong" and not result.solved
    assert "got 3, expected 4" in result.detail and "Hint: count again" in result.detail
    assert "cf222e" in result._repr_html_()


def test_raise_mode_raises(raising):
    with pytest.raises(ExerciseFailed, match=r"Exercise t.5c: got 3, expected 4"):
        ah.check("t.5c", 3, expected=4)
    assert ah.check("t.5c", ..., expected=4).status == "not solved yet"  # stubs never raise


def test_grade_log_gets_one_line_per_check(tmp_path, monkeypatch):
    log = tmp_path / "grade.jsonl"
    monkeypatch.setenv("AURORA_GRADE_LOG", str(log))
    ah.check("g.1", 1, expected=1)
    ah.check("g.2", 2, expected=1)
    ah.check("g.3", ..., expected=1)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(x["exercise"], x["status"]) for x in lines] == [
        ("g.1", "solved"),
        ("g.2", "wrong"),
        ("g.3", "not solved yet"),
    ]
    assert "got 2, expected 1" in lines[1]["detail"]


def test_cases_try_hidden_inputs_and_name_them():
    def count(n):
        return 3  # right only for the visible input

    result = ah.check(
        "t.c",
        count,
        args=(3,),
        expected=3,
        cases=[ah.Case((0,), 0, "n = 0"), ah.Case((1,), 1, "n = 1")],
    )
    assert result.wrong
    assert "for n = 0: got 3, expected 0" in result.detail
    assert "for n = 1: got 3, expected 1" in result.detail
    assert ah.check("t.c", lambda n: n, cases=[ah.Case((0,), 0, "n = 0")]).solved


def test_one_error_seen_in_many_cases_is_said_once_with_a_count():
    def broken(n):
        raise ValueError("no such axis 'rows'")

    cases = [ah.Case((k,), k, f"n = {k}") for k in range(4)]
    result = ah.check("t.c", broken, args=(9,), expected=9, cases=cases)
    assert result.wrong
    assert result.detail.count("no such axis") == 1
    assert "in all 5 cases tried: your function raised ValueError" in result.detail
    one_off = ah.check("t.c", lambda n: 0 if n == 2 else n, args=(9,), expected=9, cases=cases)
    assert "for n = 2: got 0, expected 2" in one_off.detail and "cases tried" not in one_off.detail
    some = ah.check("t.c", lambda n: n // (n % 2 - 1), args=(8,), expected=-8, cases=cases)
    assert "for n = 1, n = 3 (2 of the 5 cases tried): your function raised" in some.detail


def test_a_wrong_report_is_one_line_per_problem_then_the_hint():
    """Learners read a list, not one paragraph joined with semicolons (and no doubled period)."""
    cases = [ah.Case((k,), k, f"n = {k}") for k in range(3)]
    result = ah.check(
        "t.l", lambda n: n + 1 if n else 0, args=(5,), expected=5, cases=cases, hint="count."
    )
    lines = str(result).splitlines()
    assert lines[0] == "❌ Exercise t.l: wrong."
    assert lines[-1] == "  • Hint: count."
    assert all(line.startswith("  • ") for line in lines[1:]) and len(lines) == 5
    assert lines[1] == "  • for the arguments shown: got 6, expected 5"
    assert ".." not in str(result) and ";" not in result.detail
    page = result._repr_html_()
    assert page.count("<li") == 4 and "Hint: count." in page
    assert str(ah.check("t.l", 1, expected=1)) == "✅ Exercise t.l: solved."


def test_cases_and_route_need_a_function():
    with pytest.raises(TypeError, match="need a function answer"):
        ah.check("t.c", 3, expected=3, cases=[ah.Case((0,), 0, "n = 0")])


def test_route_checks_run_after_the_first_case_or_on_every_case_when_marked():
    """A route check that reads what a case's run left (it does not call the answer) reads it
    after that run: the first case's, or with ``ah.on_every_case`` each case's."""
    seen = []

    def route(fn, args, kwargs):
        seen.append((args, fn.__name__))
        return [] if fn.__name__ == "good" else ["not the lesson's route"]

    def good(x):
        return x + 1

    def bad(x):
        return x + 1

    cases = [ah.Case((5,), 6, "x = 5")]
    assert ah.check("t.r", good, args=(1,), expected=2, cases=cases, route=[route]).solved
    assert {a for a, _ in seen} == {(1,)}
    result = ah.check("t.r", bad, args=(1,), expected=2, cases=cases, route=[route], hint="h")
    assert result.wrong and "for the arguments shown: not the lesson's route" in result.detail
    seen.clear()
    every = on_every_case(route)
    assert ah.check("t.r", good, args=(1,), expected=2, cases=cases, route=[every]).solved
    assert {a for a, _ in seen} == {(1,), (5,)} and seen[-1][0] == (5,)
    result = ah.check("t.r", bad, args=(1,), expected=2, cases=cases, route=[every], hint="h")
    assert result.wrong and "in all 2 cases tried: not the lesson's route" in result.detail


def _watch_no_device_put(fn, args, kwargs):
    """A route check that calls the answer itself: nothing placed with device_put."""
    calls = []
    original = jax.device_put
    jax.device_put = lambda *a, **k: calls.append(a) or original(*a, **k)
    try:
        fn(*args, **kwargs)
    finally:
        jax.device_put = original
    return ["it placed an array"] if calls else []


def test_an_answer_that_behaves_only_when_watched_is_wrong():
    """Issue 38: 10.3's lazy answer behaved for the watched call (the first case) and placed real
    arrays in the others. Each case is now run by the route check, and its values are those the
    watched calls returned."""
    calls = []

    def first_call_honest(x):
        calls.append(x)
        if len(calls) == 1:
            return x * 2  # the watched call
        return jax.device_put(x) * 2  # the forbidden route, unwatched before

    cases = [ah.Case((jnp.float32(5),), jnp.float32(10), "x = 5")]
    args = (jnp.float32(1),)
    result = ah.check(
        "t.w",
        first_call_honest,
        args=args,
        expected=jnp.float32(2),
        cases=cases,
        route=[on_every_case(_watch_no_device_put)],
    )
    assert result.wrong and "for x = 5: it placed an array" in result.detail
    calls.clear()

    def caches_the_unwatched_work(x, _cache={}):  # noqa: B006
        key = float(x)
        if key not in _cache:  # the watched call comes first now: nothing to take from
            return jnp.float32(0)
        return _cache[key]

    result = ah.check(
        "t.w",
        caches_the_unwatched_work,
        args=args,
        expected=jnp.float32(2),
        cases=cases,
        route=[on_every_case(_watch_no_device_put)],
    )
    assert result.wrong and "got 0.0, expected 10.0" in result.detail

    def honest(x):
        return x + x

    assert ah.check(
        "t.w",
        honest,
        args=args,
        expected=jnp.float32(2),
        cases=cases,
        route=[on_every_case(_watch_no_device_put)],
    ).solved


def test_an_error_or_stub_a_route_check_swallows_still_counts():
    def swallowing(fn, args, kwargs):
        with contextlib.suppress(Exception):
            fn(*args, **kwargs)
        return []

    def raises(x):
        raise ValueError("no")

    def stub(x):
        raise NotImplementedError

    wrong = ah.check("t.e", raises, args=(1,), expected=2, route=[swallowing])
    assert wrong.wrong and "your function raised ValueError" in wrong.detail
    assert ah.check("t.e", stub, args=(1,), expected=2, route=[swallowing]).status == (
        "not solved yet"
    )


def test_structured_answers_name_the_path():
    result = ah.check(
        "t.p",
        {"product": np.ones(2), "collectives": {"all-reduce": 2}},
        expected={"product": np.ones(2), "collectives": {"all-reduce": 1}},
    )
    assert "['collectives']['all-reduce']: got 2, expected 1" in result.detail
    assert "leaf" not in result.detail
    missing = ah.check("t.p", {"a": 1}, expected={"a": 1, "b": 2})
    assert "missing key(s) ['b']" in missing.detail
    nested = ah.check("t.p", {"a": {"b": 1}, "k": None}, expected={"a": {"c": 1}, "k": "x"})
    assert "['a']: the dict differs: missing key(s) ['c'], unexpected key(s) ['b']" in nested.detail
    assert ah.check("t.p", {"k": None}, expected={"k": "x"}).detail == (
        "['k']: got None, expected a str"
    )
    assert ah.check("t.p", [1, (2, 3)], expected=[1, [2, 3]]).detail == (
        "[1]: got a tuple, expected a list"
    )


@pytest.mark.parametrize(
    ("got", "expected", "message"),
    [
        (jnp.zeros(3), jnp.zeros(4), r"shape differs: got \(3,\), expected \(4,\)"),
        (jnp.zeros(3, jnp.int32), jnp.zeros(3), "dtype differs: got int32, expected float32"),
        (
            jnp.array([1.0, 2.0, 3.0]),
            jnp.array([1.0, 2.5, 3.0]),
            r"values differ at 1 of 3 positions; first at index \(1,\): got 2.0, expected 2.5",
        ),
        ([1, 2], (1, 2), "got a list, expected a tuple"),
        ([1, 2], [1, 2, 3], "got 2 items, expected 3"),
        ({"a": 1}, {"a": 2}, r"\['a'\]: got 1, expected 2"),
        (3, jnp.zeros(()), "got a int, expected an array"),
    ],
)
def test_wrong_answers_say_what_differs(got, expected, message, raising):
    with pytest.raises(ExerciseFailed, match=message):
        ah.check("t.6", got, expected=expected, hint="look again")
    with pytest.raises(ExerciseFailed, match="Hint: look again"):
        ah.check("t.6", got, expected=expected, hint="look again")


def test_tolerances_and_dtype_switch(raising):
    assert ah.check("t.7", jnp.float32(1.0 + 1e-7), expected=np.float32(1.0)).solved
    assert ah.check(
        "t.7", jnp.arange(3), expected=np.arange(3, dtype=np.int64), check_dtype=False
    ).solved
    with pytest.raises(ExerciseFailed):
        ah.check("t.7", jnp.float32(1.1), expected=np.float32(1.0), rtol=0.01, atol=0)


def test_sharding_is_compared_when_asked(raising):
    mesh = ah.make_mesh(("x",))
    x = jnp.arange(16.0)
    rows = jax.device_put(x, NamedSharding(mesh, P("x")))
    replicated = jax.device_put(x, NamedSharding(mesh, P()))
    assert ah.check("t.8", rows, expected=rows).solved
    assert ah.check("t.8", replicated, expected=rows).solved  # values only by default
    with pytest.raises(
        ExerciseFailed,
        match=r"sharding differs: got NamedSharding\((P|PartitionSpec)\(\)(, memory_kind=\w+)?\), "
        r"expected NamedSharding\((P|PartitionSpec)\('x',?\)(, memory_kind=\w+)?\)",
    ):
        ah.check("t.8", replicated, expected=rows, check_sharding=True)


def test_custom_compare(raising):
    assert ah.check(
        "t.9", 4, expected=None, compare=lambda g, e: [] if g % 2 == 0 else ["odd"]
    ).solved
    with pytest.raises(ExerciseFailed, match="odd"):
        ah.check("t.9", 3, expected=None, compare=lambda g, e: [] if g % 2 == 0 else ["odd"])


def test_assert_matches_and_differences():
    ah.assert_matches({"w": jnp.ones(2)}, {"w": np.ones(2, np.float32)})
    assert ah.differences(jnp.ones(2), np.ones(2, np.float32)) == []
    with pytest.raises(AssertionError, match="values differ"):
        ah.assert_matches(jnp.ones(2), np.zeros(2, np.float32))


def test_a_route_checks_own_call_with_an_equal_small_int_is_not_the_cases():
    """03.3's route check calls the answer with its own hidden n; when that n equals the case's
    (3 is 3 for small ints) its result, computed under the check's swap, is not the case's."""

    def hidden_n(fn, args, kwargs):
        fn(3)  # the check's own call, whose result differs on purpose
        return []

    calls = []

    def answer(n):
        calls.append(n)
        return n if len(calls) > 1 else 7  # the route check's call comes first

    assert ah.check("t.i", answer, args=(3,), expected=3, route=[hidden_n]).solved
