"""Workshop schedules built from the minutes each notebook announces.

Each notebook's title cell says how long it takes, split into teaching and exercises:
``**Time:** about 50 minutes (35 teaching, 15 exercises).`` That line is the one source of the
minutes: :func:`course_schedule` lays the notebooks out on three paths (3 hours, 6 hours, two
days) with breaks, and moves exercises to "after the workshop" when a path would overrun. The
course's ``SCHEDULE.md`` is :func:`render_schedule` of it (``aurora schedule --write``; a test
fails when the file and the notebooks disagree).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .course_notebook import CourseNotebook

#: Work between two breaks, at most (minutes); a break comes between notebooks.
WORK_BETWEEN_BREAKS = 90
BREAK_MINUTES = 10
LUNCH_MINUTES = 45


class ScheduleError(ValueError):
    """A notebook's time line is missing or inconsistent, or a path cannot fit its day."""


@dataclass(frozen=True)
class NotebookTime:
    """What one notebook announces: its number, title and minutes."""

    number: str
    title: str
    teaching: int
    exercises: int

    @property
    def total(self) -> int:
        return self.teaching + self.exercises


def notebook_time(notebook: CourseNotebook) -> NotebookTime:
    """The number, title and minutes of a course notebook, for a schedule.

    Raises:
        ScheduleError: no ``# NN · Title`` heading, no time line in the exact form, or its total
            is not teaching + exercises.
    """
    name, time = notebook.name, notebook.time
    if not notebook.numbered_title or notebook.number is None:
        raise ScheduleError(f"{name}: no title heading of the form '# NN · Title'")
    if time is None:
        raise ScheduleError(
            f"{name}: no time line of the form "
            "'**Time:** about N minutes (T teaching, E exercises).' in a markdown cell"
        )
    if not time.consistent:
        raise ScheduleError(
            f"{name}: the time line says {time.total} minutes but {time.teaching} teaching + "
            f"{time.exercises} exercises is {time.teaching + time.exercises}"
        )
    return NotebookTime(notebook.number, notebook.title, time.teaching, time.exercises)


def read_course_times(notebooks_dir: Path) -> dict[str, NotebookTime]:
    """Every course notebook's :class:`NotebookTime`, by number, in course order."""
    from .course import find_notebooks

    times = {}
    for path in find_notebooks(notebooks_dir):
        found = notebook_time(CourseNotebook.read(path))
        times[found.number] = found
    if not times:
        raise ScheduleError(f"no course notebooks (NN_name.ipynb) in {notebooks_dir}")
    return times


@dataclass(frozen=True)
class DayPlan:
    """One day of a path: which notebooks, from when, for how long, with or without lunch."""

    label: str
    notebooks: tuple[str, ...]
    minutes: int
    start: str = "09:00"
    lunch: bool = False


@dataclass(frozen=True)
class PathPlan:
    """A way through the course: pre-work, then one or more days in the room."""

    name: str
    audience: str
    prework: tuple[str, ...]
    days: tuple[DayPlan, ...]


#: The course's three paths. Notebook numbers only: the minutes come from the notebooks.
PATHS: tuple[PathPlan, ...] = (
    PathPlan(
        "3-hour workshop",
        "engineers who have used jax.jit; placement and sharding in one afternoon, with arrays, "
        "transformations and devices done beforehand",
        prework=("00", "01", "02", "03"),
        days=(DayPlan("The afternoon", ("04", "06", "07"), 180, start="13:30"),),
    ),
    PathPlan(
        "6-hour workshop",
        "a one-day course from transformations to shard_map; 05 (async dispatch and measuring), "
        "08, 09 and A1 are follow-up work",
        prework=("00", "01"),
        days=(DayPlan("The day", ("02", "03", "04", "06", "07"), 360, lunch=True),),
    ),
    PathPlan(
        "Two-day course",
        "the whole course, multi-host and the capstone included; A1 (custom kernels) on day 2",
        prework=("00",),
        days=(
            DayPlan("Day 1", ("01", "02", "03", "04", "05"), 360, lunch=True),
            DayPlan("Day 2", ("06", "07", "08", "09", "A1"), 360, lunch=True),
        ),
    ),
)


@dataclass(frozen=True)
class Slot:
    """One row of a day: a notebook's teaching or exercises, a break or lunch."""

    start: int  # minutes after the day's start
    minutes: int
    kind: str  # "teaching", "exercises", "break", "lunch"
    notebook: NotebookTime | None = None


def _end(slots: Sequence[Slot]) -> int:
    """The minute the last slot ends (0 for none)."""
    return slots[-1].start + slots[-1].minutes if slots else 0


@dataclass
class DaySchedule:
    """A day laid out, with what did not fit moved to after the workshop."""

    plan: DayPlan
    slots: list[Slot] = field(default_factory=list)
    homework: list[NotebookTime] = field(default_factory=list)

    @property
    def minutes(self) -> int:
        return _end(self.slots)

    def total(self, kind: str) -> int:
        return sum(s.minutes for s in self.slots if s.kind == kind)


