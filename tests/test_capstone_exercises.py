"""The checks of notebook 09's exercises reject wrong answers: a hard-coded value and a route that
skips the skill, for each exercise. The notebook runs once, in a fresh interpreter with 8
simulated devices; before each check cell runs with the course's solution, it runs with every
wrong answer below and must raise ``ExerciseFailed``."""

from __future__ import annotations

import json

import pytest

from .conftest import NOTEBOOKS

WRONG = {
    "09.1": {
        "hard-coded name": "def choose_layout(budget):\n    return '2-D'",
        "memory only, communication not measured": (
            "def choose_layout(budget):\n"
            "    fitting = [k for k, (held, _) in table.items() if held <= budget]\n"
            "    return max(fitting, key=lambda k: table[k][0]) if fitting else None"
        ),
    },
    "09.2": {
        "hard-coded bytes": (
            "def predict_2d(batch, layers, dp, tp):\n    return float(measured['2-D']['step'].sent)"
        ),
        "forward pass only, no gradient reductions": (
            "def predict_2d(batch, layers, dp, tp):\n"
            "    c = ah.collective_cost('all-reduce', 4 * batch // dp * dm, tp)\n"
            "    return float(layers * c.sent)"
        ),
    },
    "09.3": {
        "hard-coded parameters instead of a gather": (
            "def gather(shards):\n    return jax.tree.map(jnp.asarray, params_np)"
        ),
        "all-reduce then slice instead of a reduce-scatter": (
            "def scatter(grads):\n"
            "    def block(g):\n"
            "        rows = g.shape[0] // n\n"
            "        k = jax.lax.axis_index(ALL)\n"
            "        return jax.lax.dynamic_slice_in_dim(jax.lax.psum(g, ALL) / n, k * rows, rows)\n"
            "    return jax.tree.map(block, grads)"
        ),
        "scatter without the mean": (
            "def scatter(grads):\n"
            "    return jax.tree.map(\n"
            "        lambda g: jax.lax.psum_scatter(g, ALL, scatter_dimension=0, tiled=True), grads)"
        ),
    },
}

DRIVER = """
import json, re, sys
import jupytext
import aurora_helpers as ah

wrong = json.loads(sys.argv[1])
cells = [c for c in jupytext.read(sys.argv[2]).cells if c.cell_type == "code"]
ns = {"__name__": "__main__"}
solution = None
for cell in cells:
    source = cell.source
    if "solution" in cell.metadata.get("tags", []):
        solution = source
    label = re.search(r'ah\\.check\\(\\s*"(\\d\\d\\.\\d)"', source)
    if label and label.group(1) in wrong:
        for name, answer in wrong[label.group(1)].items():
            exec(answer, ns)
            try:
                exec(source, ns)
            except ah.ExerciseFailed:
                print("rejected", label.group(1), name, flush=True)
            else:
                print("ACCEPTED", label.group(1), name, flush=True)
        exec(solution, ns)  # the course's answer again, for the check and for later cells
    exec(source, ns)
print("done")
"""


@pytest.mark.slow
def test_exercise_checks_reject_wrong_answers(fresh_python):
    notebook = NOTEBOOKS / "09_capstone.md"
    code = f"import sys; sys.argv = ['driver', {json.dumps(WRONG)!r}, {str(notebook)!r}]\n"
    result = fresh_python(code + DRIVER, env={"AURORA_DEVICES": "8"}, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = [line for line in result.stdout.splitlines() if line.startswith(("rejected", "ACC"))]
    expected = [f"rejected {ex} {name}" for ex, answers in WRONG.items() for name in answers]
    assert lines == expected, result.stdout[-3000:]
    assert result.stdout.rstrip().endswith("done")
