"""The table of wrong answers covers every exercise of the course (the notebook runs check them:
``tests/test_notebook_runs.py`` requires each one's check to report "wrong")."""

from __future__ import annotations

from aurora_course.course import find_notebooks
from aurora_course.course_notebook import CourseNotebook

from .conftest import NOTEBOOKS
from .wrong_answer_classes import CLASSES, COVERAGE, NOT_APPLICABLE
from .wrong_answers import WRONG_ANSWERS

MODELS = [CourseNotebook.read(p) for p in find_notebooks(NOTEBOOKS)]


def test_every_exercise_has_at_least_two_wrong_answers():
    everywhere = {label for model in MODELS for label in model.labels}
    too_few = sorted(label for label in everywhere if len(WRONG_ANSWERS.get(label, {})) < 2)
    assert not too_few, (
        f"exercises with fewer than two wrong answers in wrong_answers.py: {too_few}"
    )
    unknown = sorted(set(WRONG_ANSWERS) - everywhere)
    assert not unknown, f"wrong_answers.py lists exercises no notebook checks: {unknown}"


def test_every_notebook_has_three_exercises():
    few = {m.name: m.labels for m in MODELS if len(m.labels) < 3}
    assert not few, f"notebooks with fewer than three exercises: {few}"


def test_every_wrong_answer_is_python():
    for label, answers in WRONG_ANSWERS.items():
        for name, source in answers.items():
            compile(source, f"{label} {name}", "exec")


def test_every_exercise_names_a_wrong_answer_of_every_kind():
    """Each of the seven kinds of lazy answer (wrong_answer_classes.CLASSES) has, for every
    exercise, a wrong answer of that kind in the table, or a stated reason it cannot occur."""
    everywhere = sorted({label for model in MODELS for label in model.labels})
    problems = []
    for label in everywhere:
        kinds = COVERAGE.get(label)
        if kinds is None:
            problems.append(f"{label}: not in wrong_answer_classes.COVERAGE")
            continue
        missing = [kind for kind in CLASSES if kind not in kinds]
        unknown = [kind for kind in kinds if kind not in CLASSES]
        if missing or unknown:
            problems.append(f"{label}: kinds missing {missing}, unknown {unknown}")
        for kind, entry in kinds.items():
            if entry.startswith(NOT_APPLICABLE):
                reason = entry[len(NOT_APPLICABLE) :].strip()
                if len(reason.split()) < 6:
                    problems.append(f"{label} {kind}: say why in a sentence, not {reason!r}")
            elif entry not in WRONG_ANSWERS.get(label, {}):
                problems.append(f"{label} {kind}: no wrong answer named {entry!r}")
    stale = sorted(set(COVERAGE) - set(everywhere))
    if stale:
        problems.append(f"COVERAGE lists exercises no notebook checks: {stale}")
    assert not problems, "\n".join(problems)
