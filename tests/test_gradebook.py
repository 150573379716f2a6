"""The gradebook imports as it is: learners read from Canvas's and Moodle's download names (and a
roster), copies merged by newest, files that score nothing flagged, one CSV shape per LMS.
Grades nothing: the submissions' grades are made here."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import pytest

from aurora_course.cli import main
from aurora_course.grading.gradebook import (
    CANVAS_COLUMNS,
    MOODLE_COLUMNS,
    RosterError,
    build,
    read_roster,
    to_csv,
    unmatched,
)
from aurora_course.grading.identity import identify
from aurora_course.grading.report import ClassGrades, ExerciseGrade, SubmissionGrade


@pytest.mark.parametrize(
    ("path", "folder", "key", "name"),
    [
        # Canvas: sortable name, user ID, attachment ID, the uploaded name
        ("smithbob_340934_208490284_06_sharding.ipynb", "", "canvas:340934", "smithbob"),
        ("smithbob_LATE_340934_208490299_06_sharding-1.ipynb", "", "canvas:340934", "smithbob"),
        # Moodle: full name, participant number, the plugin; files or folders
        (
            "John Smith_123456_assignsubmission_file_06_sharding.ipynb",
            "",
            "moodle:123456",
            "John Smith",
        ),
        (
            "06_sharding.ipynb",
            "John Smith_123456_assignsubmission_file_",
            "moodle:123456",
            "John Smith",
        ),
        # A folder per learner; a file named for the learner, a re-download's "(1)"
        ("class/alice/06_sharding.ipynb", "alice", "alice", "alice"),
        ("alice_06_sharding.ipynb", "", "alice", "alice"),
        ("alice_06 (1).ipynb", "", "alice", "alice"),
        ("06_sharding-bob smith.ipynb", "", "bob_smith", "bob_smith"),
        ("06_sharding.ipynb", "", "06_sharding", "06_sharding"),
    ],
)
def test_a_learner_is_read_the_way_the_lms_names_downloads(path, folder, key, name):
    who = identify(Path(path), folder, "06_sharding")
    assert (who.key, who.name) == (key, name)


def test_newness_orders_canvas_uploads_then_time_then_copies(tmp_path):
    first = identify(Path("smithbob_340934_208490284_06_sharding.ipynb"), "", "06_sharding")
    again = identify(Path("smithbob_LATE_340934_208490299_06_sharding-1.ipynb"), "", "06_sharding")
    assert again.newness > first.newness and again.late and not first.late
    old, new = tmp_path / "alice_06.ipynb", tmp_path / "alice_06 (1).ipynb"
    for path, when in ((old, 1_000_000), (new, 2_000_000)):
        path.write_text("{}")
        os.utime(path, (when, when))
    assert identify(new, "", "06_sharding").newness > identify(old, "", "06_sharding").newness
    os.utime(new, (1_000_000, 1_000_000))  # same time: the copy is the later one
    assert identify(new, "", "06_sharding").newness > identify(old, "", "06_sharding").newness


def _graded(
    path: str, notebook: str | None, statuses: dict[str, str], mtime: float = 0.0, folder: str = ""
) -> SubmissionGrade:
    status = "graded" if notebook else "not a course notebook"
    exercises = [ExerciseGrade(label, s) for label, s in statuses.items()]  # type: ignore[arg-type]
    grade = SubmissionGrade(path, status, notebook, exercises=exercises)  # type: ignore[arg-type]
    who = identify(Path(path), folder, notebook)
    grade.identity = type(who)(
        who.key, who.name, who.source, who.lms_id, who.late, (who.newness[0], mtime, who.newness[2])
    )
    grade.learner = who.key
    return grade


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_plain_one_row_per_learner_the_newest_copy_counts_and_unknown_files_are_flagged():
    grades = [
        _graded(
            "bob/07_shard_map.ipynb",
            "07_shard_map",
            {"07.1": "solved", "07.2": "wrong"},
            folder="bob",
        ),
        _graded("alice_06.ipynb", "06_sharding", {"06.10": "solved", "06.2": "solved"}, 1.0),
        # a re-download, newer and worse: the newest counts, not the better
        _graded("alice_06 (1).ipynb", "06_sharding", {"06.10": "wrong", "06.2": "solved"}, 2.0),
        _graded("carl_notes.ipynb", None, {}),
    ]
    book = build(grades)
    assert [r.key for r in book.rows] == ["alice", "bob", "carl_notes"]
    rows = _rows(to_csv(book, "plain"))
    assert rows[0] == ["learner", "name", "06.2", "06.10", "07.1", "07.2", "total", "flags"]
    assert rows[1][:7] == ["alice", "alice", "1", "0", "", "", "1"]
    assert "two copies of 06_sharding: graded the newest, alice_06 (1).ipynb" in rows[1][7]
    assert rows[2] == ["bob", "bob", "", "", "1", "0", "1", ""]
    assert rows[3][:7] == ["carl_notes", "carl_notes", "", "", "", "", ""]  # no silent 0
    assert "not a course notebook, nothing scored" in rows[3][7]
    # the detail CSV keeps every copy
    whole = ClassGrades(grades, "notebooks", 8, 300.0)
    assert len(_rows(whole.to_detail_csv())) == 1 + 2 + 2 + 2 + 1


def test_canvas_shape_with_its_roster_export(tmp_path):
    roster = tmp_path / "canvas.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,Notebook 06 (5501)\n"
        "    Points Possible,,,,,4\n"
        '"Smith, Bob",340934,S-1,bsmith,Room A,\n'
        '"Jones, Ann",340935,S-2,ajones,Room A,\n'
    )
    grades = [
        _graded(
            "smithbob_340934_208490284_06_sharding.ipynb",
            "06_sharding",
            {"06.1": "solved", "06.2": "not solved yet"},
        ),
        _graded(
            "smithbob_LATE_340934_208490299_06_sharding-1.ipynb",
            "06_sharding",
            {"06.1": "solved", "06.2": "solved"},
        ),
        _graded(
            "whoami_999_208490300_06_sharding.ipynb",
            "06_sharding",
            {"06.1": "solved", "06.2": "solved"},
        ),
    ]
    book = build(grades, read_roster(roster))
    rows = _rows(to_csv(book, "canvas"))
    assert rows[0] == [*CANVAS_COLUMNS, "06_sharding"]
    assert rows[1] == ["Points Possible", "", "", "", "", "2"]
    by_id = {r[1]: r for r in rows[2:]}
    assert by_id["340934"] == ["Smith, Bob", "340934", "S-1", "bsmith", "Room A", "2"]  # newest
    assert by_id["340935"] == ["Jones, Ann", "340935", "S-2", "ajones", "Room A", ""]  # none in
    assert by_id["999"][5] == "2"  # an upload by a learner not on the roster still has its ID
    flags = book.all_flags()
    assert any("not on the roster" in f for f in flags) and any("no submission" in f for f in flags)
    assert unmatched(book, "canvas") == []


def test_moodle_shape_with_its_grading_worksheet_as_roster(tmp_path):
    roster = tmp_path / "worksheet.csv"
    roster.write_text(
        "Identifier,Full name,Email address,Status,Grade,Maximum Grade\n"
        "Participant 123456,John Smith,john@example.org,Submitted,,\n"
        "Participant 123457,Ann Lee,ann@example.org,No submission,,\n"
    )
    grades = [
        _graded(
            "06_sharding.ipynb",
            "06_sharding",
            {"06.1": "solved", "06.2": "wrong"},
            folder="John Smith_123456_assignsubmission_file_",
        ),
    ]
    rows = _rows(to_csv(build(grades, read_roster(roster)), "moodle"))
    assert rows[0] == list(MOODLE_COLUMNS)
    assert rows[1] == ["Participant 123457", "Ann Lee", "ann@example.org", "", "2", ""]
    assert rows[2] == [
        "Participant 123456", "John Smith", "john@example.org", "1", "2", "06.1 solved; 06.2 wrong",
    ]  # fmt: skip
    plain_only = build([_graded("alice_06_sharding.ipynb", "06_sharding", {"06.1": "solved"})])
    assert unmatched(plain_only, "moodle") == ["alice"]


def test_a_plain_roster_names_learners_and_lists_those_with_nothing_in(tmp_path):
    roster = tmp_path / "class.csv"
    roster.write_text("learner,name,email\nalice,Alice Adams,alice@example.org\ndan,Dan Day,\n")
    book = build(
        [_graded("alice_06_sharding.ipynb", "06_sharding", {"06.1": "solved"})], read_roster(roster)
    )
    rows = _rows(to_csv(book, "plain"))
    assert rows[1:] == [
        ["alice", "Alice Adams", "1", "1", ""],
        ["dan", "Dan Day", "", "", "no submission"],
    ]
    bad = tmp_path / "bad.csv"
    bad.write_text("who,what\nx,y\n")
    with pytest.raises(RosterError, match="no column to name learners"):
        read_roster(bad)


def test_the_command_takes_the_shape_and_the_roster(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["grade", str(tmp_path), "--lms", "blackboard"])
    assert "invalid choice" in capsys.readouterr().err
