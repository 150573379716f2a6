"""The notebook ``aurora grade`` runs: the course's own notebook, with the learner's screened answer
cells in place of its solution cells and the grader's seal cells around every code cell."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from aurora_helpers.checks.answer_cells import live_cells
from aurora_helpers.checks.answer_screen import CourseNames, Screening, course_names, screen_answer

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
#: The first line of an answer the grader assembled: how ``ah.check`` in the kernel knows where
#: the answer starts (:data:`aurora_helpers.checks.answer_cells.ANSWER_CELL_STARTS`).
ANSWER_HEADER = "# Your answer, as `aurora grade` found it in the exercise's section.\n"


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
    """The notebook to run, the rejected answers, and where each course code cell went."""

    nb: NotebookNode
    rejected: dict[str, Screening] = field(default_factory=dict)  # by exercise
    where: dict[int, int] = field(default_factory=dict)  # course cell index -> graded index

    def exercise_at(self, course: CourseNotebook, graded_index: int | None) -> str | None:
        """The exercise whose answer or check cell is at ``graded_index``, if any."""
        for exercise in course.exercises:
            if graded_index in {self.where.get(i) for i in (*exercise.solutions, *exercise.checks)}:
                return exercise.label
        return None


def screen(
    course: CourseNotebook, names: CourseNames, label: str, pieces: list[str]
) -> tuple[list[str], Screening]:
    """The cells of a learner's answer that run (:func:`live_cells`) and the screen's verdict on
    them; a reach for the checking code in any cell of the section counts, run or not."""
    own = own_names(course, label)
    live = live_cells(pieces)
    verdict = screen_answer(live, names, own, label) if live else Screening()
    for attempt in screen_answer(pieces, names, own, label).attempts if pieces else []:
        if attempt not in verdict.attempts:
            verdict.problems.append(attempt)
            verdict.attempts.append(attempt)
    return live, verdict


def graded_notebook(
    course: CourseNotebook, learner: dict[str, list[str]], stubbed: frozenset[str] = frozenset()
) -> Graded:
    """The course notebook with each exercise's answer (the learner's cells, screened first, in
    its first solution cell; a rejected or missing answer, or one in ``stubbed``, runs as the
    student stub) and a seal cell after every code cell."""
    import nbformat

    nb = copy.deepcopy(course.nb)
    names = names_of(course)
    graded = Graded(nb)
    for exercise in course.exercises:
        live, verdict = screen(course, names, exercise.label, learner.get(exercise.label, []))
        if verdict.problems:
            graded.rejected[exercise.label] = verdict
        runs = bool(live) and not verdict.problems and exercise.label not in stubbed
        for slot, index in enumerate(exercise.solutions):
            cell = nb.cells[index]
            if not runs:
                cell.source = stub_source(cell.source)
            else:
                cell.source = ANSWER_HEADER + "\n\n".join(live) if slot == 0 else "pass"

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
