from fractions import Fraction

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import aurora_helpers as ah
from aurora_helpers.compiled.comm_costs import CollectiveCost


@pytest.fixture(scope="module")
def mesh():
    return ah.make_mesh(("data", "model"), (4, 2))


@pytest.mark.parametrize(
    ("kind", "sent", "steps"),
    [
        ("all-gather", 7 * 1024 // 8, 7),
        ("reduce_scatter", 7 * 1024 // 8, 7),
        ("all-reduce", 2 * 7 * 1024 // 8, 14),
        ("all-to-all", 7 * 1024 // 8, 7),
        ("collective-permute", 1024, 1),
    ],
)
def test_ring_costs_on_eight_devices(kind, sent, steps):
    cost = ah.collective_cost(kind, 1024, 8)
    assert cost.sent == cost.received == sent
    assert cost.steps == steps and cost.devices == 8 and cost.nbytes == 1024
    assert cost.kind == kind.replace("_", "-")


def test_one_device_costs_nothing_and_uneven_sizes_stay_exact():
    assert ah.collective_cost("all-reduce", 4096, 1).sent == 0
    assert ah.collective_cost("all-reduce", 4096, 1).steps == 0
    assert ah.collective_cost("all-reduce", 4, 8).sent == Fraction(7, 1)
    assert ah.collective_cost("all-gather", 4, 3).sent == Fraction(8, 3)


def test_bad_arguments_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="unknown collective"):
        ah.collective_cost("broadcast", 8, 2)
    with pytest.raises(ValueError, match="at least one device"):
        ah.collective_cost("all-reduce", 8, 0)
    with pytest.raises(ValueError, match=">= 0"):
        ah.collective_cost("all-reduce", -1, 2)
    with pytest.raises(ValueError, match="bandwidth"):
        ah.collective_cost("all-reduce", 8, 2).seconds(1e-6, 0)


def test_alpha_beta_time():
    cost = ah.collective_cost("all-reduce", 8000, 4)  # sends 12000 B in 6 steps
    assert cost.seconds(1e-6, 1e9) == pytest.approx(6e-6 + 12000 / 1e9)
    total = ah.traffic([cost, ah.collective_cost("all-gather", 8000, 4)])
    assert total.sent == 12000 + 6000
    assert total.seconds(1e-6, 1e9) == pytest.approx(6e-6 + 3e-6 + 18000 / 1e9)
    assert total.by_kind() == {"all-reduce": 12000, "all-gather": 6000}
    assert "18,000.0 bytes" in str(total) and str(ah.traffic([])) == "no bytes sent"


def _put(mesh, shape, spec):
    return jax.device_put(jnp.ones(shape, jnp.float32), NamedSharding(mesh, spec))


def test_compiled_all_reduce_matches_the_prediction(mesh):
    x = _put(mesh, (16, 8), P("data", "model"))
    got = ah.compiled_traffic(lambda a: a.sum(axis=1), x)  # all-reduce of (4,) blocks over model
    assert got.sent == ah.collective_cost("all-reduce", 4 * 4, 2).sent == 16
    assert [c.kind for c in got.costs] == ["all-reduce"]


def test_compiled_gather_and_scatter_match_the_prediction(mesh):
    x = _put(mesh, (16, 8), P(("data", "model")))

    def gather_then_scatter(b):
        full = jax.lax.all_gather(b, ("data", "model"), axis=0, tiled=True)
        return jax.lax.psum_scatter(full * 2, ("data", "model"), scatter_dimension=0, tiled=True)

    f = jax.jit(
        jax.shard_map(
            gather_then_scatter,
            mesh=mesh,
            in_specs=P(("data", "model")),
            out_specs=P(("data", "model")),
        )
    )
    counts = ah.count_collectives(f, x)
    got = ah.compiled_traffic(counts)  # a CollectiveCounts is accepted as it is
    full = 16 * 8 * 4
    want = ah.traffic(
        [ah.collective_cost("all-gather", full, 8), ah.collective_cost("reduce-scatter", full, 8)]
    )
    assert got.sent == want.sent == 2 * 7 * full // 8
    assert got.by_kind() == want.by_kind()
    (scatter,) = counts.of_kind("reduce-scatter")
    assert scatter.result_bytes == full // 8 and scatter.group_size == 8


def test_compiled_permute_costs_its_block(mesh):
    x = _put(mesh, (16, 8), P(("data", "model")))
    pairs = [(k, (k + 1) % 8) for k in range(8)]
    f = jax.jit(
        jax.shard_map(
            lambda b: jax.lax.ppermute(b, ("data", "model"), pairs),
            mesh=mesh,
            in_specs=P(("data", "model")),
            out_specs=P(("data", "model")),
        )
    )
    got = ah.compiled_traffic(f, x)
    assert got.sent == 2 * 8 * 4 and got.by_kind() == {"collective-permute": 64}


def test_no_communication_reads_as_zero(mesh):
    x = _put(mesh, (16, 8), P("data", "model"))
    assert ah.compiled_traffic(lambda a: a * 2, x).sent == 0


# --- topologies ------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ah.COLLECTIVE_KINDS)
def test_the_default_is_the_switch_and_keeps_the_original_numbers(kind):
    default = ah.collective_cost(kind, 1000, 8)
    assert default == ah.collective_cost(kind, 1000, 8, topology="switch")
    assert default.topology == "switch" and default.link_bytes == default.sent
    assert default.seconds(1e-6, 1e9) == pytest.approx(default.steps * 1e-6 + default.sent / 1e9)
    # A cost made without link bytes (positionally, as before topologies) reads them as sent.
    legacy = CollectiveCost(kind, 1000, 8, default.sent, default.steps)
    assert legacy.link_bytes == default.sent and legacy.topology == "switch"


def test_topologies_change_links_and_steps_never_what_a_device_sends():
    for kind in ah.COLLECTIVE_KINDS:
        switch = ah.collective_cost(kind, 4096, 8)
        for topology in ah.TOPOLOGIES:
            cost = ah.collective_cost(kind, 4096, 8, topology=topology)
            assert cost.sent == switch.sent and cost.topology == topology
    torus = ah.collective_cost("all-gather", 4096, 8, topology="torus")
    assert torus.topology == "bidirectional-ring" and torus.steps == 4
    assert torus.link_bytes == 4096 // 2  # half the array each way, not 7/8 of it
    ring_swap = ah.collective_cost("all-to-all", 4096, 8, topology="ring")
    assert ring_swap.link_bytes == Fraction(7, 2) * 4096  # forwarded: (n - 1) / 2 operands
    assert ah.collective_cost("all-to-all", 4096, 1, topology="ring").link_bytes == 0
    with pytest.raises(ValueError, match="unknown topology"):
        ah.collective_cost("all-gather", 8, 2, topology="hypercube")


def test_latency_and_bandwidth_combine_as_a_sum_or_the_books_max():
    cost = ah.collective_cost("all-gather", 4000, 4, topology="line")  # 3000 B on a link, 3 hops
    assert cost.seconds(1e-6, 1e9) == pytest.approx(3e-6 + 3e-6)
    assert cost.seconds(2e-6, 1e9, combine="max") == pytest.approx(6e-6)
    assert cost.seconds(1e-7, 1e9, combine="max") == pytest.approx(3e-6)
    total = ah.traffic([cost, cost])
    assert total.seconds(2e-6, 1e9, combine="max") == pytest.approx(12e-6)
    assert total.link_bytes == 6000
    with pytest.raises(ValueError, match="combine"):
        cost.seconds(1e-6, 1e9, combine="min")


# --- comparison by kind and group --------------------------------------------------------------


def test_by_group_tells_apart_what_equal_sent_bytes_hide():
    reduce_4 = ah.traffic([ah.collective_cost("all-reduce", 4, 8)])
    gather_8 = ah.traffic([ah.collective_cost("all-gather", 8, 8)])
    assert reduce_4.sent == gather_8.sent == 7  # the old total cannot tell them apart
    assert reduce_4.by_group() == {("all-reduce", 8): 4}
    assert gather_8.by_group() == {("all-gather", 8): 8}
    comparison = ah.compare_traffic(reduce_4, gather_8)
    assert not comparison.matches
    assert comparison.mismatches == (
        "all-reduce over groups of 8: predicted 4 B in 1 op(s), compiled 0 B in 0 op(s)",
        "all-gather over groups of 8: predicted 0 B in 0 op(s), compiled 8 B in 1 op(s)",
    )
    assert "NO" in str(comparison) and "<table>" in comparison._repr_html_()
    # Group sizes count too: the same all-reduce over 4 devices is another key.
    over_4 = ah.traffic([ah.collective_cost("all-reduce", 4, 4)])
    assert not ah.compare_traffic(reduce_4, over_4).matches


def test_by_group_adds_up_what_a_combiner_merges():
    two = [ah.collective_cost("all-reduce", 16, 4), ah.collective_cost("all-reduce", 48, 4)]
    one = ah.traffic([ah.collective_cost("all-reduce", 64, 4)])
    comparison = ah.compare_traffic(two, one)  # plain costs are accepted as the prediction
    assert comparison.matches and comparison.mismatches == ()
    (row,) = comparison.rows
    assert (row.predicted_ops, row.compiled_ops) == (2, 1)
    assert "prediction = compiled" in str(comparison)
    # A permute's group is its pair, whatever devices the prediction gave.
    ring = ah.traffic([ah.collective_cost("collective-permute", 32, 8)])
    assert ring.by_group() == {("collective-permute", 2): 32}
    nothing = ah.compare_traffic([], ah.traffic([ah.collective_cost("all-reduce", 64, 1)]))
    assert nothing.matches and str(nothing) == "neither side moves data"


def test_compiled_program_compared_per_kind_and_group(mesh):
    x = _put(mesh, (16, 8), P("data", "model"))

    def two_sums(a):  # one all-reduce over "model" (groups of 2), one over "data" (groups of 4)
        return a.sum(axis=1), a.sum(axis=0)

    compiled = ah.compiled_traffic(two_sums, x)
    right = [ah.collective_cost("all-reduce", 4 * 4, 2), ah.collective_cost("all-reduce", 4 * 4, 4)]
    assert ah.compare_traffic(right, compiled).matches, ah.compare_traffic(right, compiled)
    swapped = [ah.collective_cost("all-reduce", 16, 4), ah.collective_cost("all-reduce", 16, 2)]
    assert ah.compare_traffic(swapped, compiled).matches  # same groups, same sizes
    wrong_groups = [ah.collective_cost("all-reduce", 32, 8)]
    assert not ah.compare_traffic(wrong_groups, compiled).matches


# --- loops --------------------------------------------------------------------------------------


def _scan_of_psums(mesh, length):
    def body(b):
        def step(carry, _):
            return carry + jax.lax.psum(carry, "i"), None

        return jax.lax.scan(step, b, None, length=length)[0]

    return jax.jit(jax.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=P("i")))


def test_compiled_traffic_per_execution_counts_every_iteration():
    line = ah.make_mesh("i", (8,))
    x = jax.device_put(jnp.ones(16, jnp.float32), NamedSharding(line, P("i")))
    counts = ah.count_collectives(_scan_of_psums(line, 5), x)
    once = ah.compiled_traffic(counts)
    every = ah.compiled_traffic(counts, per_execution=True)
    one_psum = ah.collective_cost("all-reduce", 2 * 4, 8)
    assert once.sent == one_psum.sent and every.sent == 5 * one_psum.sent
    assert every.by_group() == {("all-reduce", 8): 5 * 8}
    assert ah.compare_traffic([one_psum] * 5, every).matches

    def until_large(b):
        return jax.lax.while_loop(lambda c: c[0] < 100.0, lambda c: c + jax.lax.psum(c, "i"), b)

    unknown = jax.jit(jax.shard_map(until_large, mesh=line, in_specs=P("i"), out_specs=P("i")))
    assert ah.compiled_traffic(unknown, x).sent == one_psum.sent  # static: one instruction
    with pytest.raises(ValueError, match="trip count"):
        ah.compiled_traffic(unknown, x, per_execution=True)


# --- the byte formulas, checked independently: hand-written rings of ppermute -------------------


@pytest.fixture(scope="module")
def line8():
    return ah.make_mesh("i", (8,))


@pytest.fixture(scope="module")
def line4():
    return ah.make_mesh("i", (4,), devices=jax.devices()[:4])


def _busiest(counts, per_execution=False):
    return max(counts.permute_link_bytes(per_execution=per_execution).values())


def _by_hand(mesh, f, x):
    """``f`` in shard_map over the mesh's one axis, compiled once for ``x`` (run it and read its
    collectives from the same compiled program)."""
    return (
        jax.jit(jax.shard_map(f, mesh=mesh, in_specs=P("i"), out_specs=P("i"))).lower(x).compile()
    )


def _right(n):
    return [(j, (j + 1) % n) for j in range(n)]


def _left(n):
    return [(j, (j - 1) % n) for j in range(n)]


def test_a_one_way_ring_all_gather_carries_the_models_link_bytes(line8):
    n, m = 8, 3

    def ring_gather(block):  # block: (m,); returns (1, n * m), every row the whole array
        k = jax.lax.axis_index("i")
        out = jnp.zeros((n, m), block.dtype).at[k].set(block)
        piece = block
        for step in range(1, n):
            piece = jax.lax.ppermute(piece, "i", _right(n))
            out = out.at[(k - step) % n].set(piece)
        return out.reshape(1, n * m)

    x_np = np.arange(n * m, dtype=np.float32)
    x = jax.device_put(x_np, NamedSharding(line8, P("i")))
    program = _by_hand(line8, ring_gather, x)
    np.testing.assert_array_equal(np.asarray(program(x)), np.tile(x_np, (n, 1)))
    counts = ah.count_collectives(program)
    model = ah.collective_cost("all-gather", n * m * 4, n, topology="ring")
    assert _busiest(counts) == model.link_bytes == ah.compiled_traffic(counts).sent
    assert counts["collective-permute"] == model.steps


def test_a_bidirectional_ring_all_gather_carries_half_the_array_per_link(line8):
    n, m = 8, 3

    def both_ways(block):
        k = jax.lax.axis_index("i")
        out = jnp.zeros((n, m), block.dtype).at[k].set(block)
        to_right = to_left = block
        for step in range(1, n // 2 + 1):
            to_right = jax.lax.ppermute(to_right, "i", _right(n))
            out = out.at[(k - step) % n].set(to_right)
            if step <= (n - 1) // 2:
                to_left = jax.lax.ppermute(to_left, "i", _left(n))
                out = out.at[(k + step) % n].set(to_left)
        return out.reshape(1, n * m)

    x_np = np.arange(n * m, dtype=np.float32)
    x = jax.device_put(x_np, NamedSharding(line8, P("i")))
    program = _by_hand(line8, both_ways, x)
    np.testing.assert_array_equal(np.asarray(program(x)), np.tile(x_np, (n, 1)))
    model = ah.collective_cost("all-gather", n * m * 4, n, topology="bidirectional-ring")
    assert _busiest(ah.count_collectives(program)) == model.link_bytes == n * m * 4 // 2


def test_a_forwarding_ring_all_to_all_carries_half_of_n_minus_one_operands(line4):
    n, c = 4, 2

    def ring_all_to_all(x):  # x: (n, c), chunk j for device j
        k = jax.lax.axis_index("i")
        in_order = x[(k + jnp.arange(n)) % n]  # by distance: in_order[d] is for device k + d
        out = jnp.zeros_like(x).at[k].set(in_order[0])
        travelling = in_order[1:]
        for step in range(1, n):
            travelling = jax.lax.ppermute(travelling, "i", _right(n))  # from device k - step
            out = out.at[(k - step) % n].set(travelling[0])
            travelling = travelling[1:]
        return out

    x = jax.device_put(
        np.arange(n * n * c, dtype=np.float32).reshape(n * n, c), NamedSharding(line4, P("i"))
    )
    program = _by_hand(line4, ring_all_to_all, x)
    built_in = _by_hand(line4, lambda b: jax.lax.all_to_all(b, "i", 0, 0, tiled=True), x)
    np.testing.assert_array_equal(np.asarray(program(x)), np.asarray(built_in(x)))
    operand = n * c * 4  # one device's operand
    ring = ah.collective_cost("all-to-all", operand, n, topology="ring")
    assert _busiest(ah.count_collectives(program)) == ring.link_bytes
    assert ring.link_bytes == Fraction(n - 1, 2) * operand  # not the switch's (n - 1) / n
    assert ah.compiled_traffic(built_in).sent == ah.collective_cost("all-to-all", operand, n).sent


def test_a_ring_all_reduce_by_hand_sends_what_the_all_reduce_formula_says(line8):
    n, c = 8, 4

    def ring_all_reduce(chunks):  # chunks: (n, c), returns the sum over devices, same shape
        k = jax.lax.axis_index("i")
        running = chunks[k]
        for step in range(1, n):  # reduce-scatter
            running = jax.lax.ppermute(running, "i", _right(n)) + chunks[(k - step) % n]
        out = jnp.zeros_like(chunks).at[(k + 1) % n].set(running)
        piece = running
        for step in range(1, n):  # all-gather
            piece = jax.lax.ppermute(piece, "i", _right(n))
            out = out.at[(k + 1 - step) % n].set(piece)
        return out

    x_np = np.random.default_rng(0).normal(size=(n * n, c)).astype(np.float32)
    x = jax.device_put(x_np, NamedSharding(line8, P("i")))
    program = _by_hand(line8, ring_all_reduce, x)
    got = np.asarray(program(x))
    np.testing.assert_allclose(got, np.tile(x_np.reshape(n, n, c).sum(0), (n, 1)), rtol=1e-5)
    counts = ah.count_collectives(program)
    full = n * c * 4
    for topology in ("ring", "switch"):
        model = ah.collective_cost("all-reduce", full, n, topology=topology)
        assert _busiest(counts) == model.link_bytes == model.sent
        assert counts["collective-permute"] == model.steps


def test_a_rolled_ring_counts_its_permutes_once_per_iteration(line8):
    n, m = 8, 3

    def rolled_gather(block):
        k = jax.lax.axis_index("i")

        def step(s, state):
            out, piece = state
            piece = jax.lax.ppermute(piece, "i", _right(n))
            return out.at[(k - s) % n].set(piece), piece

        out = jnp.zeros((n, m), block.dtype).at[k].set(block)
        return jax.lax.fori_loop(1, n, step, (out, block))[0].reshape(1, n * m)

    x_np = np.arange(n * m, dtype=np.float32)
    x = jax.device_put(x_np, NamedSharding(line8, P("i")))
    program = _by_hand(line8, rolled_gather, x)
    np.testing.assert_array_equal(np.asarray(program(x)), np.tile(x_np, (n, 1)))
    counts = ah.count_collectives(program)
    assert counts["collective-permute"] == 1 and counts.executed("collective-permute") == n - 1
    model = ah.collective_cost("all-gather", n * m * 4, n, topology="ring")
    assert _busiest(counts) == m * 4  # the instruction, once
    assert _busiest(counts, per_execution=True) == model.link_bytes


def test_whole_float_bytes_are_accepted_and_fractions_explained():
    """Counts written with / (a float that is whole) cost the same; a fractional one says how to
    fix it instead of failing inside the arithmetic (a 09 learner's honest answer)."""
    assert ah.collective_cost("all-gather", 4096 / 2, 4) == ah.collective_cost(
        "all-gather", 2048, 4
    )
    with pytest.raises(ValueError, match=r"whole number.*use //"):
        ah.collective_cost("all-gather", 4096 / 3, 4)
