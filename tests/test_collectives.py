import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import aurora_helpers as ah


@pytest.fixture(scope="module")
def mesh():
    return ah.make_mesh(("data", "model"), (4, 2))


@pytest.fixture(scope="module")
def x(mesh):
    return jax.device_put(jnp.arange(128.0).reshape(16, 8), NamedSharding(mesh, P("data", "model")))


def _shmap(mesh, f, in_spec, out_spec, **kw):
    return jax.shard_map(f, mesh=mesh, in_specs=in_spec, out_specs=out_spec, **kw)


def test_elementwise_work_needs_no_communication(x):
    counts = ah.count_collectives(lambda a: jnp.sin(a) * 2, x)
    assert counts.total == 0 and dict(counts) == dict.fromkeys(ah.COLLECTIVE_KINDS, 0)
    assert "no collectives" in str(counts) and "8 device" in str(counts)


def test_a_sum_over_a_sharded_axis_all_reduces_along_it(mesh, x):
    counts = ah.count_collectives(lambda a: a.sum(axis=1), x)
    assert counts["all-reduce"] == counts["all_reduce"] == counts.total == 1
    (op,) = counts.of_kind("all-reduce")
    assert op.mesh_axes(mesh) == ("model",)
    assert sorted(len(g) for g in op.groups) == [2, 2, 2, 2]
    assert op.result.startswith("f32[")


@pytest.mark.parametrize(
    ("kind", "body", "in_spec", "out_spec", "extra"),
    [
        ("all-reduce", lambda a: jax.lax.psum(a, "data"), P("data"), P(), {}),
        (
            "all-gather",
            lambda a: jax.lax.all_gather(a, "data", tiled=True),
            P("data"),
            P(),
            {"check_vma": False},
        ),
        (
            "reduce-scatter",
            lambda a: jax.lax.psum_scatter(a, "data", scatter_dimension=1, tiled=True),
            P("data"),
            P(None, "data"),
            {},
        ),
        (
            "all-to-all",
            lambda a: jax.lax.all_to_all(a, "data", 1, 0, tiled=True),
            P("data"),
            P("data"),
            {},
        ),
        (
            "collective-permute",
            lambda a: jax.lax.ppermute(a, "data", [(i, (i + 1) % 4) for i in range(4)]),
            P("data"),
            P("data"),
            {},
        ),
    ],
)
def test_each_shard_map_collective_is_found_once(mesh, kind, body, in_spec, out_spec, extra):
    data = jax.device_put(jnp.ones((16, 8)), NamedSharding(mesh, in_spec))
    counts = ah.count_collectives(_shmap(mesh, body, in_spec, out_spec, **extra), data)
    assert counts.as_dict(nonzero=True) == {kind: 1}
    assert counts.ops[0].mesh_axes(mesh) == ("data",)


def test_a_ring_lists_its_pairs(mesh):
    data = jax.device_put(jnp.ones((16, 8)), NamedSharding(mesh, P("data")))
    ring = _shmap(
        mesh,
        lambda a: jax.lax.ppermute(a, "data", [(i, (i + 1) % 4) for i in range(4)]),
        P("data"),
        P("data"),
    )
    (op,) = ah.count_collectives(ring, data).ops
    # Positions in mesh order: device (d, m) sits at 2 * d + m; the ring runs along "data".
    assert sorted(op.groups) == sorted(
        (2 * i + m, 2 * ((i + 1) % 4) + m) for i in range(4) for m in range(2)
    )


def test_every_way_of_passing_the_program_agrees(x):
    def f(a):
        return a.sum(axis=1)

    jitted = jax.jit(f)
    lowered = jitted.lower(x)
    compiled = lowered.compile()
    results = [
        ah.count_collectives(f, x),
        ah.count_collectives(jitted, x),
        ah.count_collectives(lowered),
        ah.count_collectives(compiled),
        ah.count_collectives(compiled.as_text()),
    ]
    assert all(r.as_dict() == results[0].as_dict() for r in results)


def test_jitted_functions_keep_their_out_shardings(mesh, x):
    gather = jax.jit(lambda a: a * 2, out_shardings=NamedSharding(mesh, P()))
    assert ah.count_collectives(gather, x)["all-gather"] >= 1
    assert ah.count_collectives(jax.jit(lambda a: a * 2), x).total == 0


def test_one_device_has_nothing_to_say():
    one = ah.make_mesh("x", devices=jax.devices()[:1])
    a = jax.device_put(np.ones((4, 4), np.float32), NamedSharding(one, P("x")))
    counts = ah.count_collectives(lambda v: v.sum(), a)
    assert counts.total == 0 and counts.participants == 1


