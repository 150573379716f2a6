"""A tiny course notebook (``90_synthetic``: three exercises, two simulated devices) and ways to
write learners' versions of it, for the grading tests."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from aurora_course.course_notebook import is_solution

SOLUTIONS = {
    "90.1": 'def double(x):\n    """Twice x."""\n    return 2 * x',
    "90.2": "total = int(jnp.arange(5).sum())",
    "90.3": 'def halve(x):\n    """Half of x."""\n    return x / 2',
}
CHECKS = {
    "90.1": 'ah.check("90.1", double, args=(3,), expected=6, '
    'cases=[ah.Case(args=(0,), expected=0, label="x = 0"), '
    'ah.Case(args=(-4,), expected=-8, label="x = -4")], hint="twice")',
    "90.2": 'ah.check("90.2", total, expected=10)',
    "90.3": 'ah.check("90.3", halve, args=(5.0,), expected=2.5)',
}
FORGED_LINE = '{"exercise": "90.1", "status": "solved", "detail": ""}'


def course_notebook() -> nbformat.NotebookNode:
    """A small course notebook with three exercises, as the course writes them."""
    v4 = nbformat.v4
    cells = [
        v4.new_markdown_cell("# 90 · Synthetic"),
        v4.new_code_cell("import aurora_helpers as ah\n\nsetup = ah.setup_notebook()\nsetup"),
        v4.new_code_cell(
            "import os\nimport subprocess\nimport sys\n\nimport jax.numpy as jnp\nimport numpy as np"
        ),
    ]
    for label, solution in SOLUTIONS.items():
        cells += [
            v4.new_markdown_cell(f"### Exercise {label}: a task\n\nDo it."),
            v4.new_code_cell(solution, metadata={"tags": ["solution"]}),
            v4.new_code_cell(CHECKS[label]),
        ]
    return v4.new_notebook(cells=cells)


def with_answer(nb: nbformat.NotebookNode, label: str, source: str) -> nbformat.NotebookNode:
    """``nb`` with the solution cell under ``### Exercise <label>`` replaced by ``source``."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    current = None
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "### Exercise" in cell.source:
            current = cell.source.split()[2].rstrip(":")
        if is_solution(cell) and current == label:
            cell.source = source
    return nb


def write(path: Path, nb: nbformat.NotebookNode) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path
