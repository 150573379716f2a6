"""Workshop schedules built from the notebooks' own time lines, by one rule.

Each notebook's title cell says how long it takes, split into teaching and exercises:
``**Time:** about 70 minutes (50 teaching, 20 exercises).``. That line is the only source of a
schedule's minutes (the notebook's authors keep it true to the content, its instructor notes'
activities included), and the rule is the same for every notebook taught in the room: its
teaching minutes, then its exercise minutes *in the room*, with the instructor at hand. A
workshop is where learners do the exercises, so a day never sends a taught notebook's exercises
home: a path whose day cannot hold its notebooks with their exercises, breaks, set-up and
wrap-up is an error (:func:`plan_day`), and the notebooks that do not fit are pre-work or
follow-up, whole. :func:`course_schedule` lays out the three paths (:data:`PATHS`: 3 hours, 6
hours, three days) with a set-up slot and a welcome on the first day, breaks, lunch, a wrap-up
and the spare minutes labelled as buffer. Each notebook has a cut list (:data:`CUTS`): what to
show rather than run, and which exercise to leave to after the workshop, when the room runs late.
The course's ``SCHEDULE.md`` is :func:`render_schedule` of it (``aurora schedule --write``;
a test fails when the file and the notebooks disagree).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .course_notebook import CourseNotebook

#: The first day starts with this long for learners to log in (JupyterHub), open Colab or start
#: `make learn`, and open 00; a welcome follows. Every day ends with a wrap-up.
SETUP_MINUTES = 15
WELCOME_MINUTES = 10
WRAP_UP_MINUTES = 10
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


#: When the room runs late, per notebook: sections to show (run by the presenter, or shown from
#: the website's executed copy) rather than have everyone run, and the one exercise to leave for
#: after the workshop (every other exercise stays in the room). Section names are the start of a ``##`` heading; a test checks that
#: every section and exercise named exists in its notebook.
CUTS: dict[str, tuple[tuple[str, ...], str]] = {
    "00": (("What does this machine offer JAX?",), "00.3"),
    "01": (("6. Pytrees, random keys, masks and NaNs",), "01.4"),
    "02": (("7. `jax.pmap`", "9. The persistent compilation cache"), "02.3"),
    "03": (("4. What a simulated device is", "5. Older names"), "03.3"),
    "04": (("6. Memory accounting", "7. Older API"), "04.4"),
    "05": (("6. Profiling", "7. Measuring the machine"), "05.2"),
    "06": (("7. Training a small MLP on a 2-D mesh", "8. Older forms"), "06.4"),
    "07": (("7. An all-gather matmul", "8. Expert parallelism", "9. Older forms"), "07.3"),
    "08": (("When a process fails", "The same program under a real launcher"), "08.3"),
    "09": (("6. Pipelines with `ppermute`",), "09.3"),
    "10": (("5. Activation memory", "6. Orbax"), "10.2"),
    "A1": (("Calling C++ through jax.ffi", "mpi4jax"), "A1.3"),
}


def check_cuts(notebook: CourseNotebook) -> list[str]:
    """What :data:`CUTS` names for ``notebook`` that the notebook lacks (empty: all found)."""
    if notebook.number not in CUTS:
        return [f"{notebook.name}: no cut list in schedule.CUTS"]
    sections, drop = CUTS[notebook.number]
    headings = [
        line[3:].strip()
        for c in notebook.cells
        if c.is_markdown
        for line in c.source.splitlines()
        if line.startswith("## ")
    ]
    problems = [
        f"{notebook.name}: no section starting {s!r}"
        for s in sections
        if not any(h.startswith(s) for h in headings)
    ]
    if drop not in notebook.labels:
        problems.append(f"{notebook.name}: no exercise {drop}")
    return problems


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
    """Every course notebook's :class:`NotebookTime` (its time line), by number, in order."""
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
    first: bool = True  # the first day in the room: set-up and welcome (later: a recap)


@dataclass(frozen=True)
class PathPlan:
    """A way through the course: pre-work, then one or more days in the room."""

    name: str
    audience: str
    prework: tuple[str, ...]
    days: tuple[DayPlan, ...]


