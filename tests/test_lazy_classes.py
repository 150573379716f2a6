"""Issue 38's classes of lazy answer, one tiny synthetic exercise each: the lazy answer is
rejected, an honest one is accepted. The notebooks' own exercises carry a wrong answer of each
class that applies to them (``tests/notebooks/nb_*.py``); this file pins the mechanism."""

import ast

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

import aurora_helpers as ah
from aurora_helpers.checks.answer_screen import course_names, screen_solution
from aurora_helpers.checks.budgets import calls_counted, largest_array_made

VALUES = jnp.array([3.0, 1.0, 2.0])


def test_1_the_taught_operation_times_zero():
    expected = jnp.cumsum(VALUES)
    honest = ah.check(
        "c.1", jnp.cumsum, expected=expected, args=(VALUES,), route=[ah.uses("cumsum")]
    )
    lazy = ah.check(
        "c.1",
        lambda v: jnp.asarray(np.cumsum(np.asarray([3.0, 1.0, 2.0]))) + 0 * jnp.cumsum(v),
        expected=expected,
        args=(VALUES,),
        route=[ah.uses("cumsum")],
    )
    assert honest.solved and lazy.wrong and "does not change" in lazy.detail


def test_2_an_answer_that_switches_route_when_traced():
    def switching(v):
        try:
            return jnp.asarray(np.cumsum(np.asarray(v)))  # concrete values: NumPy
        except Exception:  # traced: the taught route, for the route check's eyes
            return jnp.cumsum(v)

    result = ah.check(
        "c.2", switching, expected=jnp.cumsum(VALUES), args=(VALUES,), route=[ah.uses("cumsum")]
    )
    assert result.wrong and "tries NumPy on its arrays first" in result.detail
    honest = ah.check(
        "c.2", jnp.cumsum, expected=jnp.cumsum(VALUES), args=(VALUES,), route=[ah.uses("cumsum")]
    )
    assert honest.solved  # JAX's own conversions inside a trace are not the answer's
    course = course_names(["import jax\n"], [])
    asks = "import jax\n\ndef f(x):\n    return x if isinstance(x, jax.core.Tracer) else x + 1\n"
    assert "tracing" in screen_solution(asks, course, {"f"}, "c.2").problems[0]
    wrong_values = lambda v: jnp.cumsum(v) * 2 if isinstance(v, jax.core.Tracer) else np.cumsum(v)  # noqa: E731
    lazy = ah.check(
        "c.2", wrong_values, expected=jnp.cumsum(VALUES), args=(VALUES,), route=[ah.uses("cumsum")]
    )
    assert lazy.wrong  # the values the traced program computes are what is judged


def test_3_a_total_split_across_calls():
    def gather_rows(rows):
        return np.stack(rows)

    def honest(rows):
        return gather_rows(rows)

    def per_row(rows):
        return np.concatenate([gather_rows([r]) for r in rows])

    rows = [np.arange(3.0)] * 4
    assert calls_counted([gather_rows], honest, rows)[1]["gather_rows"] == 1
    assert calls_counted([gather_rows], per_row, rows)[1]["gather_rows"] == 4


def test_4_a_whole_array_built_where_host_memory_budgets_do_not_look():
    index = (slice(2, 4),)
    _, lazy = largest_array_made(lambda i: jnp.arange(64.0)[i], index)
    _, honest = largest_array_made(lambda i: jnp.arange(i[0].start, i[0].stop, dtype=float), index)
    assert lazy.largest_bytes >= 64 * 4 > honest.largest_bytes


def test_5_the_host_doing_the_work_inside_the_taught_construct():
    def host_newton(x):
        root = jax.pure_callback(
            lambda a: np.sqrt(a).astype(np.float32), jax.ShapeDtypeStruct(x.shape, x.dtype), x
        )
        return lax.fori_loop(0, 3, lambda i, r: r * 1.0, root)

    def newton(x):
        return lax.fori_loop(0, 20, lambda i, r: 0.5 * (r + x / r), jnp.ones_like(x))

    x = jnp.array([4.0, 9.0])
    route = [ah.uses("loop")]
    assert ah.check("c.5", newton, expected=jnp.sqrt(x), args=(x,), route=route).solved
    lazy = ah.check("c.5", host_newton, expected=jnp.sqrt(x), args=(x,), route=route)
    assert lazy.wrong and "on the host" in lazy.detail


