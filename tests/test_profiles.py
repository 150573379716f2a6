"""Reading profiler traces back: read_trace on a real trace of a sharded step (both files JAX
writes must give the same events), op_dependencies on compiled text, draw_trace."""

import functools
import gzip
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import aurora_helpers as ah


def _step(params, x):
    loss, grad = jax.value_and_grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(params)
    return params - 0.1 * grad, loss


@functools.cache
def _traced(tmp_root):
    """A data-parallel step on the 8 test devices, traced once into tmp_root."""
    mesh = jax.make_mesh((8,), ("data",))
    w = jax.device_put(np.ones((16, 4), np.float32), jax.NamedSharding(mesh, jax.P()))
    x = jax.device_put(
        np.arange(64 * 16, dtype=np.float32).reshape(64, 16) / 1000,
        jax.NamedSharding(mesh, jax.P("data")),
    )
    step = jax.jit(_step)
    text = step.lower(w, x).compile().as_text()
    jax.block_until_ready(step(w, x))
    with jax.profiler.trace(tmp_root):
        jax.block_until_ready(step(w, x))
    return text


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trace")
    return folder, _traced(folder)


def test_read_trace_finds_the_collective_on_every_device(trace):
    folder, text = trace
    events = ah.read_trace(folder)
    (collective,) = ah.count_collectives(text).ops
    assert collective.kind == "all-reduce" and collective.name in text
    hits = [e for e in events if e.hlo_op == collective.name]
    assert sorted(e.device for e in hits) == list(range(8))
    assert all(e.duration_s > 0 and e.end_s > e.start_s and e.thread and e.plane for e in hits)
    assert {e.hlo_module for e in hits} == {"jit__step"}
    # An all-reduce cannot finish on any device before every device has joined it.
    assert min(e.end_s for e in hits) >= max(e.start_s for e in hits)


def test_the_json_file_gives_the_same_operations(trace):
    folder, _ = trace
    (xplane,) = folder.rglob("*.xplane.pb")
    (as_json,) = folder.rglob("*.trace.json.gz")

    def ops(events):
        return sorted(
            (e.hlo_op, e.device, round(e.start_s * 1e9), round(e.duration_s * 1e9))
            for e in events
            if e.hlo_op
        )

    from_pb, from_json = ops(ah.read_trace(xplane)), ops(ah.read_trace(as_json))
    assert from_pb and from_pb == from_json


def test_read_trace_json_format_details(tmp_path):
    records = {
        "traceEvents": [
            {"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "/device:GPU:3"}},
            {"ph": "M", "pid": 1, "tid": 7, "name": "thread_name", "args": {"name": "stream"}},
            {
                "ph": "X",
                "pid": 1,
                "tid": 7,
                "ts": 10.0,
                "dur": 2.5,
                "name": "fusion.1",
                "args": {"hlo_op": "fusion.1", "hlo_module": "jit_f"},
            },
            {"ph": "i", "pid": 1, "tid": 7, "ts": 11.0, "name": "instant"},
        ]
    }
    path = tmp_path / "t.trace.json.gz"
    path.write_bytes(gzip.compress(json.dumps(records).encode()))
    (event,) = ah.read_trace(path)
    assert event == ah.TraceEvent(
        "fusion.1", 10e-6, 2.5e-6, "stream", "/device:GPU:3", 3, "fusion.1", "jit_f"
    )
    other = ah.TraceEvent("x", 12.5e-6, 1e-6)
    assert not event.overlaps(other)  # touching at one instant is no overlap
    assert event.overlaps(ah.TraceEvent("y", 12e-6, 1e-6))


def test_read_trace_says_what_is_wrong(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"jax\.profiler\.trace"):
        ah.read_trace(tmp_path)
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        (tmp_path / run / "h.trace.json.gz").write_bytes(gzip.compress(b"[]"))
    with pytest.raises(ValueError, match="2 trace files"):
        ah.read_trace(tmp_path)
    assert ah.read_trace(tmp_path / "a" / "h.trace.json.gz") == []
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ValueError, match="not a trace file"):
        ah.read_trace(tmp_path / "notes.txt")


HLO = """HloModule jit_f, num_partitions=2

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add.1 = f32[] add(%a, %b)
}

ENTRY %main (p0: f32[4], p1: f32[4]) -> (f32[4], f32[4]) {
  %p0 = f32[4]{0} parameter(0)
  %p1 = f32[4]{0} parameter(1)
  %grad = f32[4]{0} multiply(%p0, %p0)
  %side = f32[4]{0} negate(%p1)
  %all-reduce.3 = f32[4]{0} all-reduce(%grad), channel_id=1, replica_groups={{0,1}}, to_apply=%add
  %update = f32[4]{0} subtract(%p0, %all-reduce.3)
  ROOT %tuple = (f32[4]{0}, f32[4]{0}) tuple(%update, %side)
}
"""


def test_op_dependencies_follow_operands_not_computation_names():
    deps = ah.op_dependencies(HLO, "%all-reduce.3")
    assert deps.op == "all-reduce.3"
    assert deps.upstream == {"grad", "p0"}
    assert deps.downstream == {"update", "tuple"}
    assert deps.unrelated == {"p1", "side"}  # add.1 lives in another computation
    assert ah.count_collectives(HLO).ops[0].name == "all-reduce.3"
    with pytest.raises(KeyError, match="entry computation"):
        ah.op_dependencies(HLO, "add.1")


def test_draw_trace(trace):
    folder, text = trace
    name = ah.count_collectives(text).ops[0].name
    fig = ah.draw_trace(ah.read_trace(folder), highlight=[name])
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"device {d}" for d in range(8)]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["other operations", name]
    with pytest.raises(ValueError, match="nothing to draw"):
        ah.draw_trace([ah.TraceEvent("python", 0.0, 1.0)])


def test_without_profile_data_the_json_beside_the_xplane_is_read(trace, monkeypatch):
    folder, _ = trace
    with_reader = ah.read_trace(folder)
    monkeypatch.delattr(jax.profiler, "ProfileData")
    without = ah.read_trace(folder)
    assert sorted((e.hlo_op, e.device) for e in without if e.hlo_op) == sorted(
        (e.hlo_op, e.device) for e in with_reader if e.hlo_op
    )
