"""Run All twice in one kernel, as a learner does who re-runs without restarting.

The second pass finds JAX initialised, the devices set up, the helpers' caches warm, files from the
first pass in place, and warnings that Python shows once per process already spent. A notebook
that only works from a fresh kernel fails here, with the pass and the cell named.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import nbformat
import pytest

from aurora_course.course import find_notebooks
from aurora_course.runner import execution_problems

from .conftest import NOTEBOOKS, execute_notebook

PASSES = 2


def run_all_in_one_kernel(nb: Any, folder: Path, passes: int = PASSES) -> list[str]:
    """Execute every code cell of ``nb`` ``passes`` times in one kernel; problems by pass."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    runs = copy.deepcopy(nb)
    runs.cells = [copy.deepcopy(cell) for _ in range(passes) for cell in code]
    execute_notebook(runs, folder)
    problems = []
    for number in range(passes):
        one_pass = copy.copy(runs)
        one_pass.cells = runs.cells[number * len(code) : (number + 1) * len(code)]
        problems += [f"pass {number + 1}: {p}" for p in execution_problems(one_pass)]
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("path", find_notebooks(NOTEBOOKS), ids=lambda p: p.stem)
def test_run_all_twice_without_restart(path, monkeypatch):
    monkeypatch.setenv("AURORA_STRICT", "1")
    monkeypatch.setenv("AURORA_CHECKS", "raise")
    monkeypatch.setenv("AURORA_DEVICES", os.environ.get("AURORA_DEVICES", "8"))
    nb = nbformat.read(path, as_version=4)
    assert run_all_in_one_kernel(nb, NOTEBOOKS) == []


def test_a_notebook_that_needs_a_fresh_kernel_fails_the_second_pass(tmp_path):
    """The check can fail: a cell that counts on a warning given at import breaks on pass 2."""
    (tmp_path / "warns_on_import.py").write_text(
        "import warnings\nwarnings.warn('shown when first imported', UserWarning)\n"
    )
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.cells = [
        nbformat.v4.new_markdown_cell("# A notebook"),
        nbformat.v4.new_code_cell(
            "import warnings\n"
            "with warnings.catch_warnings(record=True) as seen:\n"
            "    warnings.simplefilter('always')\n"
            "    import warns_on_import\n"
            "assert seen, 'the warning was not shown'"
        ),
    ]
    problems = run_all_in_one_kernel(nb, tmp_path)
    assert len(problems) == 1 and problems[0].startswith("pass 2:"), problems
    assert "the warning was not shown" in problems[0]
