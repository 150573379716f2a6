import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import aurora_helpers as ah

# The form XLA's GPU backend prints: an asynchronous permute with a dot scheduled in between.
ASYNC = """HloModule m, is_scheduled=true, num_partitions=2

%fused (p0: f32[2,4], p1: f32[4,2]) -> f32[2,2] {
  %p0 = f32[2,4]{1,0} parameter(0)
  %p1 = f32[4,2]{1,0} parameter(1)
  ROOT %d = f32[2,2]{1,0} dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY %main (a: f32[2,4], w: f32[4,2]) -> (f32[2,2], f32[2,2]) {
  %a = f32[2,4]{1,0} parameter(0)
  %w = f32[4,2]{1,0} parameter(1)
  %cp-start = (f32[2,4]{1,0}, f32[2,4]{1,0}) collective-permute-start(%a), channel_id=1, source_target_pairs={{0,1},{1,0}}
  %first = f32[2,2]{1,0} fusion(%a, %w), kind=kCustom, calls=%fused
  %cp-done = f32[2,4]{1,0} collective-permute-done(%cp-start)
  %second = f32[2,2]{1,0} dot(%cp-done, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT %t = (f32[2,2]{1,0}, f32[2,2]{1,0}) tuple(%first, %second)
}
"""


def test_an_asynchronous_pair_and_the_work_between_it():
    program = ah.parse_schedule(ASYNC)
    assert program.scheduled
    (done,) = program.of("collective-permute")  # the -done, not the -start
    assert done.opcode == "collective-permute-done" and done.kind == "collective-permute"
    first, second = program.of("dot")  # the fused dot counts as a dot
    assert first.opcode == "fusion" and "dot" in first.computes
    assert program.depends_on(second, done) and not program.depends_on(first, done)
    assert program.independent(first, done) and not program.independent(second, done)
    ((start, end, between),) = program.in_flight("collective-permute")
    assert (start.name, end.name) == ("cp-start", "cp-done")
    assert [ins.name for ins in between] == ["first"]
    assert program.order(["collective-permute", "dot"]) == (
        "collective-permute-start",
        "dot",
        "collective-permute-done",
        "dot",
    )


def test_text_without_an_entry_is_refused():
    with pytest.raises(ValueError, match="ENTRY"):
        ah.parse_schedule("HloModule m\n")


def test_a_compiled_gather_feeds_its_matmul():
    mesh = ah.make_mesh(("i",), (jax.device_count(),))
    n = jax.device_count()
    x = jax.device_put(np.ones((2 * n, 3), np.float32), NamedSharding(mesh, P("i")))
    w = jnp.ones((3, 5), jnp.float32)

    def f(b, w):
        return jax.lax.all_gather(b, "i", tiled=True) @ w

    shard_mapped = jax.shard_map(
        f, mesh=mesh, in_specs=(P("i"), P()), out_specs=P(), check_vma=False
    )
    program = ah.parse_schedule(jax.jit(shard_mapped).lower(x, w).compile().as_text())
    assert program.scheduled
    (dot,) = program.of("dot")
    gathers = program.of("all-gather")
    assert gathers and all(program.depends_on(dot, g) for g in gathers)
    assert not any(program.depends_on(g, dot) for g in gathers)
