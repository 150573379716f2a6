from fractions import Fraction

import jax
import jax.numpy as jnp
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import aurora_helpers as ah


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