GPU_STYLE = """HloModule jit_step, num_partitions=4
%async_computation (p: f32[8]) -> f32[2] {
  %p = f32[8]{0} parameter(0)
  ROOT %reduce-scatter.1 = f32[2]{0} reduce-scatter(f32[8]{0} %p), channel_id=3, replica_groups={{0,1,2,3}}, dimensions={0}, to_apply=%add
}
ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  %all-reduce-start = f32[8]{0} all-reduce-start(f32[8]{0} %x), channel_id=1, replica_groups=[2,2]<=[4], to_apply=%add
  %all-reduce-done = f32[8]{0} all-reduce-done(f32[8]{0} %all-reduce-start)
  %all-gather-start = (f32[2]{0}, f32[8]{0}) all-gather-start(f32[2]{0} %y), channel_id=2, replica_groups=[2,2]<=[2,2]T(1,0), dimensions={0}
  %all-gather-done = f32[8]{0} all-gather-done(%all-gather-start)
  %rs-start = ((f32[8]{0}), f32[2]{0}) async-start(f32[8]{0} %x), calls=%async_computation
  %cp = f32[8]{0} collective-permute-start(f32[8]{0} %x), source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  %r = f32[8]{0} ragged-all-to-all(f32[8]{0} %x, f32[8]{0} %x)
  %m = f32[8]{0} all-to-all(f32[8]{0} %x), replica_groups=mesh['a'=2,'b'=2] {'b'}, dimensions={0}
  %n = f32[8]{0} all-reduce(f32[8]{0} %x), replica_groups=mesh['a'=2,'b'=2], device_ids=([2,2]<=[2,2]T(1,0)) {'a'}, to_apply=%add
}
"""


def test_text_forms_async_pairs_and_group_formats():
    counts = ah.count_collectives(GPU_STYLE)
    assert counts.as_dict() == {
        "all-reduce": 2,
        "all-gather": 1,
        "reduce-scatter": 1,
        "all-to-all": 1,
        "collective-permute": 1,
    }
    assert counts.participants == 4
    groups = {op.line.split(" =")[0].lstrip("%ROT "): op.groups for op in counts.ops}
    assert groups["all-reduce-start"] == ((0, 1), (2, 3))
    assert groups["all-gather-start"] == ((0, 2), (1, 3))
    assert groups["reduce-scatter.1"] == ((0, 1, 2, 3),)
    assert groups["cp"] == ((0, 1), (1, 2), (2, 3), (3, 0))
    assert groups["m"] == ((0, 1), (2, 3))
    # Device ids (0, 2, 1, 3) laid out on the mesh: grouping along 'a' pairs ids 0,1 and 2,3.
    assert groups["n"] == ((0, 1), (2, 3))


def test_sub_axes_in_mesh_groups():
    text = (
        "%a = f32[4]{0} all-reduce(%x), replica_groups=mesh['x'=4,'y'=2] {'x':(2)2}, to_apply=%add"
    )
    (op,) = ah.count_collectives(text).ops
    assert op.groups == ((0, 4), (1, 5), (2, 6), (3, 7))


def test_mesh_device_ids_without_a_target_shape():
    # As XLA prints it under JAX 0.10.2: ids [4,2]T(1,0) = 0,2,4,6,1,3,5,7 laid over the mesh.
    text = (
        "%a = f32[16,4]{1,0} all-gather(%p), channel_id=2, "
        "replica_groups=mesh['axis_0'=2,'axis_1'=1,'axis_2'=4], device_ids=([4,2]T(1,0)) "
        "{'axis_0'}, dimensions={0}, use_global_device_ids=true"
    )
    (op,) = ah.count_collectives(text).ops
    assert op.groups == ((0, 1), (2, 3), (4, 5), (6, 7))


def test_missing_groups_mean_everyone():
    text = "HloModule m, num_partitions=3\n%a = f32[] all-reduce(f32[] %x), replica_groups={}, to_apply=%add"
    assert ah.count_collectives(text).ops[0].groups == ((0, 1, 2),)


def test_bad_inputs_say_what_to_pass(mesh, x):
    with pytest.raises(TypeError, match="pass a function and its arguments"):
        ah.count_collectives(42)
    with pytest.raises(TypeError, match="already specialised"):
        ah.count_collectives(jax.jit(lambda a: a).lower(x), x)
    with pytest.raises(KeyError, match="not a collective counted here"):
        ah.count_collectives("")["all-sum"]
    op = ah.count_collectives(GPU_STYLE).ops[0]
    with pytest.raises(ValueError, match="pass the mesh the program was compiled for"):
        op.mesh_axes(ah.make_mesh("x", devices=jax.devices()[:2]))


