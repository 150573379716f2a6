"""ci/runs.txt, the one table of runs, against what reads it: scripts/runs, the Makefile, .ci/run
and the GitHub workflow. The gate (.ci/run) must keep what landing needs, the full tier the rest
of what CI has promised, and no other file may write a list of device counts. Runs nothing."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from .conftest import ROOT, load_script

RUNS = load_script("runs")
STEPS = RUNS.read_table()
MAKEFILE = (ROOT / "Makefile").read_text()
WORKFLOW = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
CI_RUN = (ROOT / ".ci" / "run").read_text()


def _in(tier: str, jax: str, mode: str, devices: tuple[int, ...] | None = None) -> list[str]:
    """The steps of TIER that run MODE on JAX (at exactly DEVICES, when given)."""
    return [
        s.name
        for s in STEPS
        if s.tier == tier and s.jax == jax and mode in s.modes
        and (devices is None or s.devices == devices)
    ]  # fmt: skip


def test_every_make_target_the_table_names_is_in_the_makefile():
    targets = set(re.findall(r"^([a-z][a-z0-9-]*):", MAKEFILE, re.M))
    assert {s.target for s in STEPS} - targets == set()
    assert re.search(r"^test-full:\n\tscripts/runs full$", MAKEFILE, re.M)


def test_ci_run_is_the_gate_and_the_readme_command_comes_first_after_setup():
    assert re.search(r'^exec scripts/runs gate "\$@"', CI_RUN, re.M)
    foreground = [s for s in RUNS.tier_steps(STEPS, ["gate"]) if s.order != "beside"]
    assert [s.command()[:2] for s in foreground[:2]] == [["make", "setup"], ["make", "test"]]


def test_the_gate_keeps_what_landing_needs():
    assert _in("gate", "newest", "lint") and _in("gate", "newest", "unit")
    assert {"test", "slow"} <= set(_in("gate", "newest", "unit"))  # fast and slow unit tests
    assert _in("gate", "newest", "variants", (8,))
    assert _in("gate", "newest", "student", (8,)) and _in("gate", "newest", "student", (1,))
    assert _in("gate", "oldest", "student", (8,)) and not _in("gate", "oldest", "variants")
    for mode in ("grade", "site", "launchers", "offline"):
        assert [s for s in STEPS if s.tier == "gate" and mode in s.modes], mode
    (grade,) = [s for s in STEPS if s.tier == "gate" and "grade" in s.modes]
    assert any(a.startswith("GRADE_ONLY=") for a in grade.arguments)  # a few, not all
    (offline,) = [s for s in STEPS if s.tier == "gate" and "offline" in s.modes]
    assert [a for a in offline.arguments if a.startswith("ONLY=")] in (["ONLY=07"], ["ONLY=00"])


def test_the_full_tier_gives_every_other_guarantee():
    assert _in("full", "newest", "student", (3, 5, 6))
    assert set(RUNS.device_counts(STEPS, "test-devices")) == {1, 3, 5, 6}
    assert _in("full", "oldest", "variants") and _in("full", "oldest", "unit")
    assert _in("full", "matrix", "student") and _in("full", "latest", "unit")
    assert _in("full", "colab", "colab") and _in("full", "torch", "torch")
    assert _in("full", "upstream", "variants")
    assert _in("full", "newest", "hub") == ["hub"]  # the classroom on a real JupyterHub
    assert _in("full", "newest", "wheelhouse") == ["wheelhouses"]  # every platform's wheels
    everything = [s for s in STEPS if s.tier == "full" and not s.arguments]
    assert {"grade", "offline"} <= {m for s in everything for m in s.modes}  # every notebook


def test_the_site_reuses_the_offline_build_only_after_waiting_for_it():
    order = [s.name for s in STEPS]
    for step in STEPS:
        reused = [a.split("=", 1)[1] for a in step.arguments if a.startswith("SITE_REUSE=")]
        if reused:
            (keeper,) = [s for s in STEPS if f"KEEP={reused[0]}" in s.arguments]
            assert step.order == "joined" and order.index(keeper.name) < order.index(step.name)


def test_the_workflow_runs_the_tables_steps_and_names_none_itself():
    assert not re.search(r"run:.*\bmake\b", WORKFLOW)  # every job is a step of the table
    assert set(re.findall(r"scripts/runs (\w+)", WORKFLOW)) == {"jobs", "step"}
    assert "scripts/runs step ${{ matrix.step }}" in WORKFLOW
    jobs = json.loads(
        subprocess.run(
            [ROOT / "scripts" / "runs", "jobs", "gate", "full"],
            capture_output=True, text=True, check=True,
        ).stdout
    )  # fmt: skip
    names = {s.name for s in STEPS}
    assert jobs and {j["step"] for j in jobs} <= names
    assert "'gate full'" in WORKFLOW and "|| 'gate'" in WORKFLOW  # full weekly; gate always


@pytest.mark.parametrize(
    "path", ["Makefile", ".ci/run", ".github/workflows/ci.yml", "scripts/test-matrix"]
)
def test_no_device_count_list_outside_the_table(path):
    text = (ROOT / path).read_text()
    assert not re.findall(
        r"(?:AURORA_DEVICE_COUNTS|AURORA_DEVICES|DEVICE_COUNTS)\s*\??=\s*[\"']?\d", text
    )
    assert not re.findall(r"\b1,? 3,? 5\b|\b3, 5 and 6\b", text)


def test_dry_runs_print_each_tier_in_order():
    gate = subprocess.run(
        [ROOT / ".ci" / "run", "--dry-run"], capture_output=True, text=True, check=True
    ).stdout
    assert gate.splitlines()[0] == "$ make setup"
    assert "make test-site SITE_REUSE=build/ci/offline" in gate
    assert "(waiting for the steps beside)" in gate
    full = subprocess.run(
        [ROOT / "scripts" / "runs", "full", "--dry-run"], capture_output=True, text=True, check=True
    ).stdout
    assert "make test-devices 'DEVICE_COUNTS=3 5 6'" in full and "make test-oldest " not in full
