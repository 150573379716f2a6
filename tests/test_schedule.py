"""Schedules come from the notebooks' time lines by one rule (every notebook taught gets its
teaching and then its exercises in the room), fit their days with set-up, welcome, wrap-up and a
labelled buffer, list cuts, and SCHEDULE.md says the same as the notebooks."""

import itertools
import re

import nbformat
import pytest

from aurora_course.cli import main
from aurora_course.course_notebook import CourseNotebook
from aurora_course.schedule import (
    CUTS,
    PATHS,
    DayPlan,
    NotebookTime,
    ScheduleError,
    check_cuts,
    course_schedule,
    notebook_time,
    plan_day,
    read_course_times,
    render_schedule,
)

from .conftest import NOTEBOOKS, ROOT


def _nb(*markdown: str):
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(m) for m in markdown])


def test_the_time_line_is_read():
    nb = _nb("# 06 · Sharding\n\n**Time:** about 50 minutes (35 teaching, 15 exercises).")
    assert notebook_time(CourseNotebook.from_nb(nb)) == NotebookTime("06", "Sharding", 35, 15)


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("# 06 · Sharding\n\n**Time:** about 50 minutes.", "no time line"),
        ("# 06 · Sharding\n\n**Time:** about 50 minutes (30 teaching, 15 exercises).", "is 45"),
        ("Sharding\n\n**Time:** about 45 minutes (30 teaching, 15 exercises).", "no title"),
    ],
)
def test_malformed_time_lines_are_named(cell, message):
    with pytest.raises(ScheduleError, match=message):
        notebook_time(CourseNotebook.from_nb(_nb(cell), "06_sharding"))


def _times(minutes):
    return {n: NotebookTime(n, f"Title {n}", t, e) for n, (t, e) in minutes.items()}


def test_every_notebook_of_a_day_gets_its_exercises_in_the_room_or_the_day_is_refused():
    times = _times({"01": (40, 20), "02": (40, 20), "03": (40, 20)})
    # 15 set-up + 10 welcome + 3 x 60 + 2 breaks + 10 wrap-up = 235 minutes with every exercise
    roomy = plan_day(DayPlan("d", ("01", "02", "03"), 240), times)
    assert roomy.total("exercises") == 60 and roomy.total("teaching") == 120
    assert roomy.total("buffer") == 5 and roomy.minutes == 240
    exact = plan_day(DayPlan("d", ("01", "02", "03"), 235), times)
    assert exact.total("exercises") == 60 and exact.total("buffer") == 0
    # One minute short: no exercise is sent home to make it fit; the plan must change.
    with pytest.raises(ScheduleError, match="move a notebook to pre-work or follow-up"):
        plan_day(DayPlan("d", ("01", "02", "03"), 234), times)


def test_a_day_opens_with_set_up_and_welcome_and_closes_with_a_wrap_up():
    times = _times({"01": (40, 20), "02": (40, 20)})
    first = plan_day(DayPlan("d", ("01", "02"), 240), times)
    kinds = [slot.kind for slot in first.slots]
    assert kinds[:3] == ["set-up", "welcome", "teaching"] and kinds[-2:] == ["buffer", "wrap-up"]
    later = plan_day(DayPlan("d", ("01", "02"), 240, first=False), times)
    assert [slot.kind for slot in later.slots][:2] == ["welcome", "teaching"]
    for day in (first, later):  # slots follow each other without gaps to the day's end
        assert all(
            a.start + a.minutes == b.start for a, b in zip(day.slots, day.slots[1:], strict=False)
        )
        assert day.minutes == 240


def test_the_minutes_are_each_notebooks_own_time_line():
    times = read_course_times(NOTEBOOKS)
    for number, nb in times.items():
        (path,) = NOTEBOOKS.glob(f"{number}_*.ipynb")
        line = CourseNotebook.read(path).time
        assert line is not None and (nb.teaching, nb.exercises) == (line.teaching, line.exercises)


def test_every_notebook_has_a_cut_list_that_names_what_it_holds():
    from aurora_course.course import find_notebooks

    problems = [
        p for path in find_notebooks(NOTEBOOKS) for p in check_cuts(CourseNotebook.read(path))
    ]
    assert problems == []
    nb = CourseNotebook.from_nb(_nb("# 06 · Sharding\n\n## Something else"), "06_sharding")
    # every section named and the exercise are missing
    assert len(check_cuts(nb)) == len(CUTS["06"][0]) + 1


