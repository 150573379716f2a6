"""From an executed graded notebook to grades: only sealed check-log lines count, each attributed to
the cell during which it was written."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from aurora_helpers.contract import CheckRecord

from ..course_notebook import NotebookNode
from ..execute import Execution, cell_error
from .assemble import GRADER_TAG
from .report import SEVERITY, ExerciseGrade
from .seal import SEAL_MIME, sign

#: Sealed records by course cell index (``assemble.FINAL`` for the last).
Seals = dict[int, dict[str, Any]]


def read_seals(nb: NotebookNode, token: bytes) -> tuple[Seals, str]:
    """The genuine seal records by course cell index, and what is wrong with them (``""``: nothing).

    A record counts only with the run's signature, in sequence, with the checking code unchanged
    and the earlier log lines as they were.
    """
    records: Seals = {}
    expected_seq = 0
    for cell in nb.cells:
        if GRADER_TAG not in cell.get("metadata", {}).get("tags", []):
            continue
        for output in cell.get("outputs", []):
            sealed = output.get("data", {}).get(SEAL_MIME)
            if sealed is None:
                continue
            body, mac = sealed.get("body", ""), sealed.get("mac", "")
            if not isinstance(body, str) or sign(token, body) != mac:
                return records, "a seal record does not carry the run's signature"
            record = json.loads(body)
            if record.get("seq") != expected_seq:
                return records, "the seal records are out of order"
            expected_seq += 1
            if record.get("changed"):
                shown = ", ".join(record["changed"][:4])
                return records, f"the checking code was replaced ({shown})"
            if not record.get("prefix_ok", False):
                return records, "earlier lines of the grade log were rewritten"
            records[int(record["cell"])] = record
    return records, ""


def grade_check_cell(
    labels: tuple[str, ...], record: dict[str, Any] | None, cell: NotebookNode
) -> dict[str, ExerciseGrade]:
    """Each label's grade from one executed check cell's sealed log lines.

    The cell's checks write one line per call; any other line (a label the cell does not check,
    more lines than it has calls, a line that is not a record) was forged, and every label of the
    cell scores "wrong". So does every label of a check cell that raised: a check reports and
    returns, so an error there means the check did not write its line, and a line there may be
    one the answer wrote while it ran (from a child process, then ``raise SystemExit``).
    """
    wanted = Counter(labels)
    if record is None:
        return {
            label: ExerciseGrade(label, "not run", "the check was not sealed") for label in wanted
        }
    error = cell_error(cell)
    if error is not None:  # a check does not raise: its line may be one the answer wrote itself
        why = f"the check cell raised {error.gist}"
        return {label: ExerciseGrade(label, "wrong", why) for label in wanted}
    results: dict[str, list[CheckRecord]] = {label: [] for label in wanted}
    for line in record["lines"]:
        try:
            entry: CheckRecord | None = CheckRecord.from_line(line)
        except ValueError:
            entry = None
        if (
            entry is None
            or entry.exercise not in results
            or len(results[entry.exercise]) >= wanted[entry.exercise]
        ):
            forged = "the grade log holds a line that no check in this cell wrote"
            return {label: ExerciseGrade(label, "wrong", forged) for label in wanted}
        results[entry.exercise].append(entry)
    grades = {}
    for label, entries in results.items():
        if not entries:
            grades[label] = ExerciseGrade(label, "wrong", "the check cell wrote no result")
            continue
        worst = max(entries, key=lambda e: SEVERITY[e.status])
        detail = "" if worst.status == "solved" else worst.detail
        grades[label] = ExerciseGrade(label, worst.status, detail)
    return grades


def grade_cells(
    run: Execution,
    records: Seals,
    checks: dict[int, tuple[str, ...]],
    solutions: dict[str, tuple[int, ...]],
    where: dict[int, int],
    timeout_s: float,
) -> dict[str, ExerciseGrade]:
    """Every exercise's grade from its check cells' seals, the worst where several say."""
    grades: dict[str, ExerciseGrade] = {}
    for label, indices in solutions.items():
        if any(records.get(i, {}).get("lines") for i in indices):
            grades[label] = ExerciseGrade(label, "wrong", "the answer cell wrote to the grade log")
    for index, labels in checks.items():
        at = where[index]
        if at not in run.executed:
            cell_grades = {label: ExerciseGrade(label, "not run", "") for label in labels}
        elif at == run.stopped_at:
            why = f"the check did not finish within the time limit ({timeout_s:g} s)"
            if run.failure == "kernel died":
                why = "the kernel died during the check"
            cell_grades = {label: ExerciseGrade(label, "wrong", why) for label in labels}
        else:
            cell_grades = grade_check_cell(labels, records.get(index), run.nb.cells[at])
        for label, grade in cell_grades.items():
            grades[label] = grade.worse(grades.get(label))
    return grades
