"""The planner beside the compiled step (aurora_helpers/perf/planned_step.py), on 8 simulated
CPU devices: a sweep of layouts, each compiled, with the disagreement bounded and explained.

Measured on JAX 0.9-0.12's CPU backend (2 layers, width 64, batch 16 x 32 tokens, float32):

- **state between steps** (parameters and Adam's moments, ``argument_size_in_bytes`` less the
  tokens): within 1.00-1.02 of the plan. The excess is the norm scales, which stay replicated
  while the plan splits every parameter over ``fsdp x tensor``.
- **collective bytes** under pure DP: the same all-reduce, within 4 bytes (the loss).
- **collective bytes** with FSDP: the totals within 0.75-1.5 of the plan, the kinds not. XLA's
  CPU backend writes the gradients' reduce-scatter as an all-reduce (the pass that turns an
  all-reduce and a slice into a reduce-scatter runs for GPUs and TPUs), and without remat keeps
  the weights gathered in the forward pass for the backward pass instead of gathering again
  (FSDP's choice, which the plan prices: memory against bytes). With ``remat="full"`` it
  gathers again, as the plan says. Under ``DP x FSDP`` it fuses the data axis's all-reduce with
  the fsdp axis's into one over all devices.
- **collective bytes** with tensor parallelism (no sequence parallelism): the data axis's
  gradient all-reduce as planned; on the tensor axis the plan counts Megatron's two
  all-reduces of a block's activations per layer and pass, plus the embedding's output and the
  logits' input gradient. XLA sends the same forward, but backward all-reduces the input
  gradients of Q, K and V (and of the MLP's gate and up projections) one by one where Megatron
  adds them first: 5 all-reduces a layer instead of 2, so ``(7 L + 2)`` activations against
  the plan's ``(4 L + 2)``.
- **buffers during the step** (``temp_size_in_bytes``): 1.2-2.5 times the plan's gradients,
  activations and largest transient. XLA keeps what the plan does not count at this size: the
  gathered weights (above), the logits' softmax beside the logits, fusion temporaries.
"""

from __future__ import annotations

import pytest

from aurora_helpers.perf.planned_step import check_plan, compiled_step
from aurora_helpers.perf.planner import Layout, Transformer

pytestmark = pytest.mark.slow

MODEL = Transformer(2, 64, 192, 4, 2, vocab=256, seq=32, batch=16)


@pytest.mark.parametrize(
    "layout",
    [
        Layout(data=8),
        Layout(fsdp=8),
        Layout(data=2, fsdp=4),
        Layout(fsdp=4, tensor=2),
        Layout(data=4, tensor=2, sequence_parallel=False),
        Layout(fsdp=8, remat="full"),
    ],
    ids=lambda lay: lay.name,
)
def test_plan_beside_compiled_step(layout: Layout) -> None:
    check = check_plan(MODEL, layout)
    assert 1.0 <= check.ratio("state") <= 1.05, check
    assert 1.0 <= check.ratio("step") <= 2.5, check
    if layout.fsdp == 1 and layout.tensor == 1:
        assert check.ratio("sent") == pytest.approx(1.0, abs=1e-4), check
        assert {row.kind for row in check.traffic.rows} == {"all-reduce"}
    elif layout.fsdp == 1:
        # Tensor parallelism without sequence parallelism: the data axis's all-reduce as planned
        # (within the replicated norms' gradients); on the tensor axis XLA sends 2 + 5 per layer
        # plus 2, the plan 2 + 2 per layer plus 2 (see the module's docstring).
        rows = {(row.kind, row.devices): row for row in check.traffic.rows}
        data = rows[("all-reduce", layout.data)]
        assert data.compiled_bytes == pytest.approx(data.predicted_bytes, rel=0.01), check
        tensor = rows[("all-reduce", layout.tensor)]
        per_layer = MODEL.batch // layout.replicas * MODEL.seq * MODEL.d_model * 4
        assert tensor.predicted_bytes == (4 * MODEL.layers + 2) * per_layer
        assert tensor.compiled_bytes == pytest.approx((7 * MODEL.layers + 2) * per_layer, rel=0.01)
    else:
        assert 0.75 <= check.ratio("sent") <= 1.5, check
    assert "predicted beside compiled" in str(check)
    assert "compiled / predicted" in check._repr_html_()


@pytest.mark.parametrize(
    "layout", [Layout(), Layout(data=3), Layout(fsdp=5)], ids=lambda lay: lay.name
)
def test_other_device_counts(layout: Layout) -> None:
    # A notebook at 1, 3, 5 or 6 devices: sizes every axis divides (width 60, 4 heads, batch 15).
    odd = Transformer(2, 60, 180, 4, 2, vocab=240, seq=32, batch=15)
    check = check_plan(odd, layout)
    assert 1.0 <= check.ratio("state") <= 1.05, check
    assert 1.0 <= check.ratio("step") <= 2.5, check
    assert 0.75 <= check.ratio("sent") <= 1.5, check


def test_more_fsdp_devices_hold_less_state_as_planned() -> None:
    two, eight = (check_plan(MODEL, Layout(fsdp=n, data=8 // n)) for n in (2, 8))
    assert two.state_predicted == pytest.approx(4 * eight.state_predicted)
    assert two.state_compiled / eight.state_compiled == pytest.approx(4, rel=0.05)


def test_layouts_it_cannot_build_are_refused() -> None:
    with pytest.raises(ValueError, match="pipelines"):
        compiled_step(MODEL, Layout(pipeline=2, microbatches=2))
    with pytest.raises(ValueError, match="ZeRO-3"):
        compiled_step(MODEL, Layout(fsdp=2, zero=1))
    with pytest.raises(ValueError, match="fsdp=5 does not divide a dimension of 64"):
        compiled_step(Transformer(2, 64, 192, 4, vocab=256, seq=8, batch=15), Layout(fsdp=5))
    with pytest.raises(ValueError, match="devices"):
        compiled_step(Transformer(2, 64, 192, 4, vocab=256, seq=8, batch=16), Layout(data=16))
