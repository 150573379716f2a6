"""The gradebook: one row per learner, in the CSV shape the instructor's LMS imports as it is.

``aurora grade --csv FILE`` writes it; ``--lms`` picks the shape and ``--roster`` the class list:

- ``plain`` (default): ``learner, name, <one column per exercise: 1 solved, 0 not>, total,
  flags``; for a spreadsheet, or an LMS whose importer maps columns by hand.
- ``canvas``: the columns of Canvas's own gradebook export (``Student, ID, SIS User ID, SIS Login
  ID, Section``), its ``Points Possible`` row, then one column per graded notebook holding the
  exercises solved. Canvas's *Import* matches learners on ``ID`` (the user ID in its download
  names) or the SIS columns, and a notebook column to the assignment of that name (rename the
  header to the assignment's name, or Canvas creates an assignment of that name).
- ``moodle``: Moodle's assignment grading worksheet (*Upload grading worksheet*): ``Identifier``
  (``Participant N``, the number in Moodle's download names), ``Full name``, ``Email address``,
  ``Grade``, ``Maximum Grade``, ``Feedback comments``. One worksheet per Moodle assignment: grade
  one assignment's download at a time.

Rows: a learner is who :mod:`.identity` reads from the download's names, merged with the roster's
line for them when a roster is given (Canvas's gradebook export, Moodle's worksheet, or a CSV with
a ``learner`` column and optionally ``name`` and ``email``): the roster supplies the names and IDs
the LMS wants and a row for every learner on it, with empty grades for one who handed nothing in
(an LMS import leaves an empty cell alone). Two copies of one notebook from one learner: the
newest counts (:attr:`.identity.Identity.newness`). What needs the instructor's eye is flagged
(:attr:`Gradebook.flags`: a file that is not a course notebook or cannot be read, a copy left out,
a learner missing from the roster, a learner the LMS cannot match), never scored as a silent 0.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .identity import Identity
from .report import SubmissionGrade, label_order

LMS = Literal["plain", "canvas", "moodle"]
LMS_FORMATS: tuple[LMS, ...] = ("plain", "canvas", "moodle")
CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_COLUMNS = (
    "Identifier",
    "Full name",
    "Email address",
    "Grade",
    "Maximum Grade",
    "Feedback comments",
)


class RosterError(ValueError):
    """A roster file that cannot be read as a class list."""


@dataclass(frozen=True)
class RosterEntry:
    """One learner on the class list: the key rows merge on, and the LMS's columns."""

    key: str  # canvas:ID, moodle:N or the plain learner name
    name: str
    columns: Mapping[str, str]  # the roster's own cells, by header
    aliases: frozenset[str] = frozenset()  # other spellings that name this learner


def _norm(text: str) -> str:
    return re.sub(r"[\s_.,-]+", " ", text).strip().casefold()


def read_roster(path: Path) -> list[RosterEntry]:
    """A class list: Canvas's gradebook export, Moodle's grading worksheet, or a CSV with a
    ``learner`` column (optionally ``name``, ``email``)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as err:
        raise RosterError(f"cannot read the roster {path}: {err.strerror or err}") from err
    reader = csv.DictReader(io.StringIO(text))
    headers = {h.strip().casefold(): h for h in reader.fieldnames or []}
    entries = []
    for raw in reader:
        row = {k.strip(): (v or "").strip() for k, v in raw.items() if k}
        if "id" in headers and "student" in headers:  # Canvas
            student, canvas_id = row[headers["student"]], row[headers["id"]]
            if not canvas_id.isdigit():  # "Points Possible", a muted row
                continue
            aliases = {student, row.get("SIS Login ID", ""), row.get("SIS User ID", "")}
            aliases.add(re.sub(r"[^a-z0-9]", "", "".join(reversed(student.split(", "))).lower()))
            aliases.add(re.sub(r"[^a-z0-9]", "", student.replace(", ", "").lower()))
            entries.append(RosterEntry(f"canvas:{canvas_id}", student, row, _aliases(aliases)))
        elif "identifier" in headers:  # Moodle
            number = re.sub(r"\D", "", row[headers["identifier"]])
            name = row.get(headers.get("full name", ""), "")
            email = row.get(headers.get("email address", ""), "")
            if number:
                entries.append(
                    RosterEntry(
                        f"moodle:{number}", name, row, _aliases({name, email, email.split("@")[0]})
                    )
                )
        elif "learner" in headers:
            learner = row[headers["learner"]]
            name = row.get(headers.get("name", ""), "") or learner
            email = row.get(headers.get("email", ""), "")
            if learner:
                entries.append(
                    RosterEntry(learner, name, row, _aliases({learner, name, email.split("@")[0]}))
                )
        else:
            raise RosterError(
                f"{path}: no column to name learners by: give Canvas's gradebook export (Student, "
                "ID, ...), Moodle's grading worksheet (Identifier, Full name, ...) or a CSV with a "
                "'learner' column"
            )
    return entries


def _aliases(names: Iterable[str]) -> frozenset[str]:
    return frozenset(_norm(n) for n in names if n and _norm(n))


@dataclass
class Row:
    """One learner's line: who, their roster entry (if any) and their newest copy of each
    notebook."""

    key: str
    name: str
    lms_id: str = ""
    roster: RosterEntry | None = None
    graded: dict[str, SubmissionGrade] = field(default_factory=dict)  # notebook -> newest copy

    def points(self) -> dict[str, int]:
        return {k: v for s in self.graded.values() for k, v in s.points.items()}


@dataclass
class Gradebook:
    """Every learner's row, the exercise labels and notebooks seen, and what to look at."""

    rows: list[Row]
    labels: list[str]
    notebooks: dict[str, int]  # notebook -> how many exercises it has
    flags: dict[str, list[str]]  # learner key -> what to look at

    def all_flags(self) -> list[str]:
        names = {r.key: r.name for r in self.rows}
        return [f"{names.get(k, k)}: {f}" for k, fs in self.flags.items() for f in fs]