def model_bytes(n):
    """The notebook's own function, the check's reference."""
    return 4 * n


def test_6_the_checks_own_reference_by_another_path():
    rule = model_bytes
    lazy = ah.check("c.6", lambda n: rule(n), expected=40, args=(10,), off_limits=[model_bytes])
    honest = ah.check("c.6", lambda n: n * 4, expected=40, args=(10,), off_limits=[model_bytes])
    assert lazy.wrong and honest.solved


def test_7_the_default_doing_the_work():
    """A padding index of -1 must be ignored. JAX's default wraps a negative index to the last
    row, so a case with ``-1`` makes the default wrong and the taught dropping necessary (a
    padding index past the end would have been dropped by the default, teaching nothing)."""
    updates = jnp.array([1.0, 2.0, 5.0])
    index = jnp.array([0, 2, -1])  # -1: padding, to be ignored
    cases = [ah.Case((index, updates), jnp.array([1.0, 0.0, 2.0, 0.0]), "padding at -1")]

    def default(i, u):
        return jnp.zeros(4).at[i].add(u)  # wraps -1 to the last row

    def taught(i, u):
        return jnp.zeros(4).at[jnp.where(i < 0, 4, i)].add(u, mode="drop")

    assert ah.check("c.7", default, cases=cases).wrong
    assert ah.check("c.7", taught, cases=cases).solved


def test_8_unseen_cases_drawn_at_check_time():
    """A table of the cases a learner could read off the student copy misses cases drawn now."""
    printed = {3: 6, 4: 10}
    table = lambda n: printed[n]  # noqa: E731
    rng = np.random.default_rng()
    drawn = [int(n) for n in rng.integers(5, 10_000, size=3)]
    cases = [ah.Case((n,), n * (n + 1) // 2, f"n = {n}") for n in drawn]
    assert ah.check("c.8", table, args=(3,), expected=6, cases=cases).wrong
    assert ah.check("c.8", lambda n: n * (n + 1) // 2, args=(3,), expected=6, cases=cases).solved


@pytest.mark.parametrize(
    "switch",
    [
        "with jax.transfer_guard('allow'):",
        "with jax.config.transfer_guard('allow'):",
        "with jax.sharding.use_mesh(None):",
    ],
)
def test_9_the_answer_switches_the_checks_guard_off(switch):
    course = course_names(["import jax\n"], [])
    lazy = f"import jax\n\ndef f(x):\n    {switch}\n        return x\n"
    assert screen_solution(lazy, course, {"f"}, "c.9").problems
    honest = "import jax\n\ndef f(x):\n    return jax.device_put(x)\n"
    assert screen_solution(honest, course, {"f"}, "c.9").problems == []


@pytest.mark.parametrize(
    "start",
    [
        "subprocess.run([sys.executable, '-c', 'print(1)'], capture_output=True)",
        "run([sys.executable, '-c', 'print(1)'], capture_output=True)",
        "os.system('python -c 1')",
    ],
)
def test_another_program_started_only_where_the_lesson_starts_one(start):
    """Work done elsewhere: a child Python computes where no check watches (05.2's XLA counts);
    only 03.3, whose lesson starts a fresh process, may start one."""
    course = course_names(["import os\nimport subprocess\nimport sys\n"], [])
    lazy = f"from subprocess import run\n\ndef f(x):\n    return {start}\n"
    assert any(
        "another program" in p or "processes" in p
        for p in screen_solution(lazy, course, {"f"}, "c.1").problems
    )
    if "os.system" not in start:
        assert screen_solution(lazy, course, {"f"}, "03.3").problems == []


def test_a_comprehensions_own_variable_is_not_a_binding_of_the_cell():
    """A trial print with a list comprehension does not 'rebind' a name the course uses (Python 3
    scopes a comprehension's variable); a walrus inside one does bind in the cell."""
    from aurora_helpers.checks.answer_screen import bindings

    cell = "print([b for b in range(3)])\nz = [(w := c) for c in range(2)]\nf = lambda q: q\n"
    assert set(bindings(ast.parse(cell))) == {"z", "w", "f"}
    course = course_names(["import jax\nb = 3\n"], [])
    honest = "def f(x):\n    return x + 1\n\nprint([f(b) for b in range(3)])\n"
    assert screen_solution(honest, course, {"f"}, "c.1").problems == []
