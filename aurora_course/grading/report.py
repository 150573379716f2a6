"""The grades of ``aurora grade``: per exercise, per submission, per class; as a table, JSON or CSV."""

from __future__ import annotations

import csv
import io
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from aurora_helpers._display import text_table

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

    @property
    def solved(self) -> int:
        return sum(e.status == "solved" for e in self.exercises)

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

    def to_csv(self) -> str:
        """One row per submission and exercise (one row with an empty exercise when none ran)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            ["submission", "notebook", "submission_status", "exercise", "status", "detail"]
        )
        for s in self.submissions:
            for e in s.exercises or [ExerciseGrade("", "not run", s.detail)]:
                writer.writerow(
                    [s.submission, s.notebook or "", s.status, e.exercise, e.status, e.detail]
                )
        return out.getvalue()


def print_progress(position: int, total: int, grade: SubmissionGrade) -> None:
    """One line on standard error per graded submission (``aurora grade``'s progress)."""
    seconds = f" in {grade.seconds:.1f} s" if grade.seconds else ""
    print(f"[{position}/{total}] {grade.submission}: {grade.summary()}{seconds}", file=sys.stderr)


def write_report(text: str, target: str) -> None:
    """Write ``text`` to the file ``target``, or to standard output when it is ``-``."""
    if target == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        Path(target).write_text(text, encoding="utf-8")