def _identity(s: SubmissionGrade) -> Identity:
    return s.identity or Identity(s.learner or s.submission, s.learner or s.submission, "file")


def _match(identity: Identity, roster: Sequence[RosterEntry]) -> RosterEntry | None:
    for entry in roster:
        if entry.key == identity.key:
            return entry
    wanted = {_norm(identity.name), _norm(identity.key)}
    found = [e for e in roster if wanted & e.aliases]
    return found[0] if len(found) == 1 else None


def build(submissions: Sequence[SubmissionGrade], roster: Sequence[RosterEntry] = ()) -> Gradebook:
    """The gradebook of ``submissions``: merged by learner (and roster entry), newest copy of
    each notebook, unknown and unreadable files flagged."""
    rows: dict[str, Row] = {}
    flags: dict[str, list[str]] = {}
    labels: list[str] = []
    notebooks: dict[str, int] = {}
    for listed in roster:
        rows[listed.key] = Row(listed.key, listed.name, listed.key.partition(":")[2], listed)
    for s in submissions:
        who = _identity(s)
        entry = _match(who, roster) if roster else None
        key = entry.key if entry else who.key
        row = rows.setdefault(key, Row(key, who.name, who.lms_id, entry))
        if not row.lms_id and who.lms_id:
            row.lms_id = who.lms_id
        mine = flags.setdefault(key, [])
        if roster and entry is None:
            mine.append(f"{s.submission}: not on the roster")
        if s.notebook is None or s.status in ("unreadable", "not a course notebook"):
            mine.append(f"{s.submission}: {s.status}, nothing scored ({s.detail})")
            continue
        for label in s.points:
            if label not in labels:
                labels.append(label)
        notebooks[s.notebook] = max(notebooks.get(s.notebook, 0), len(s.exercises))
        if s.status != "graded":
            mine.append(f"{s.submission}: {s.status} ({s.detail})")
        other = row.graded.get(s.notebook)
        if other is None:
            row.graded[s.notebook] = s
            continue
        newer, older = (s, other) if _identity(s).newness > _identity(other).newness else (other, s)
        row.graded[s.notebook] = newer
        mine.append(
            f"two copies of {s.notebook}: graded the newest, {newer.submission}, not {older.submission}"
        )
    for row in rows.values():
        if roster and row.roster is not None and not row.graded and not flags.get(row.key):
            flags.setdefault(row.key, []).append("no submission")
    labels.sort(key=label_order)
    ordered = sorted(rows.values(), key=lambda r: (_norm(r.name), r.key))
    return Gradebook(
        ordered, labels, dict(sorted(notebooks.items())), {k: v for k, v in flags.items() if v}
    )


def to_csv(book: Gradebook, lms: LMS = "plain") -> str:
    """The gradebook as the CSV ``lms`` imports (see the module's docstring)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if lms == "plain":
        writer.writerow(["learner", "name", *book.labels, "total", "flags"])
        for row in book.rows:
            points = row.points()
            writer.writerow(
                [
                    row.key,
                    row.name,
                    *(points.get(label, "") for label in book.labels),
                    sum(points.values()) if row.graded else "",
                    "; ".join(book.flags.get(row.key, [])),
                ]
            )
    elif lms == "canvas":
        writer.writerow([*CANVAS_COLUMNS, *book.notebooks])
        writer.writerow(["Points Possible", "", "", "", "", *book.notebooks.values()])
        for row in book.rows:
            cells = dict(row.roster.columns) if row.roster else {}
            canvas_id = row.key.partition(":")[2] if row.key.startswith("canvas:") else ""
            writer.writerow(
                [
                    cells.get("Student", row.name),
                    cells.get("ID", canvas_id),
                    cells.get("SIS User ID", ""),
                    cells.get("SIS Login ID", ""),
                    cells.get("Section", ""),
                    *(row.graded[nb].solved if nb in row.graded else "" for nb in book.notebooks),
                ]
            )
    elif lms == "moodle":
        writer.writerow(MOODLE_COLUMNS)
        for row in book.rows:
            cells = dict(row.roster.columns) if row.roster else {}
            number = row.key.partition(":")[2] if row.key.startswith("moodle:") else ""
            exercises = [e for s in row.graded.values() for e in s.exercises]
            writer.writerow(
                [
                    cells.get("Identifier", f"Participant {number}" if number else ""),
                    cells.get("Full name", row.name),
                    cells.get("Email address", ""),
                    sum(e.status == "solved" for e in exercises) if row.graded else "",
                    sum(book.notebooks[nb] for nb in row.graded) or sum(book.notebooks.values()),
                    "; ".join(f"{e.exercise} {e.status}" for e in exercises),
                ]
            )
    else:
        raise ValueError(f"lms must be one of {', '.join(LMS_FORMATS)}, got {lms!r}")
    return out.getvalue()


def unmatched(book: Gradebook, lms: LMS) -> list[str]:
    """The rows ``lms`` cannot match to a learner on import (no Canvas ID or SIS column, no
    Moodle participant number): to add to the roster, or to enter by hand."""
    if lms == "canvas":
        return [
            r.name
            for r in book.rows
            if not r.key.startswith("canvas:")
            and not (
                r.roster
                and (r.roster.columns.get("SIS User ID") or r.roster.columns.get("SIS Login ID"))
            )
        ]
    if lms == "moodle":
        return [r.name for r in book.rows if not r.key.startswith("moodle:")]
    return []
