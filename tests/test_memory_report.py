"""ah.memory_report: a compiled step's memory in the parts of XLA's out-of-memory report."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pytest

import aurora_helpers as ah
from aurora_helpers.perf.memory_report import Buffer, MemoryReport, largest_temporaries

_HLO = """\
HloModule jit_step, is_scheduled=true

%fused (p: f32[64,32]) -> f32[64,32] {
  %p = f32[64,32]{1,0} parameter(0)
  ROOT %t = f32[64,32]{1,0} tanh(%p)
}

ENTRY %main (param: f32[16,32], param.1: f32[64,16]) -> (f32[16,32], f32[]) {
  %param = f32[16,32]{1,0} parameter(0), metadata={op_name="w"}
  %param.1 = f32[64,16]{1,0} parameter(1), metadata={op_name="x"}
  %dot = f32[64,32]{1,0} dot(%param.1, %param), metadata={op_name="jit(step)/hidden/dot_general"}
  %fusion = f32[64,32]{1,0} fusion(%dot), kind=kLoop, calls=%fused, metadata={op_name="jit(step)/hidden/tanh"}
  %small = f32[8]{0} slice(%fusion), slice={[0:8]}
  %gemm = (f32[64,16]{1,0}, s8[1024]{0}) custom-call(%fusion, %param), custom_call_target="__cublas$gemm"
  %bitcast = f32[32,64]{1,0} bitcast(%fusion)
  %out = f32[16,32]{1,0} multiply(%param, %param)
  %loss = f32[] reduce(%small), dimensions={0}
  ROOT %tuple = (f32[16,32]{1,0}, f32[]) tuple(%out, %loss)
}
"""


def test_the_largest_temporaries_leave_out_arguments_outputs_and_views():
    found = largest_temporaries(_HLO, top=5)
    assert [b.instruction for b in found] == ["dot", "fusion", "gemm", "gemm", "small"]
    assert [b.shape for b in found[2:4]] == ["f32[64,16]", "s8[1024]"]  # a tuple: one per part
    assert found[0] == Buffer(64 * 32 * 4, "f32[64,32]", "jit(step)/hidden/dot_general", "dot")
    assert found[0].dims == (64, 32) and found[4].dims == (8,)
    assert [b.instruction for b in largest_temporaries(_HLO, top=1)] == ["dot"]


def test_the_totals_follow_xla_s_accounting():
    report = MemoryReport(arguments=100, outputs=40, temporaries=300, aliased=40, largest=())
    assert report.total == 400 and report.requested == 300
    assert report.fits(300) and not report.fits(299)
    text = report.format(budget=299)
    assert "does not fit" in text and "preallocated temp allocation" in text


def test_a_compiled_step_reports_its_analysis_and_its_activation():
    def step(w, x):
        with jax.named_scope("layer"):
            h = jnp.tanh(x @ w)
        return w - jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w) * h))(w)

    w, x = jnp.ones((32, 128)), jnp.ones((256, 32))
    compiled = jax.jit(step).lower(w, x).compile()
    stats = compiled.memory_analysis()
    if stats is None:
        pytest.skip("this backend reports no memory analysis")
    report = ah.memory_report(compiled)
    assert report.arguments == w.nbytes + x.nbytes == stats.argument_size_in_bytes
    assert report.temporaries == stats.temp_size_in_bytes
    assert report.largest[0].dims == (256, 128)  # a (batch, hidden) activation
    assert any("layer" in b.operation for b in report.largest), report.largest
