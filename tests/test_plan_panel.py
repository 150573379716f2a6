"""The planner's ipywidgets panel (aurora_helpers/perf/plan_panel.py), driven headlessly: set the
controls' values as a learner's clicks would, then read the outputs' model state."""

from __future__ import annotations

from aurora_helpers.perf.plan_panel import PlanPanel
from aurora_helpers.perf.planner import Transformer, search

SMALL = Transformer(8, 1024, 2816, 8, 8, vocab=32_000, seq=1024, batch=32)


def test_the_panel_shows_the_search_it_describes() -> None:
    panel = PlanPanel(SMALL, machine="h100", devices=8)
    expected = search(SMALL, "h100", 8, remat=("none", "mlp-matmuls", "full"))
    assert panel.ranking is not None and panel.plan is not None
    assert panel.plan.layout.name == expected.best.layout.name
    assert panel.controls["layout"].value == expected.best.layout.name
    assert expected.best.layout.name in panel.table.value
    assert "Memory per device" in panel.memory.value and "fits" in panel.memory.value
    assert f"{expected.best.step_seconds * 1e3:,.1f} ms" in panel.time.value
    assert panel.snapshot().count("<") > 10


def test_changing_a_control_replans() -> None:
    panel = PlanPanel(SMALL, machine="h100", devices=8)
    before = panel.plan
    panel.controls["batch"].value = 64
    assert panel.ranking is not None and panel.model().batch == 64
    assert panel.plan is not None and panel.plan.model.batch == 64
    assert panel.plan.step_seconds > before.step_seconds  # type: ignore[union-attr]
    panel.controls["machine"].value = "tpu-v5e"
    assert panel.plan is not None and panel.plan.machine.name == "TPU v5e"
    assert "16.0 GiB" in panel.memory.value


def test_picking_a_layout_redraws_only_its_bars() -> None:
    panel = PlanPanel(SMALL, machine="h100", devices=8)
    ranking = panel.ranking
    second = panel.controls["layout"].options[1]
    panel.controls["layout"].value = second
    assert panel.ranking is ranking  # no new search
    assert panel.plan is not None and panel.plan.layout.name == second
    expected = next(p for p in ranking.plans if p.layout.name == second)  # type: ignore[union-attr]
    assert f"{expected.step_seconds * 1e3:,.1f} ms" in panel.time.value


def test_nothing_fits_and_bad_inputs_say_so() -> None:
    panel = PlanPanel(Transformer.preset("llama3-70b"), machine="tpu-v5e", devices=1)
    assert panel.plan is None and "None of the" in panel.table.value
    assert panel.memory.value == ""
    panel.controls["heads"].value = 7  # 8192 is no multiple of 7
    assert panel.ranking is None and "No plan" in panel.table.value and panel.error