def test_breaks_keep_work_blocks_short_and_lunch_comes_once():
    times = _times({f"0{i}": (50, 20) for i in range(1, 6)})
    day = plan_day(DayPlan("d", tuple(times), 480, lunch=True), times)
    assert sum(s.kind == "lunch" for s in day.slots) == 1
    work = 0
    for slot in day.slots:
        work = 0 if slot.kind in ("break", "lunch") else work + slot.minutes
        assert work <= 90 + 70  # a block never holds more than one notebook past the limit


def test_every_path_of_the_course_fits():
    times = _times(
        {
            n: (30, 15)
            for n in ["00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "A1"]
        }
    )
    for path, days in course_schedule(times):
        for day in days:
            assert day.minutes <= day.plan.minutes, path.name
    text = render_schedule(times)
    assert all(f"## {path.name}" in text for path in PATHS)


def test_schedule_md_matches_the_notebooks(capsys):
    """SCHEDULE.md is what `aurora schedule --write` makes of the notebooks as they are."""
    status = main(
        ["schedule", "--notebooks", str(NOTEBOOKS), "--file", str(ROOT / "SCHEDULE.md"), "--check"]
    )
    assert status == 0, capsys.readouterr().err


def test_the_readme_table_gives_each_notebooks_minutes():
    times = {n: (t.teaching, t.exercises) for n, t in read_course_times(NOTEBOOKS).items()}
    rows = re.findall(
        r"^\| ([0-9A-Z]\d) \|.*\| (\d+) min \|", (ROOT / "README.md").read_text(), re.M
    )
    assert sorted(number for number, _ in rows) == sorted(times), "README lists other notebooks"
    wrong = {n: (int(m), sum(times[n])) for n, m in rows if int(m) != sum(times[n])}
    assert not wrong, (
        f"README minutes differ from the notebooks' time lines (README, notebook): {wrong}"
    )


def _md_rows(block: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in block.splitlines()
        if line.startswith("|") and not line.startswith("|---")
    ][1:]


def test_schedule_md_agrees_with_the_notebooks_time_lines_in_every_number():
    """Read back from the file a room gets: the minutes table, and for each day, every notebook
    taught with its teaching and then its exercise minutes, slots that fill the day end to end,
    totals that add up, and cut lists that leave out only exercises of that day's notebooks."""
    times = read_course_times(NOTEBOOKS)
    text = (ROOT / "SCHEDULE.md").read_text()
    head, *paths = re.split(r"^## ", text, flags=re.M)
    table = {row[0].split(" · ")[0]: [int(x) for x in row[1:]] for row in _md_rows(head)}
    assert table == {n: [t.teaching, t.exercises, t.total] for n, t in times.items()}
    assert [p.splitlines()[0] for p in paths] == [p.name for p in PATHS]
    for plan, section in zip(PATHS, paths, strict=True):
        days = re.split(r"^### ", section, flags=re.M)[1:]
        assert [d.splitlines()[0] for d in days] == [d.label for d in plan.days]
        taught = [n for day in plan.days for n in day.notebooks]
        assert not set(taught) & set(plan.prework), plan.name
        for day, block in zip(plan.days, days, strict=True):
            rows = _md_rows(block.split("\n\n", 2)[1])
            minutes = [int(r[2]) for r in rows]
            assert sum(minutes) == day.minutes, (plan.name, day.label)
            clock = [r[0].split("–") for r in rows]
            assert all(a[1] == b[0] for a, b in itertools.pairwise(clock))
            slots = [(r[1].split(" · ")[0], r[1].rsplit(": ", 1)[-1], int(r[2])) for r in rows]
            for number in day.notebooks:
                mine = [(kind, m) for n, kind, m in slots if n == number]
                assert mine == [("teaching", times[number].teaching)] + (
                    [("exercises", times[number].exercises)] if times[number].exercises else []
                ), (plan.name, day.label, number)
            total = re.search(r"^Teaching (\d+) min, exercises (\d+) min", block, re.M)
            assert total and [int(g) for g in total.groups()] == [
                sum(times[n].teaching for n in day.notebooks),
                sum(times[n].exercises for n in day.notebooks),
            ]
            assert "After the workshop" not in block
            dropped = re.findall(r"^- (\w+): .*leave exercise (\S+) for after", block, re.M)
            assert dropped == [(n, CUTS[n][1]) for n in day.notebooks]