def test_html_and_repr(x):
    counts = ah.count_collectives(lambda a: a.sum(axis=1), x)
    assert "<table>" in counts._repr_html_() and "all-reduce" in repr(counts)
    assert "<div>" in ah.count_collectives("")._repr_html_()


def test_trivial_collectives_are_left_out_unless_asked_for():
    one = ah.make_mesh("i", devices=jax.devices()[:1])
    a = jax.device_put(np.ones((4, 4), np.float32), NamedSharding(one, P("i")))
    summed = jax.shard_map(lambda b: jax.lax.psum(b, "i"), mesh=one, in_specs=P("i"), out_specs=P())
    assert ah.count_collectives(summed, a).total == 0
    kept = ah.count_collectives(summed, a, include_trivial=True)
    assert kept["all-reduce"] == 1 and kept.ops[0].trivial and kept.ops[0].groups == ((0,),)
    text = "%p = f32[4]{0} collective-permute(%x), source_target_pairs={{0,0}}"
    assert ah.parse_collectives(text).total == 0
    assert ah.parse_collectives(text, include_trivial=True)["collective-permute"] == 1


def test_unreadable_groups_still_count_but_cannot_name_axes(mesh):
    text = "%a = f32[4]{0} all-reduce(%x), replica_groups=mesh['x'=4] {'nope'}, to_apply=%add"
    counts = ah.parse_collectives(text)
    assert counts["all-reduce"] == 1 and counts.ops[0].groups == () and not counts.ops[0].trivial
    with pytest.raises(ValueError, match="could not read the device groups"):
        counts.ops[0].mesh_axes(mesh)


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("f32[8,4]{1,0}", 128),
        ("(f32[8]{0}, f32[])", 36),
        ("bf16[3,2]{1,0}", 12),
        ("(s32[2]{0}, /*index=1*/pred[5]{0}, f64[1]{0})", 21),
        ("f8e4m3fn[16]{0}", 16),
    ],
)
def test_bytes_of_hlo_types(text, size):
    from aurora_helpers.compiled.collectives import hlo_type_bytes

    assert hlo_type_bytes(text) == size


def test_unknown_hlo_types_are_refused():
    from aurora_helpers.compiled.collectives import hlo_type_bytes

    with pytest.raises(ValueError, match="unknown HLO element type"):
        hlo_type_bytes("q99[4]{0}")


def test_collectives_know_their_result_bytes_and_group_size(mesh, x):
    (op,) = ah.count_collectives(lambda a: a.sum(axis=1), x).ops
    assert op.group_size == 2
    assert op.result_bytes == 4 * 4  # this device's 4 rows of the row sums, float32


# --- loops: how often each collective runs ----------------------------------------------------


@pytest.fixture(scope="module")
def line():
    return ah.make_mesh("i", (8,))


@pytest.fixture(scope="module")
def v(line):
    return jax.device_put(jnp.ones(16, jnp.float32), NamedSharding(line, P("i")))


def test_a_psum_in_a_scan_runs_once_per_iteration(line, v):
    def accumulate(b):
        def step(carry, _):
            return carry + jax.lax.psum(carry, "i"), None

        return jax.lax.scan(step, b, None, length=5)[0]

    counts = ah.count_collectives(_shmap(line, accumulate, P("i"), P("i")), v)
    assert counts["all-reduce"] == 1 and counts.total == 1  # one instruction, as before
    assert counts.ops[0].executions == 5 and counts.executed("all-reduce") == 5
    assert counts.as_dict(nonzero=True, per_execution=True) == {"all-reduce": 5}
    assert counts.in_loops == counts.ops
    assert "per execution, loops counted: 5 all-reduce" in str(counts)
    assert "runs per execution" in counts._repr_html_()


def test_nested_loops_multiply_and_code_outside_loops_runs_once(line, v):
    def nested(b):
        def inner(c, _):
            return c + jax.lax.psum(c, "i"), None

        def outer(c, _):
            c = jax.lax.scan(inner, c, None, length=3)[0]
            return jax.lax.ppermute(c, "i", [(k, (k + 1) % 8) for k in range(8)]), None

        return jax.lax.psum(jax.lax.scan(outer, b, None, length=4)[0], "i")

    counts = ah.count_collectives(_shmap(line, nested, P("i"), P(), check_vma=False), v)
    runs = sorted((op.kind, op.executions) for op in counts.ops)
    assert runs == [("all-reduce", 1), ("all-reduce", 12), ("collective-permute", 4)]
    assert counts.as_dict(nonzero=True) == {"all-reduce": 2, "collective-permute": 1}
    assert counts.as_dict(nonzero=True, per_execution=True) == {
        "all-reduce": 13,
        "collective-permute": 4,
    }
    link = counts.permute_link_bytes(per_execution=True)
    assert link == {(k, (k + 1) % 8): 4 * 2 * 4 for k in range(8)}  # 4 runs of f32[2]
    assert counts.permute_link_bytes() == {(k, (k + 1) % 8): 2 * 4 for k in range(8)}


