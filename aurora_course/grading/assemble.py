"""The notebook ``aurora grade`` runs: the course's own notebook, with the learner's screened answer
cells in place of its solution cells and the grader's seal cells around every code cell."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from aurora_helpers.answer_screen import CourseNames, Screening, course_names, screen_solution

from ..course_notebook import CourseNotebook, NotebookNode
from ..student import stub_source

#: Tag of the cells the grader adds.
GRADER_TAG = "aurora-grade"
_SEAL_CALL = "_aurora_grade_seal({index})"
_SEAL_SETUP = (
    "# Added by `aurora grade`: seal the grade log (see aurora_course.grading).\n"
    "from aurora_course.grading.seal import make_seal as _aurora_grade_make_seal\n\n"
    "_aurora_grade_seal = _aurora_grade_make_seal()\n"
    "del _aurora_grade_make_seal"
)
#: The cell index the final seal reports (after every course cell ran).
FINAL = -1


def names_of(course: CourseNotebook) -> CourseNames:
    """What the course's cells bind outside the solutions, and the packages it imports."""
    others = [c.source for c in course.cells if c.is_code and not c.is_solution]
    return course_names(others, [c.source for c in course.solutions])


def own_names(course: CourseNotebook, label: str) -> set[str]:
    """Names the course's solution cells of ``label`` bind (the learner's to define)."""
    sources = [course.cells[i].source for i in course.exercise(label).solutions]
    return set(course_names(sources, []).bound)


@dataclass
class Graded:
    """The notebook to run, the rejected learner cells, and where each course code cell went."""

    nb: NotebookNode
    rejected: dict[str, Screening] = field(default_factory=dict)  # by exercise
    where: dict[int, int] = field(default_factory=dict)  # course cell index -> graded index


def graded_notebook(course: CourseNotebook, learner: dict[str, list[str]]) -> Graded:
    """The course notebook with the learner's cells (each screened first; a rejected cell or a
    missing one runs as the student stub) and a seal cell after every code cell."""
    import nbformat

    nb = copy.deepcopy(course.nb)
    names = names_of(course)
    graded = Graded(nb)
    for exercise in course.exercises:
        slots = exercise.solutions
        sources = learner.get(exercise.label, [])
        if len(sources) > len(slots) or (sources and len(sources) < len(slots)):
            sources = ["\n\n".join(sources)] + ["pass"] * (len(slots) - 1)
        own = own_names(course, exercise.label) if slots else set()
        for slot, index in enumerate(slots):
            cell = nb.cells[index]
            stub = stub_source(cell.source)
            if slot >= len(sources):
                cell.source = stub
                continue
            verdict = screen_solution(sources[slot], names, own)
            if verdict.problems:
                graded.rejected[exercise.label] = verdict
                cell.source = stub
            else:
                cell.source = sources[slot]

    def seal(index: int) -> NotebookNode:
        call = _SEAL_CALL.format(index=index)
        return nbformat.v4.new_code_cell(call, metadata={"tags": [GRADER_TAG]})

    cells = [nbformat.v4.new_code_cell(_SEAL_SETUP, metadata={"tags": [GRADER_TAG]})]
    for index, cell in enumerate(nb.cells):
        cells.append(cell)
        if cell.cell_type == "code":  # sealed after every code cell: each line has its cell
            cell.outputs, cell.execution_count = [], None
            graded.where[index] = len(cells) - 1
            cells.append(seal(index))
    cells.append(seal(FINAL))
    nb.cells = cells
    return graded
