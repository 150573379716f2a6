"""Route checks see how an answer computes: the lesson's primitives, collectives, compiles, donation."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import aurora_helpers as ah
from aurora_helpers.compiled.jaxpr_inspect import computed_outside, reduced_operands


@pytest.fixture(scope="module")
def ring():
    n = min(4, len(jax.devices()))
    mesh = jax.make_mesh((n,), ("i",))
    x = jax.device_put(jnp.arange(8.0 * n).reshape(2 * n, 4), NamedSharding(mesh, P("i")))
    return mesh, x


def _psum_mean(mesh):
    def f(a):
        def local(b):
            return jax.lax.psum(b.sum(0), "i") / (b.shape[0] * jax.lax.axis_size("i"))

        return jax.shard_map(local, mesh=mesh, in_specs=P("i"), out_specs=P())(a)

    return f


def test_uses_and_avoids(ring):
    mesh, x = ring
    good, shortcut = _psum_mean(mesh), (lambda a: jnp.mean(a, 0))
    assert ah.uses("shard_map", "psum")(good, (x,), {}) == []
    problems = ah.uses("shard_map", "psum", why="sum across devices")(shortcut, (x,), {})
    assert problems and "shard_map, psum" in problems[0] and "sum across devices" in problems[0]
    assert ah.avoids("while")(good, (x,), {}) == []
    loop = lambda a: jax.lax.fori_loop(0, a.shape[0], lambda i, c: c + a[i], jnp.zeros(4))  # noqa: E731
    plain = jnp.ones((3, 4))
    assert ah.avoids("loop")(loop, (plain,), {})
    assert ah.uses("loop")(loop, (plain,), {}) == []


def test_uses_follows_the_data(ring):
    """A collective called and thrown away, or reducing something the result ignores, is idle."""
    mesh, x = ring
    good = _psum_mean(mesh)

    def beside(a):
        good(a)  # the lesson's route, its result unused
        return jnp.mean(a, 0)

    def idle_inside(a):
        def local(b):
            jax.lax.psum(b, "i")  # inside shard_map, thrown away
            return b.sum(0, keepdims=True)

        parts = jax.shard_map(local, mesh=mesh, in_specs=P("i"), out_specs=P("i"))(a)
        return parts.sum(0) / a.shape[0]

    assert ah.uses("shard_map", "psum")(good, (x,), {}) == []
    problems = ah.uses("shard_map", "psum")(beside, (x,), {})
    assert problems and "shard_map, psum" in problems[0]
    problems = ah.uses("shard_map", "psum")(idle_inside, (x,), {})
    assert problems and "psum" in problems[0] and "shard_map," not in problems[0]
    assert ah.avoids("psum")(beside, (x,), {}) == []  # what XLA drops is not held against it


def test_reduces_own_blocks_looks_at_what_enters_the_collective(ring):
    mesh, x = ring
    n = mesh.shape["i"]

    def per_device(body, spec=None):
        spec = P("i") if spec is None else spec
        return lambda a: jax.shard_map(body, mesh=mesh, in_specs=spec, out_specs=P())(a)

    def nested(block):  # the reduction inside a jit and after a loop still counts
        s = jax.lax.fori_loop(0, 2, lambda i, c: c, jax.jit(lambda b: b.sum(0))(block))
        return jax.jit(lambda t: jax.lax.psum(t, "i"))(s)

    def global_mean_first(a):
        return per_device(lambda m: jax.lax.psum(m, "i") / n, P())(jnp.mean(a, 0))

    gathered = per_device(
        lambda b: jax.lax.psum(jax.lax.all_gather(b, "i", tiled=True).mean(0), "i") / n
    )
    check = ah.reduces_own_blocks("i", why="each device reduces its own rows")
    assert check(_psum_mean(mesh), (x,), {}) == []
    assert check(per_device(nested), (x,), {}) == []
    for lazy in (global_mean_first, gathered):
        problems = check(lazy, (x,), {})
        assert problems and "already the same on every device" in problems[0], lazy
        assert "each device reduces its own rows" in problems[0]
    assert [r.from_blocks for r in reduced_operands(global_mean_first, x)] == [False]
    problems = check(lambda a: jnp.mean(a, 0), (x,), {})
    assert problems and "reduction over 'i'" in problems[0]


def test_computes_per_device_follows_the_arguments_outside_shard_map(ring):
    mesh, x = ring
    n = mesh.shape["i"]
    check = ah.computes_per_device(why="each device reduces its own rows")
    sm = _psum_mean(mesh)
    placed = jax.jit(lambda a: sm(jax.reshard(a, NamedSharding(mesh, P("i")))))  # not computing
    assert check(sm, (x,), {}) == [] and check(placed, (x,), {}) == []
    assert check(lambda a: sm(a) * 2.0, (x,), {}) == []  # what is done to its result is fine
    assert computed_outside(sm, x) == []

    def mixed(a):  # a global mean, its value carried past a shard_map that is used
        return jnp.mean(a, 0) + 0 * sm(a)

    def fed(a):  # a global mean fed into a shard_map beside the blocks
        body = lambda b, m: jax.lax.psum(b.sum(0) * 0 + m / n, "i")  # noqa: E731
        return jax.shard_map(body, mesh=mesh, in_specs=(P("i"), P()), out_specs=P())(
            a, jnp.mean(a, 0)
        )

    for lazy in (mixed, fed, jax.jit(mixed)):
        problems = check(lazy, (x,), {})
        assert problems and "outside shard_map" in problems[0], lazy
        assert "each device reduces its own rows" in problems[0]
    assert "reduce_sum" in computed_outside(mixed, x)

    def thrown_away(a):  # work outside whose result is unused does not count
        jnp.mean(a, 0)
        return sm(a)

    assert check(thrown_away, (x,), {}) == []


def test_a_numpy_detour_cannot_be_traced(ring):
    _, x = ring
    problems = ah.uses("psum")(lambda a: np.asarray(a).mean(0), (x,), {})
    assert problems and "cannot trace" in problems[0]


def test_compiled_collectives(ring):
    mesh, x = ring
    n = mesh.shape["i"]
    want = {"all-reduce": 1} if n > 1 else {}
    assert ah.compiled_collectives(want)(_psum_mean(mesh), (x,), {}) == []
    if n > 1:
        problems = ah.compiled_collectives({"all-gather": 1})(_psum_mean(mesh), (x,), {})
        assert "1 all-reduce" in problems[0] and "expects 1 all-gather" in problems[0]


def test_compiles_once():
    stable = jax.jit(lambda a: a * 2)
    assert ah.compiles_once()(stable, (jnp.ones(3),), {}) == []

    def rejits(a):
        return jax.jit(lambda b: b * 2)(a)  # a new function object each call: a new compile

    assert ah.compiles_once()(rejits, (jnp.ones(3),), {})
    with pytest.raises(ValueError):
        ah.compiles_once(calls=1)


def test_jitted():
    f = jax.jit(lambda a: a + 1, donate_argnums=0)
    assert ah.jitted()(f, (jnp.ones(3),), {}) == []
    assert ah.jitted()(lambda a: a + 1, (jnp.ones(3),), {})


def test_returns_sharding(ring):
    mesh, x = ring
    assert ah.returns_sharding(P("i"), mesh)(lambda a: a * 2, (x,), {}) == []
    problems = ah.returns_sharding(P("i"), mesh)(lambda a: np.asarray(a), (x,), {})
    assert "not a jax.Array" in problems[0]
    if mesh.shape["i"] > 1:
        replicated = lambda a: jax.device_put(a, NamedSharding(mesh, P()))  # noqa: E731
        assert ah.returns_sharding(P("i"), mesh)(replicated, (x,), {})
    with pytest.raises(ValueError):
        ah.returns_sharding(P("i"))


def test_check_with_route_end_to_end(ring):
    mesh, x = ring
    expected = np.asarray(x).mean(0)
    route = [ah.uses("shard_map", "psum")]
    assert ah.check("r.1", _psum_mean(mesh), args=(x,), expected=expected, route=route).solved
    wrong = ah.check("r.1", lambda a: jnp.mean(a, 0), args=(x,), expected=expected, route=route)
    assert wrong.wrong and "shard_map" in wrong.detail


def _switching(x):
    """A lazy answer: NumPy's right cumulative sum on concrete inputs; traced, the taught
    primitive, but only where the inputs shown are small (wrong on larger ones)."""
    try:
        return jnp.asarray(np.cumsum(np.asarray(x)), dtype=x.dtype)
    except jax.errors.TracerArrayConversionError:
        return jax.lax.cumsum(x) if x.shape[0] < 5 else x


def _cumsum_check(answer, route):
    small, large = jnp.arange(3.0), jnp.arange(8.0)
    case = ah.Case((large,), jnp.cumsum(large), "n = 8")
    return ah.check("90.1", answer, jnp.cumsum(small), args=(small,), cases=[case], route=route)


def test_values_come_from_the_trace_the_route_checks_read():
    """With a route check that reads the traced program, every value comes from that program: an
    answer cannot show NumPy's values to the cases and JAX's route to the route check."""
    result = _cumsum_check(_switching, [ah.uses("cumsum")])
    assert result.wrong and "tries NumPy on its arrays first" in result.detail, result
    assert _cumsum_check(jax.lax.cumsum, [ah.uses("cumsum")]).solved
    assert _cumsum_check(lambda x: jnp.cumsum(x), [ah.uses("cumsum")]).solved  # the jnp spelling


def test_without_a_tracing_route_the_answer_is_called_as_it_is():
    """Route checks that call the answer (compiles, donation, ...) see the real function, and an
    answer JAX cannot trace still gets its values (the tracing route then says why it fails)."""
    assert _cumsum_check(_switching, []).solved  # nothing reads a trace: plain calls
    numpy_only = lambda x: jnp.asarray(np.cumsum(np.asarray(x)), dtype=x.dtype)  # noqa: E731
    result = _cumsum_check(numpy_only, [ah.uses("cumsum")])
    assert result.wrong and "cannot be traced" in result.detail
    assert "values differ" not in result.detail  # its values were right, called as it is


def test_a_result_computed_by_a_host_callback_is_wrong_where_the_check_reads_the_trace():
    def on_host(x):
        host = jax.pure_callback(lambda a: np.cumsum(a).astype(a.dtype), x, x)
        return jax.lax.cumsum(x) * 0 + host  # the taught primitive present, the host's values

    result = _cumsum_check(on_host, [ah.uses("cumsum")])
    assert result.wrong and "pure_callback" in result.detail, result

    def printing(x):
        jax.debug.print("trial {x}", x=x)  # a trial print feeds no result
        return jax.lax.cumsum(x)

    assert _cumsum_check(printing, [ah.uses("cumsum")]).solved


def _numpy_unless_small(x):
    """Lazy: the taught primitive for the shape shown, NumPy for the hidden case."""
    if x.shape == (3,):
        return jnp.cumsum(x)
    return np.cumsum(np.asarray(x))


def _first_call_only(x, seen=[]):  # noqa: B006 - the lazy answer keeps state on purpose
    seen.append(1)
    return jnp.cumsum(x) if len(seen) == 1 else np.cumsum(np.asarray(x))


def _matmul_when_hidden(x):
    if x.shape == (3,):
        return jnp.cumsum(x)
    return jnp.tril(jnp.ones((x.shape[0], x.shape[0]), x.dtype)) @ x


def _callback_when_hidden(x):
    if x.shape == (3,):
        return jnp.cumsum(x)
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.pure_callback(lambda v: np.cumsum(v).astype(v.dtype), shape, x)


def _host_buffer(x):
    """Lazy: the host fills a buffer the program reads (a debug callback feeds no result)."""
    buf = np.zeros(x.shape, np.float32)
    jax.debug.callback(lambda v: np.copyto(buf, np.cumsum(v)), x)
    return buf + 0 * jnp.cumsum(x)


@pytest.mark.parametrize(
    ("answer", "route"),
    [
        (_numpy_unless_small, [ah.uses("cumsum")]),
        (_first_call_only, [ah.uses("cumsum")]),
        (_matmul_when_hidden, [ah.uses("cumsum"), ah.avoids("dot_general")]),
        (_callback_when_hidden, [ah.uses("cumsum")]),
        (_host_buffer, [ah.uses("cumsum")]),
    ],
    ids=[
        "numpy-for-hidden-cases",
        "first-call-only",
        "route-per-shape",
        "callback-hidden",
        "host-buffer",
    ],
)
def test_every_case_is_its_own_program_and_each_is_checked(answer, route):
    """Each case's value comes from its own trace, and the route checks and the refusal of host
    callbacks read every case's program, not the first one's alone."""
    assert _cumsum_check(answer, route).wrong


def test_array_keyword_arguments_are_traced_too():
    def lazy(x, *, w):
        return jnp.asarray(np.cumsum(np.asarray(w))) + 0 * jnp.cumsum(x)

    small = jnp.arange(3.0)
    result = ah.check(
        "90.1", lazy, jnp.cumsum(small), kwargs={"w": small}, route=[ah.uses("cumsum")]
    )
    assert result.wrong
