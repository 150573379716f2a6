"""Schedules come from the notebooks' time lines, fit their days, and SCHEDULE.md stays current."""

import re

import nbformat
import pytest

from aurora_course.cli import main
from aurora_course.course_notebook import CourseNotebook
from aurora_course.schedule import (
    PATHS,
    DayPlan,
    NotebookTime,
    ScheduleError,
    course_schedule,
    notebook_time,
    plan_day,
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


def test_a_day_that_overruns_moves_the_last_exercises_to_homework():
    times = _times({"01": (40, 20), "02": (40, 20), "03": (40, 20)})
    roomy = plan_day(DayPlan("d", ("01", "02", "03"), 240), times)
    assert roomy.homework == [] and roomy.total("exercises") == 60
    tight = plan_day(DayPlan("d", ("01", "02", "03"), 190), times)  # 200 with every exercise
    assert [nb.number for nb in tight.homework] == ["03"] and tight.minutes == 180
    tighter = plan_day(DayPlan("d", ("01", "02", "03"), 170), times)
    assert [nb.number for nb in tighter.homework] == ["02", "03"] and tighter.minutes <= 170
    assert tight.total("break") == 10 * sum(1 for s in tight.slots if s.kind == "break")
    with pytest.raises(ScheduleError, match="do not fit"):
        plan_day(DayPlan("d", ("01", "02", "03"), 100), times)


def test_breaks_keep_work_blocks_short_and_lunch_comes_once():
    times = _times({f"0{i}": (50, 20) for i in range(1, 6)})
    day = plan_day(DayPlan("d", tuple(times), 420, lunch=True), times)
    assert sum(s.kind == "lunch" for s in day.slots) == 1
    work = 0
    for slot in day.slots:
        work = 0 if slot.kind in ("break", "lunch") else work + slot.minutes
        assert work <= 90 + 70  # a block never holds more than one notebook past the limit


def test_every_path_of_the_course_fits():
    times = _times(
        {n: (30, 15) for n in ["00", "01", "02", "03", "04", "05", "06", "07", "08", "09", "A1"]}
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
    from aurora_course.schedule import read_course_times

    times = read_course_times(NOTEBOOKS)
    rows = re.findall(
        r"^\| ([0-9A-Z]\d) \|.*\| (\d+) min \|", (ROOT / "README.md").read_text(), re.M
    )
    assert sorted(number for number, _ in rows) == sorted(times), "README lists other notebooks"
    wrong = {n: (int(m), times[n].total) for n, m in rows if int(m) != times[n].total}
    assert not wrong, (
        f"README minutes differ from the notebooks' time lines (README, notebook): {wrong}"
    )
