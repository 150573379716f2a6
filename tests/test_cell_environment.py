"""An answer cannot change the check's environment by effect either: what its cells change in
JAX's configuration or the environment variables is put back before the check runs it, named in
the verdict, and gone for the cells after it; the course's own cells are left alone."""

from __future__ import annotations

import os
from types import SimpleNamespace

import jax
import pytest

from aurora_helpers.cell_environment import CellChanges

from .conftest import NOTEBOOKS
from .notebook_runs import Step, run_steps


def test_changes_are_noted_per_cell_and_summed_from_a_cell_on(monkeypatch):
    monkeypatch.delenv("AURORA_TEST_CELL_ENV", raising=False)
    watcher = CellChanges()
    watcher.pre_run_cell()
    monkeypatch.setenv("AURORA_TEST_CELL_ENV", "1")
    watcher.post_run_cell(SimpleNamespace(execution_count=4))
    watcher.pre_run_cell()
    watcher.post_run_cell(SimpleNamespace(execution_count=5))  # changed nothing
    assert [(c.kind, c.name) for c in watcher.by_cell[4]] == [("environ", "AURORA_TEST_CELL_ENV")]
    assert 5 not in watcher.by_cell
    assert [c.name for c in watcher.since(4)] == ["AURORA_TEST_CELL_ENV"]
    assert watcher.since(5) == []  # the change came before cell 5
    monkeypatch.delenv("AURORA_TEST_CELL_ENV")
    assert watcher.since(4) == []  # set and unset again: no change left


def test_a_config_change_is_described_with_its_values():
    watcher = CellChanges()
    before = jax.config.values["jax_debug_nans"]
    watcher.pre_run_cell()
    jax.config.update("jax_debug_nans", not before)
    try:
        watcher.post_run_cell(SimpleNamespace(execution_count=1))
        (change,) = watcher.since(1)
    finally:
        jax.config.update("jax_debug_nans", before)
    assert change.describe() == f"JAX's option `jax_debug_nans` ({before!r} → {not before!r})"


SETUP = "import os\nimport jax\nimport jax.numpy as jnp\nimport aurora_helpers as ah\nah.setup_notebook()"
LESSON = "jax.config.update('jax_debug_nans', True)  # a course cell may change the configuration"
ANSWER = """# Your answer
jax.config.update('jax_enable_x64', True)
os.environ['AURORA_TEST_LEAK'] = '1'

def double(x):
    return x * 2
"""
HONEST = "# Your answer\ndef double(x):\n    return x + x\n"
CHECK = "ah.check('42.1', double, args=(jnp.arange(3.0),), expected=jnp.arange(3.0) * 2)"
AFTER = """assert not jax.config.jax_enable_x64, "64-bit mode leaked past the check"
assert 'AURORA_TEST_LEAK' not in os.environ, "the variable leaked past the check"
assert jax.config.jax_debug_nans, "the course's own change was undone"
"""


@pytest.mark.slow
def test_an_answer_that_changes_the_environment_is_wrong_and_put_back():
    steps = [
        Step(SETUP, "set-up"),
        Step(LESSON, "a lesson cell"),
        Step(HONEST, "an honest answer"),
        Step(CHECK, "its check", label="42.1", expect="solved"),
        Step(ANSWER, "an answer that changes the environment"),
        Step(CHECK, "its check", may_raise=True, label="42.1", expect="wrong"),
        Step(AFTER, "the cells after it"),
    ]
    problems = run_steps(steps, cwd=NOTEBOOKS, env={"AURORA_DEVICES": "2"})
    assert problems == []
    (record,) = steps[5].records
    assert "`jax_enable_x64` (False → True)" in record.detail
    assert "`AURORA_TEST_LEAK` (unset → '1')" in record.detail
    assert "jax_debug_nans" not in record.detail
    assert os.environ.get("AURORA_TEST_LEAK") is None