def test_a_loop_of_unknown_trip_count_says_so(line, v):
    def until_large(b):
        return jax.lax.while_loop(lambda c: c[0] < 100.0, lambda c: c + jax.lax.psum(c, "i"), b)

    counts = ah.count_collectives(_shmap(line, until_large, P("i"), P("i")), v)
    assert counts["all-reduce"] == 1 and counts.ops[0].executions is None
    assert "all-reduce runs an unknown number of times" in str(counts)
    with pytest.raises(ValueError, match=r"trip count .* multiply by the iterations you know"):
        counts.executed("all-reduce")
    with pytest.raises(ValueError, match="trip count"):
        counts.as_dict(per_execution=True)
    assert counts.executed("all-gather") == 0  # nothing of that kind: nothing unknown


LOOPS_IN_TEXT = """HloModule m, num_partitions=4
%add (a: f32[], b: f32[]) -> f32[] {
  ROOT %s = f32[] add(%a, %b)
}
%shared (p: f32[4]) -> f32[4] {
  ROOT %ar = f32[4]{0} all-reduce(%p), replica_groups={{0,1,2,3}}, to_apply=%add
}
%body (p: f32[4]) -> f32[4] {
  ROOT %c = f32[4]{0} call(%p), to_apply=%shared
}
%cond (p: f32[4]) -> pred[] {
  ROOT %t = pred[] constant(true)
}
%yes (p: f32[4]) -> f32[4] {
  ROOT %ag = f32[4]{0} all-gather(%p), replica_groups={{0,1},{2,3}}, dimensions={0}
}
%no (p: f32[4]) -> f32[4] {
  ROOT %q = f32[4]{0} copy(%p)
}
%async_computation (p: f32[8]) -> f32[2] {
  ROOT %rs = f32[2]{0} reduce-scatter(%p), replica_groups={{0,1,2,3}}, dimensions={0}, to_apply=%add
}
ENTRY %main (x: f32[4]) -> f32[4] {
  %w = f32[4]{0} while(%x), condition=%cond, body=%body, backend_config="{\\"known_trip_count\\":{\\"n\\":\\"6\\"}}"
  %once = f32[4]{0} call(%w), to_apply=%shared
  %b = f32[4]{0} conditional(%i, %w, %w), branch_computations={%yes, %no}
  %s = ((f32[8]{0}), f32[2]{0}) async-start(%y), calls=%async_computation
  %d = f32[2]{0} async-done(%s), calls=%async_computation
  ROOT %r = f32[4]{0} all-to-all(%b), replica_groups={{0,1,2,3}}, dimensions={0}
}
"""


def test_runs_read_from_text_calls_branches_and_async_pairs():
    counts = ah.parse_collectives(LOOPS_IN_TEXT)
    runs = {op.kind: op.executions for op in counts.ops}
    # %shared runs 6 times from the loop's body (trip count quoted inside a string) and once
    # from ENTRY; a branch may or may not run; the async pair runs its computation once.
    assert runs == {"all-reduce": 7, "all-gather": None, "reduce-scatter": 1, "all-to-all": 1}
    assert counts.executed("all-reduce") == 7 and counts.executed("all-to-all") == 1
    with pytest.raises(ValueError, match="branch of a conditional"):
        counts.executed("all-gather")


def test_text_without_computations_runs_everything_once():
    assert [op.executions for op in ah.count_collectives(GPU_STYLE).ops] == [1] * 6
    loose = "%a = f32[4]{0} all-reduce(%x), replica_groups={{0,1}}, to_apply=%add"
    assert ah.parse_collectives(loose).executed("all-reduce") == 1


def test_a_permute_with_no_pairs_moves_nothing():
    text = (
        "HloModule m, num_partitions=1\n\nENTRY %main (p: f32[4]) -> f32[4] {\n"
        "  %p = f32[4]{0} parameter(0)\n"
        "  ROOT %cp = f32[4]{0} collective-permute(f32[4]{0} %p), channel_id=1, "
        "source_target_pairs={}\n}\n"
    )
    assert ah.parse_collectives(text).total == 0
    (op,) = ah.parse_collectives(text, include_trivial=True).ops
    assert op.trivial and op.kind == "collective-permute"