def _lay_out(plan: DayPlan, notebooks: Sequence[NotebookTime], in_room: set[str]) -> list[Slot]:
    """Slots for ``notebooks`` (exercises only for those in ``in_room``), breaks between them."""
    slots: list[Slot] = []
    clock = since_break = 0
    lunch_taken = not plan.lunch
    for index, nb in enumerate(notebooks):
        work = nb.teaching + (nb.exercises if nb.number in in_room else 0)
        if index and since_break + work > WORK_BETWEEN_BREAKS:
            if not lunch_taken and clock >= plan.minutes // 3:
                slots.append(Slot(clock, LUNCH_MINUTES, "lunch"))
                clock += LUNCH_MINUTES
                lunch_taken = True
            else:
                slots.append(Slot(clock, BREAK_MINUTES, "break"))
                clock += BREAK_MINUTES
            since_break = 0
        slots.append(Slot(clock, nb.teaching, "teaching", nb))
        clock += nb.teaching
        if nb.number in in_room and nb.exercises:
            slots.append(Slot(clock, nb.exercises, "exercises", nb))
            clock += nb.exercises
        since_break += work
    if not lunch_taken:  # a short day never got long enough for lunch before its last notebook
        raise ScheduleError(f"{plan.label}: lunch was planned but the day is too short for it")
    return slots


def plan_day(plan: DayPlan, times: dict[str, NotebookTime]) -> DaySchedule:
    """Lay out one day; while it overruns, move the exercises of its last notebooks to homework.

    Raises:
        ScheduleError: a notebook of the plan does not exist, or even teaching alone overruns.
    """
    missing = [n for n in plan.notebooks if n not in times]
    if missing:
        raise ScheduleError(f"{plan.label}: no notebook numbered {', '.join(missing)}")
    notebooks = [times[n] for n in plan.notebooks]
    in_room = {nb.number for nb in notebooks}
    slots = _lay_out(plan, notebooks, in_room)
    for nb in reversed(notebooks):
        if _end(slots) <= plan.minutes:
            break
        in_room.discard(nb.number)
        slots = _lay_out(plan, notebooks, in_room)
    end = _end(slots)
    if end > plan.minutes:
        raise ScheduleError(
            f"{plan.label}: {end} minutes of teaching and breaks do not fit in {plan.minutes}; "
            "shorten the notebooks' teaching time or take a notebook off this path"
        )
    homework = [nb for nb in notebooks if nb.number not in in_room and nb.exercises]
    return DaySchedule(plan, slots, homework)


def course_schedule(times: dict[str, NotebookTime]) -> list[tuple[PathPlan, list[DaySchedule]]]:
    """Every path of :data:`PATHS`, laid out with these notebook times.

    Raises:
        ScheduleError: a path names a notebook that ``times`` lacks, or a day cannot fit.
    """
    for path in PATHS:
        missing = [n for n in path.prework if n not in times]
        if missing:
            raise ScheduleError(f"{path.name}: no notebook numbered {', '.join(missing)}")
    return [(path, [plan_day(day, times) for day in path.days]) for path in PATHS]


def _clock(start: str, minutes: int) -> str:
    hours, mins = (int(x) for x in start.split(":"))
    total = hours * 60 + mins + minutes
    return f"{total // 60:02d}:{total % 60:02d}"


def render_schedule(times: dict[str, NotebookTime]) -> str:
    """``SCHEDULE.md``: the three paths as tables, with pre-work and follow-up exercises."""
    lines = [
        "# Workshop schedules",
        "",
        "Generated by `aurora schedule --write` from the time line in each notebook's title cell",
        "(`**Time:** about N minutes (T teaching, E exercises).`); do not edit by hand.",
        f"Breaks: {BREAK_MINUTES} minutes at most every {WORK_BETWEEN_BREAKS} minutes of work;",
        f"lunch: {LUNCH_MINUTES} minutes. When a day would overrun, the exercises of its last",
        'notebooks move to "after the workshop" (learners do them alone; `aurora grade` checks',
        "them). Instructor notes in each notebook (cells tagged `instructor`) say where learners",
        "get stuck.",
        "",
        "| notebook | teaching | exercises | total |",
        "|---|---:|---:|---:|",
    ]
    for nb in times.values():
        lines.append(f"| {nb.number} · {nb.title} | {nb.teaching} | {nb.exercises} | {nb.total} |")
    for path, days in course_schedule(times):
        lines += ["", f"## {path.name}", "", f"**Who it is for:** {path.audience}.", ""]
        pre = [times[n] for n in path.prework]
        pre_minutes = sum(nb.total for nb in pre)
        lines.append(
            f"**Pre-work** (about {pre_minutes} minutes, alone, before the day): "
            + ", ".join(f"{nb.number} · {nb.title}" for nb in pre)
            + ". Run each notebook top to bottom and do its exercises."
        )
        for day in days:
            lines += [
                "",
                f"### {day.plan.label}",
                "",
                "| time | activity | minutes |",
                "|---|---|---:|",
            ]
            for slot in day.slots:
                when = (
                    f"{_clock(day.plan.start, slot.start)}–"
                    f"{_clock(day.plan.start, slot.start + slot.minutes)}"
                )
                if slot.notebook is None:
                    what = "Lunch" if slot.kind == "lunch" else "Break"
                else:
                    what = f"{slot.notebook.number} · {slot.notebook.title}: {slot.kind}"
                lines.append(f"| {when} | {what} | {slot.minutes} |")
            lines += [
                "",
                f"Teaching {day.total('teaching')} min, exercises {day.total('exercises')} min, "
                f"breaks {day.total('break') + day.total('lunch')} min; "
                f"{day.minutes} of {day.plan.minutes} minutes.",
            ]
            if day.homework:
                lines.append(
                    "After the workshop: the exercises of "
                    + ", ".join(f"{nb.number} ({nb.exercises} min)" for nb in day.homework)
                    + "."
                )
    return "\n".join(lines) + "\n"
