"""Every exercise's check rejects the wrong answers listed for it in ``tests/wrong_answers.py``.

Each notebook runs once, in a fresh IPython shell with 8 simulated devices (so magics such as
``%%cluster`` work). Before an exercise's check cell runs with the course's solution, it runs once
per wrong answer, with that answer's source in place of the solution cell; the check must report
"wrong". Then the course's solution runs again and its check must report "solved", so later cells
see the course's own values. Statuses are read from the check's JSON log (``AURORA_GRADE_LOG``).
"""

from __future__ import annotations

import json
import re

import jupytext
import pytest

from aurora_course.course import find_notebooks, notebook_number

from .conftest import NOTEBOOKS
from .wrong_answers import WRONG_ANSWERS

#: An exercise label in a check cell: ``ah.check("07.1", ...`` (demos such as "00.demo" excluded).
CHECK_LABEL = re.compile(r'ah\.check\(\s*"(?P<label>[0-9A-Z]\d\.\d+)"')


def _labels(markdown: str) -> list[str]:
    nb = jupytext.read(markdown)
    found = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            found += [m.group("label") for m in CHECK_LABEL.finditer(cell.source)]
    return found


def _course_labels() -> dict[str, list[str]]:
    return {notebook_number(p): _labels(p.with_suffix(".md")) for p in find_notebooks(NOTEBOOKS)}


def test_every_exercise_has_at_least_two_wrong_answers():
    labels = _course_labels()
    everywhere = {label for found in labels.values() for label in found}
    too_few = sorted(label for label in everywhere if len(WRONG_ANSWERS.get(label, {})) < 2)
    assert not too_few, (
        f"exercises with fewer than two wrong answers in wrong_answers.py: {too_few}"
    )
    unknown = sorted(set(WRONG_ANSWERS) - everywhere)
    assert not unknown, f"wrong_answers.py lists exercises no notebook checks: {unknown}"


def test_every_notebook_has_three_exercises():
    labels = _course_labels()
    few = {number: found for number, found in labels.items() if len(set(found)) < 3}
    assert not few, f"notebooks with fewer than three exercises: {few}"


DRIVER = r"""
import json, os, re, sys
import jupytext
from IPython.core.interactiveshell import InteractiveShell

wrong = json.loads(sys.argv[1])
notebook = sys.argv[2]
log = os.environ["AURORA_GRADE_LOG"]
label_re = re.compile(r'ah\.check\(\s*"([0-9A-Z]\d\.\d+)"')
shell = InteractiveShell.instance()
read = 0


def statuses():
    global read
    with open(log) as f:
        lines = f.read().splitlines()
    new, read = lines[read:], len(lines)
    return [json.loads(line) for line in new]


def run(source, what, may_fail=False):
    result = shell.run_cell(source, store_history=False)
    if not result.success and not may_fail:
        print(f"CELL FAILED ({what})", flush=True)
        sys.exit(3)
    return result


open(log, "w").close()
solution = None
for index, cell in enumerate(jupytext.read(notebook).cells):
    if cell.cell_type != "code":
        continue
    tags = cell.metadata.get("tags", [])
    source = cell.source
    if "solution" in tags:
        solution = source
    labels = [m for m in label_re.findall(source) if m in wrong]
    for label in dict.fromkeys(labels):
        for name, answer in wrong[label].items():
            run(solution, f"the course's solution of {label}")  # each wrong answer starts clean
            statuses()
            run(answer, f"wrong answer {label} {name!r}")
            run(source, f"check {label} with {name!r}", may_fail=True)
            got = [s for s in statuses() if s["exercise"] == label]
            status = got[-1]["status"] if got else "no check ran"
            print(f"{label} {name!r}: {status}", flush=True)
        run(solution, f"the course's solution of {label}")
    statuses()
    run(source, f"cell {index}", may_fail="raises-exception" in tags)
    for s in statuses():
        if s["status"] != "solved":
            print(f"SOLUTION {s['exercise']}: {s['status']}: {s['detail']}", flush=True)
print("done", flush=True)
"""


def _numbers_with_wrong_answers() -> list[str]:
    labels = _course_labels()
    return [number for number, found in labels.items() if set(found) & set(WRONG_ANSWERS)]


@pytest.mark.slow
@pytest.mark.parametrize("number", _numbers_with_wrong_answers())
def test_checks_reject_the_wrong_answers(number, fresh_python, tmp_path):
    (notebook,) = [p for p in find_notebooks(NOTEBOOKS) if notebook_number(p) == number]
    labels = set(_labels(notebook.with_suffix(".md")))
    wrong = {label: answers for label, answers in WRONG_ANSWERS.items() if label in labels}
    code = (
        f"import sys; sys.argv = ['driver', {json.dumps(wrong)!r}, "
        f"{str(notebook.with_suffix('.md'))!r}]\n"
    )
    env = {
        "AURORA_DEVICES": "8",
        "AURORA_CHECKS": "report",
        "AURORA_GRADE_LOG": str(tmp_path / "checks.jsonl"),
    }
    result = fresh_python(code + DRIVER, env=env, timeout=900, cwd=notebook.parent)
    out = result.stdout
    assert result.returncode == 0 and out.rstrip().endswith("done"), (
        out[-4000:] + result.stderr[-4000:]
    )
    assert "SOLUTION" not in out, out[-4000:]
    expected = [f"{label} {name!r}: wrong" for label, answers in wrong.items() for name in answers]
    reported = [line for line in out.splitlines() if line.startswith(tuple(wrong))]
    assert reported == expected, "\n".join(reported)