#: The course's three paths. Notebook numbers only: the minutes come from the notebooks, and
#: every notebook of a day is taught with its exercises in the room (a test checks each day fits).
PATHS: tuple[PathPlan, ...] = (
    PathPlan(
        "3-hour workshop",
        "engineers who have used jax.jit: devices and sharding in one afternoon, exercises "
        "included; arrays, transformations and placement beforehand, shard_map (07) as follow-up",
        prework=("00", "01", "02", "04"),
        days=(DayPlan("The afternoon", ("03", "06"), 180, start="13:30"),),
    ),
    PathPlan(
        "6-hour workshop",
        "a one-day course from transformations to shard_map, exercises included; 04 (placement "
        "and memory), 05 (async dispatch and measuring), 08, 09, 10 and A1 are follow-up work",
        prework=("00", "01", "03"),
        days=(DayPlan("The day", ("02", "06", "07"), 360, lunch=True),),
    ),
    PathPlan(
        "Three-day course",
        "the whole course, multi-host, the capstone and the training stack included, every "
        "exercise in the room; A1 (custom kernels) is follow-up work",
        prework=(),
        days=(
            DayPlan("Day 1", ("00", "01", "02", "03", "04"), 360, lunch=True),
            DayPlan("Day 2", ("05", "06", "07"), 360, lunch=True, first=False),
            DayPlan("Day 3", ("08", "09", "10"), 360, lunch=True, first=False),
        ),
    ),
)


@dataclass(frozen=True)
class Slot:
    """One row of a day: a notebook's teaching or exercises, a break or lunch."""

    start: int  # minutes after the day's start
    minutes: int
    kind: str  # "set-up", "welcome", "teaching", "exercises", "break", "lunch", "buffer", "wrap-up"
    notebook: NotebookTime | None = None


def _end(slots: Sequence[Slot]) -> int:
    """The minute the last slot ends (0 for none)."""
    return slots[-1].start + slots[-1].minutes if slots else 0


@dataclass
class DaySchedule:
    """A day laid out: its slots, end to end, filling the day."""

    plan: DayPlan
    slots: list[Slot] = field(default_factory=list)

    @property
    def minutes(self) -> int:
        return _end(self.slots)

    def total(self, kind: str) -> int:
        return sum(s.minutes for s in self.slots if s.kind == kind)


def _lay_out(plan: DayPlan, notebooks: Sequence[NotebookTime]) -> list[Slot]:
    """Slots for ``notebooks``, each taught and then its exercises: set-up and welcome (a recap
    on later days) first, breaks between notebooks, lunch once, a wrap-up last."""
    slots: list[Slot] = []
    clock = 0
    for kind, minutes in (
        (("set-up", SETUP_MINUTES), ("welcome", WELCOME_MINUTES))
        if plan.first
        else (("welcome", WELCOME_MINUTES),)
    ):
        slots.append(Slot(clock, minutes, kind))
        clock += minutes
    since_break = 0  # set-up and welcome are not a block of work
    lunch_taken = not plan.lunch
    for index, nb in enumerate(notebooks):
        work = nb.total
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
        if nb.exercises:
            slots.append(Slot(clock, nb.exercises, "exercises", nb))
            clock += nb.exercises
        since_break += work
    breaks = [i for i, slot in enumerate(slots) if slot.kind == "break"]
    if not lunch_taken and breaks:  # no break came late enough: the last one becomes lunch
        at, longer = breaks[-1], LUNCH_MINUTES - BREAK_MINUTES
        slots[at] = Slot(slots[at].start, LUNCH_MINUTES, "lunch")
        slots[at + 1 :] = [
            Slot(s.start + longer, s.minutes, s.kind, s.notebook) for s in slots[at + 1 :]
        ]
        clock += longer
        lunch_taken = True
    if not lunch_taken:  # a short day never got long enough for lunch before its last notebook
        raise ScheduleError(f"{plan.label}: lunch was planned but the day is too short for it")
    slots.append(Slot(clock, WRAP_UP_MINUTES, "wrap-up"))
    return slots


def plan_day(plan: DayPlan, times: dict[str, NotebookTime]) -> DaySchedule:
    """Lay out one day, every notebook with its exercises in the room; the spare minutes become
    a labelled buffer before the wrap-up.

    Raises:
        ScheduleError: a notebook of the plan does not exist, or the day overruns (the plan must
            move a notebook to pre-work or follow-up: exercises are never sent home alone).
    """
    missing = [n for n in plan.notebooks if n not in times]
    if missing:
        raise ScheduleError(f"{plan.label}: no notebook numbered {', '.join(missing)}")
    slots = _lay_out(plan, [times[n] for n in plan.notebooks])
    end = _end(slots)
    if end > plan.minutes:
        raise ScheduleError(
            f"{plan.label}: its notebooks with their exercises, breaks, set-up and wrap-up take "
            f"{end} minutes, more than its {plan.minutes}; move a notebook to pre-work or "
            "follow-up"
        )
    if end < plan.minutes:  # the spare minutes, labelled, before the wrap-up
        wrap = slots.pop()
        slots += [
            Slot(wrap.start, plan.minutes - end, "buffer"),
            Slot(wrap.start + plan.minutes - end, wrap.minutes, "wrap-up"),
        ]
    return DaySchedule(plan, slots)


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


