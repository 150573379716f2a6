import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import aurora_helpers as ah


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


def test_other_errors_in_the_answer_propagate():
    with pytest.raises(ZeroDivisionError):
        ah.check("t.5", lambda: 1 / 0, expected=1)


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
        ([1, 2], (1, 2), "structure differs"),
        ({"a": 1}, {"a": 2}, "got 1, expected 2"),
        (3, jnp.zeros(()), "got a int, expected an array"),
    ],
)
def test_wrong_answers_say_what_differs(got, expected, message):
    with pytest.raises(ah.ExerciseFailed, match=message):
        ah.check("t.6", got, expected=expected, hint="look again")
    with pytest.raises(ah.ExerciseFailed, match="Hint: look again"):
        ah.check("t.6", got, expected=expected, hint="look again")


def test_tolerances_and_dtype_switch():
    assert ah.check("t.7", jnp.float32(1.0 + 1e-7), expected=np.float32(1.0)).solved
    assert ah.check(
        "t.7", jnp.arange(3), expected=np.arange(3, dtype=np.int64), check_dtype=False
    ).solved
    with pytest.raises(ah.ExerciseFailed):
        ah.check("t.7", jnp.float32(1.1), expected=np.float32(1.0), rtol=0.01, atol=0)


def test_sharding_is_compared_when_asked():
    mesh = ah.make_mesh(("x",))
    x = jnp.arange(16.0)
    rows = jax.device_put(x, NamedSharding(mesh, P("x")))
    replicated = jax.device_put(x, NamedSharding(mesh, P()))
    assert ah.check("t.8", rows, expected=rows).solved
    assert ah.check("t.8", replicated, expected=rows).solved  # values only by default
    with pytest.raises(
        ah.ExerciseFailed,
        match=r"sharding differs: got NamedSharding\((P|PartitionSpec)\(\)\), expected NamedSharding\((P|PartitionSpec)\('x',?\)\)",
    ):
        ah.check("t.8", replicated, expected=rows, check_sharding=True)


def test_custom_compare():
    assert ah.check(
        "t.9", 4, expected=None, compare=lambda g, e: [] if g % 2 == 0 else ["odd"]
    ).solved
    with pytest.raises(ah.ExerciseFailed, match="odd"):
        ah.check("t.9", 3, expected=None, compare=lambda g, e: [] if g % 2 == 0 else ["odd"])


def test_assert_matches_and_differences():
    ah.assert_matches({"w": jnp.ones(2)}, {"w": np.ones(2, np.float32)})
    assert ah.differences(jnp.ones(2), np.ones(2, np.float32)) == []
    with pytest.raises(AssertionError, match="values differ"):
        ah.assert_matches(jnp.ones(2), np.zeros(2, np.float32))
