import functools

import jax
import jax.numpy as jnp
import pytest

import aurora_helpers as ah


def _fresh_function():
    """A new function object each time, so no earlier test has compiled it."""

    def scale_rows(x, factor):
        return x * factor

    return scale_rows


def test_counts_first_calls_not_cache_hits():
    f = jax.jit(_fresh_function())
    x = jnp.ones((3, 4))
    with ah.count_compilations(f) as compiled:
        f(x, 2.0).block_until_ready()
        assert compiled.count == 1  # updated live
        f(x, 3.0).block_until_ready()  # same types and shapes: cache hit
        f(x + 1, 2.0).block_until_ready()
    assert compiled.count == 1
    assert compiled.names == ["jit(scale_rows)"]
    assert compiled.seconds[0] > 0 and compiled.total_seconds == pytest.approx(compiled.seconds[0])


def test_new_shapes_dtypes_and_static_values_recompile():
    f = jax.jit(_fresh_function(), static_argnums=1)
    with ah.count_compilations("scale_rows") as compiled:
        f(jnp.ones(3), 2)
        f(jnp.ones(3), 2)
        f(jnp.ones(4), 2)  # new shape
        f(jnp.ones(4, jnp.int32), 2)  # new dtype
        f(jnp.ones(4, jnp.int32), 5)  # new static value
    assert compiled.count == 4
    assert "4 compilations of scale_rows" in str(compiled)


def test_filter_ignores_other_functions_and_none_counts_all():
    f = jax.jit(_fresh_function())

    @jax.jit
    def other(x):
        return x - 1

    with ah.count_compilations(f) as only_f, ah.count_compilations() as everything:
        f(jnp.ones(5), 2.0)
        other(jnp.ones(5))
    assert only_f.count == 1
    assert everything.count >= 2 and {"jit(scale_rows)", "jit(other)"} <= set(everything.names)


def test_listener_is_removed_after_the_block_even_on_error():
    f = jax.jit(_fresh_function())
    with ah.count_compilations(f) as before:
        pass
    with pytest.raises(RuntimeError), ah.count_compilations(f) as failing:
        raise RuntimeError("boom")
    f(jnp.ones(7), 1.0)  # compiles, but outside both blocks
    assert before.count == 0 and failing.count == 0
    assert str(before) == "0 compilations of scale_rows (0.000 s compiling)"


def test_matches_program_names():
    from aurora_helpers.compiled.compiles import _program_name_matches

    assert _program_name_matches("jit(step)", "step")
    assert _program_name_matches("pmap(step)", "step")
    assert _program_name_matches("step", "step")
    assert not _program_name_matches("jit(step2)", "step")
    assert not _program_name_matches("jit(my_step)", "step")


@pytest.mark.parametrize("bad", [42, 1.5, ["f"], jnp.ones(2)])
def test_rejects_things_that_are_not_functions(bad):
    with pytest.raises(TypeError, match="takes a function"), ah.count_compilations(bad):
        pass


def test_rejects_nameless_callables_and_empty_names():
    with (
        pytest.raises(TypeError, match="pass the name"),
        ah.count_compilations(functools.partial(max, 1)),
    ):
        pass
    with pytest.raises(ValueError, match="give the function's name"), ah.count_compilations(""):
        pass