#: What the fixed slots of a day are for, as SCHEDULE.md says it.
SLOT_WORDS = {
    "set-up": "Set-up: log in to the hub (or open the Colab links, or `make learn`), open "
    "student/00_welcome.ipynb, run its first cells",
    "welcome": "Welcome: the plan of the day, how exercises and their checks work",
    "lunch": "Lunch",
    "break": "Break",
    "buffer": "Buffer: spare minutes for a late start, questions, or catching up",
    "wrap-up": "Wrap-up: questions, what to do after the workshop, feedback",
}


def _cut_lines(notebooks: Sequence[NotebookTime]) -> list[str]:
    lines = []
    for nb in notebooks:
        if nb.number not in CUTS:
            continue
        sections, drop = CUTS[nb.number]
        shown = "; ".join(f"§ {s}" for s in sections)
        lines.append(
            f"- {nb.number}: show rather than run {shown}; leave exercise {drop} for after "
            "the workshop."
        )
    return lines


def render_schedule(times: dict[str, NotebookTime]) -> str:
    """``SCHEDULE.md``: the notebooks' minutes, then the three paths as tables, with pre-work,
    follow-up and cut lists."""
    lines = [
        "# Workshop schedules",
        "",
        "Generated by `aurora schedule --write` from the notebooks; do not edit by hand.",
        "",
        "**Minutes, by one rule** (`aurora_course/schedule.py`, tested): every number comes from",
        "the notebooks' own time lines (`**Time:** about N minutes (T teaching, E exercises).` in",
        "each title cell), and every notebook taught in the room gets its T minutes of teaching",
        "and then its E minutes of exercises, in the room, with help at hand. A day that cannot",
        "hold its notebooks that way is not a day of the course: notebooks move to pre-work or",
        "follow-up whole, never their exercises alone.",
        "",
        f"**A day:** the first day opens with {SETUP_MINUTES} minutes of set-up and a",
        f"{WELCOME_MINUTES}-minute welcome (later days with a {WELCOME_MINUTES}-minute recap) and",
        f"every day closes with a {WRAP_UP_MINUTES}-minute wrap-up; breaks: {BREAK_MINUTES} minutes",
        f"at most every {WORK_BETWEEN_BREAKS} minutes of work; lunch: {LUNCH_MINUTES} minutes. Spare",
        "minutes are labelled *buffer*. Each day lists what to cut when the room runs late.",
        "Instructor notes in each notebook (cells tagged `instructor`) say where learners get",
        "stuck in each exercise.",
        "",
        "| notebook | teaching | exercises | total |",
        "|---|---:|---:|---:|",
    ]
    for nb in times.values():
        lines.append(f"| {nb.number} · {nb.title} | {nb.teaching} | {nb.exercises} | {nb.total} |")
    for path, days in course_schedule(times):
        lines += ["", f"## {path.name}", "", f"**Who it is for:** {path.audience}.", ""]
        pre = [times[n] for n in path.prework]
        if pre:
            lines.append(
                f"**Pre-work** (about {sum(nb.total for nb in pre)} minutes, alone, before the "
                "day): "
                + ", ".join(f"{nb.number} · {nb.title}" for nb in pre)
                + ". Run each notebook top to bottom and do its exercises."
            )
        else:
            lines.append("**Pre-work:** none.")
        taught = {n for day in path.days for n in day.notebooks}
        later = [nb for n, nb in times.items() if n not in taught and n not in path.prework]
        if later:
            lines += [
                "",
                f"**Follow-up** (about {sum(nb.total for nb in later)} minutes, alone, after the "
                "workshop): " + ", ".join(f"{nb.number} · {nb.title}" for nb in later) + ".",
            ]
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
                if slot.notebook is not None:
                    what = f"{slot.notebook.number} · {slot.notebook.title}: {slot.kind}"
                elif slot.kind == "welcome" and not day.plan.first:
                    what = "Welcome back: a recap of the day before, questions"
                else:
                    what = SLOT_WORDS[slot.kind]
                lines.append(f"| {when} | {what} | {slot.minutes} |")
            fixed = sum(day.total(k) for k in ("set-up", "welcome", "wrap-up"))
            lines += [
                "",
                f"Teaching {day.total('teaching')} min, exercises {day.total('exercises')} min, "
                f"set-up, welcome and wrap-up {fixed} min, "
                f"breaks {day.total('break') + day.total('lunch')} min, "
                f"buffer {day.total('buffer')} min; {day.plan.minutes} minutes.",
            ]
            in_day = [times[n] for n in day.plan.notebooks]
            lines += ["", "If the room runs late:", "", *_cut_lines(in_day)]
    return "\n".join(lines) + "\n"
