"""The site's planner page stands in for the live panel with the planner's own answers: each
case's ranking and its fastest layout's bars come from ``search``, and a run that fits nowhere
says so."""

from __future__ import annotations

from aurora_helpers.perf.plan_gallery import PlanCase, plan_cases, plan_gallery_html
from aurora_helpers.perf.plan_panel import memory_html, time_html
from aurora_helpers.perf.planner import Transformer, search


def test_each_case_shows_the_planners_ranking_and_its_fastest_layouts_bars():
    case = plan_cases()[0]
    gallery = plan_gallery_html([case], top=2)
    ranking = search(case.model, case.machine, case.devices)
    best = ranking.best
    assert gallery._repr_html_() == str(gallery)
    assert f"<b>{best.layout.name}</b>" in gallery
    assert memory_html(best) in gallery and time_html(best) in gallery
    assert f"{len(ranking.plans)} of {ranking.tried} layouts fit; the fastest 2" in gallery
    assert ranking.plans[1].layout.name in gallery
    assert ranking.plans[2].layout.name not in gallery.split("</table>")[0]


def test_a_run_that_fits_nowhere_says_so_with_its_smallest_peak():
    huge = PlanCase(Transformer.preset("gpt3-175b"), "h100", 1)
    gallery = plan_gallery_html([huge])
    assert "None of the" in gallery and "layouts fits" in gallery
    assert "175.2B parameters" in huge.title() and "1 × NVIDIA H100" in huge.title()


def test_the_default_cases_are_published_runs_that_fit():
    for case in plan_cases():
        assert case.caption and case.rank().plans, case.title()
