"""The grades of ``aurora grade``: per exercise, per submission, per class; as a table, JSON or the
detail CSV (the gradebook, one row per learner, is :mod:`.gradebook`'s)."""

from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from aurora_helpers._display import text_table

from .identity import Identity

ExerciseStatus = Literal["solved", "not solved yet", "wrong", "not run"]
SubmissionStatus = Literal[
    "graded", "timed out", "kernel died", "tampered", "unreadable", "not a course notebook"
]
#: How bad each status is: two results for one exercise keep the worse.
SEVERITY: dict[str, int] = {"wrong": 3, "not run": 2, "not solved yet": 1, "solved": 0}
_MARKS = {"solved": "✓", "wrong": "✗", "not solved yet": "·", "not run": "-"}


@dataclass
class ExerciseGrade:
    """One exercise of one submission."""

    exercise: str
    status: ExerciseStatus
    detail: str = ""

    def worse(self, other: ExerciseGrade | None) -> ExerciseGrade:
        """This grade or ``other``, whichever is worse (``other`` on a tie)."""
        if other is None or SEVERITY[self.status] > SEVERITY[other.status]:
            return self
        return other


@dataclass
class SubmissionGrade:
    """One submitted file: which course notebook it is, how the run went, every exercise."""

    submission: str
    status: SubmissionStatus
    notebook: str | None = None
    detail: str = ""
    seconds: float = 0.0
    exercises: list[ExerciseGrade] = field(default_factory=list)
    learner: str = ""  # who handed it in (:mod:`.identity`'s key): the gradebook's row
    identity: Identity | None = None

    @property
    def solved(self) -> int:
        return sum(e.status == "solved" for e in self.exercises)

    @property
    def points(self) -> dict[str, int]:
        """One point per solved exercise, by label (none when the file was not graded)."""
        return {e.exercise: int(e.status == "solved") for e in self.exercises}

    def summary(self) -> str:
        """``"2 of 3 solved"``, or the status when the file was not graded."""
        if self.status in ("unreadable", "not a course notebook"):
            return self.status
        tail = "" if self.status == "graded" else f" ({self.status})"
        return f"{self.solved} of {len(self.exercises)} solved{tail}"


@dataclass
class ClassGrades:
    """Every submission's grades, in the order the files were found."""

    submissions: list[SubmissionGrade]
    course: str
    devices: int
    timeout_s: float

    def table(self) -> str:
        """A terminal table (one row per submission), then the details of what is not solved."""
        rows = [
            (
                s.submission,
                s.notebook or "-",
                s.summary(),
                " ".join(f"{e.exercise} {_MARKS[e.status]}" for e in s.exercises),
            )
            for s in self.submissions
        ]
        text = text_table(("submission", "notebook", "result", "exercises"), rows)
        text += "\n\n✓ solved   ✗ wrong   · not solved yet   - not run"
        notes = []
        for s in self.submissions:
            if s.detail:
                notes.append(f"{s.submission}: {s.status}: {s.detail}")
            for e in s.exercises:
                if e.status in ("wrong", "not run") and e.detail:
                    notes.append(f"{s.submission} {e.exercise} {e.status}: {e.detail}")
        if notes:
            text += "\n\n" + "\n".join(notes)
        return text

    def to_json(self) -> str:
        return json.dumps(
            {
                "course": self.course,
                "devices": self.devices,
                "timeout_s": self.timeout_s,
                "submissions": [
                    {**asdict(s), "solved": s.solved, "exercise_count": len(s.exercises)}
                    for s in self.submissions
                ],
            },
            indent=2,
            ensure_ascii=False,
        )

    def to_detail_csv(self) -> str:
        """One row per submission and exercise, with the status and the check's message (one row
        with an empty exercise for a file that was not graded)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            [
                "learner", "submission", "notebook", "submission_status", "exercise", "status",
                "points", "detail",
            ]
        )  # fmt: skip
        for s in self.submissions:
            for e in s.exercises or [ExerciseGrade("", "not run", s.detail)]:
                writer.writerow(
                    [
                        s.learner, s.submission, s.notebook or "", s.status, e.exercise,
                        e.status, int(e.status == "solved") if e.exercise else "", e.detail,
                    ]
                )  # fmt: skip
        return out.getvalue()


def label_order(label: str) -> tuple[str, int]:
    number, _, exercise = label.partition(".")
    return number, int(exercise) if exercise.isdigit() else 0


class Progress:
    """``aurora grade``'s progress on standard error: a bar on a terminal, and one line per graded
    submission (only the lines when standard error is not a terminal: a log stays readable)."""

    def __init__(self) -> None:
        self._bar: Any = None

    def __call__(self, done: int, total: int, grade: SubmissionGrade) -> None:
        line = _progress_line(done, total, grade)
        if not sys.stderr.isatty():
            print(line, file=sys.stderr)
            return
        from tqdm import tqdm

        if self._bar is None:
            self._bar = tqdm(total=total, unit="notebook", file=sys.stderr, dynamic_ncols=True)
        self._bar.write(line, file=sys.stderr)
        self._bar.update(1)
        if done == total:
            self._bar.close()
            self._bar = None


def _progress_line(done: int, total: int, grade: SubmissionGrade) -> str:
    seconds = f" in {grade.seconds:.1f} s" if grade.seconds else ""
    who = f" ({grade.learner})" if grade.learner else ""
    return f"[{done}/{total}] {grade.submission}{who}: {grade.summary()}{seconds}"


def print_progress(position: int, total: int, grade: SubmissionGrade) -> None:
    """One line on standard error per graded submission."""
    print(_progress_line(position, total, grade), file=sys.stderr)


def write_report(text: str, target: str) -> None:
    """Write ``text`` to the file ``target``, or to standard output when it is ``-``."""
    if target == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(target).write_text(text, encoding="utf-8")
