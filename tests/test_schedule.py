"""Schedules come from the notebooks by a stated rule, fit their days with set-up, welcome,
wrap-up and a labelled buffer, list cuts, and SCHEDULE.md stays current."""

import re

import nbformat
import pytest

from aurora_course.cli import main
from aurora_course.course_notebook import CourseNotebook
from aurora_course.schedule import (
    CUTS,
    PATHS,
    Content,
    DayPlan,
    NotebookTime,
    ScheduleError,
    check_cuts,
    content,
    course_schedule,
    derived_minutes,
    derived_time,
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
    # 15 set-up + 10 welcome + 3 x 60 + 2 breaks + 10 wrap-up = 235 minutes with every exercise
    roomy = plan_day(DayPlan("d", ("01", "02", "03"), 240), times)
    assert roomy.homework == [] and roomy.total("exercises") == 60
    assert roomy.total("buffer") == 5 and roomy.minutes == 240
    tight = plan_day(DayPlan("d", ("01", "02", "03"), 225), times)
    assert [nb.number for nb in tight.homework] == ["03"] and tight.total("buffer") == 10
    tighter = plan_day(DayPlan("d", ("01", "02", "03"), 205), times)
    assert [nb.number for nb in tighter.homework] == ["02", "03"] and tighter.minutes == 205
    assert tight.total("break") == 10 * sum(1 for s in tight.slots if s.kind == "break")
    with pytest.raises(ScheduleError, match="do not fit"):
        plan_day(DayPlan("d", ("01", "02", "03"), 100), times)


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


def test_minutes_follow_the_stated_rule():
    words = " ".join(["word"] * 1200)  # 10 minutes at 120 words a minute
    nb = _nb("# 06 · Sharding\n\n**Time:** about 30 minutes (20 teaching, 10 exercises).", words)
    nb.cells.append(nbformat.v4.new_markdown_cell(" ".join(["note"] * 6000)))
    nb.cells[-1].metadata["tags"] = ["instructor"]  # not counted: the room does not read it
    nb.cells += [nbformat.v4.new_code_cell(f"x = {i}") for i in range(9)]  # 4.5 minutes
    nb.cells.append(nbformat.v4.new_markdown_cell("### Exercise 06.1: one"))
    solution = nbformat.v4.new_code_cell("y = 1")
    solution.metadata["tags"] = ["solution"]
    nb.cells += [solution, nbformat.v4.new_code_cell('ah.check("06.1", lambda: y, expected=1)')]
    course = CourseNotebook.from_nb(nb, "06_sharding")
    counted = content(course)
    assert (counted.demo_cells, counted.exercises) == (9, 1)
    assert derived_minutes(counted) == (15, 10)  # 14.5 and 6, each rounded up to 5
    assert derived_time(course) == NotebookTime("06", "Sharding", 15, 10, (20, 10))
    assert derived_minutes(Content(1200, 0, 0)) == (10, 0)
    assert derived_minutes(Content(1201, 0, 4)) == (15, 25)


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
    day = plan_day(DayPlan("d", tuple(times), 420, lunch=True), times)
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
    from aurora_course.schedule import read_course_times

    times = {n: t.announced for n, t in read_course_times(NOTEBOOKS).items()}
    rows = re.findall(
        r"^\| ([0-9A-Z]\d) \|.*\| (\d+) min \|", (ROOT / "README.md").read_text(), re.M
    )
    assert sorted(number for number, _ in rows) == sorted(times), "README lists other notebooks"
    wrong = {n: (int(m), sum(times[n])) for n, m in rows if int(m) != sum(times[n])}
    assert not wrong, (
        f"README minutes differ from the notebooks' time lines (README, notebook): {wrong}"
    )
