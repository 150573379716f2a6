"""The classroom on a real JupyterHub, started by the test on 127.0.0.1 (``make test-hub``).

Set up as docs/jupyterhub.md tells an admin: the hub and the single-user servers in an environment
without the course (``.venv-hub``: ci/hub.txt, configurable-http-proxy from npm), the course's
kernel registered from this test's Python with ``aurora kernel install``, ``nbgitpuller`` in the
servers' environment. ``AURORA_HUB_LEARNERS`` learners (default 4) log in through the hub's API at
once, follow the guide's nbgitpuller link to the branch that holds only the student copies (cloned
from a local repository built from this checkout), and run ``AURORA_HUB_NOTEBOOKS`` (default 06
and 10) top to bottom on the kernel each notebook names, started by their own server through the
sessions API and run over its websocket, as JupyterLab does; every stub says "not solved yet".
The first learner pastes the solutions in and sees "solved". Their saved notebooks are graded
with ``aurora grade``. One server is stopped and started again: the work is still there, and
pulling the link again keeps it. Memory (each learner's server tree, the hub's whole tree) and
the time to serve the room are measured and written to ``build/hub/summary.json``; the hub then
stops, and the test fails if a process, a port or a home folder is left.

Skipped unless ``AURORA_HUB_LEARNERS`` is set (``make test-hub`` sets it): it takes minutes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

from aurora_course.cli import main
from aurora_course.course_notebook import CourseNotebook
from aurora_course.jupyterhub import COURSE_KERNELSPEC, nbgitpuller_link

from .hub_classroom import HUB_VENV, ROOT, Hub, Learner, running_hub, sample_memory, statuses

pytestmark = pytest.mark.hub

LEARNERS = int(os.environ.get("AURORA_HUB_LEARNERS", "0"))
NOTEBOOKS = os.environ.get("AURORA_HUB_NOTEBOOKS", "06_sharding 10_training_stack").split()
SUMMARY = ROOT / "build" / "hub" / "summary.json"
MIB = 1 << 20


def _repository(where: Path) -> Path:
    """A git repository named like the course's, holding this checkout's files as they are now
    (uncommitted edits included), with the branch of student copies alone that the guide makes
    (``git subtree split --prefix=student -b student-copies``)."""
    repo = where / "aurora-course"
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        src = ROOT / name
        if src.is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, repo / name)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.org"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "course"]):
        subprocess.run([*git, *args], cwd=repo, check=True)
    subprocess.run(
        [*git, "subtree", "split", "-q", "--prefix=student", "-b", "student-copies"],
        cwd=repo,
        check=True,
        capture_output=True,
    )
    return repo


def _student_sources(nb: dict, course: CourseNotebook | None) -> list[tuple[int, str]]:
    """``(cell index, source)`` of each code cell, in order; with ``course``, every exercise's
    answer cell holds the course's solution instead of the stub (a learner pasting it in)."""
    cells = nb["cells"]
    if course is not None:
        mine = CourseNotebook.from_nb(nbformat.from_dict(nb))
        for exercise in mine.exercises:
            (answer,) = exercise.solutions
            solution = course.nb.cells[course.exercise(exercise.label).solutions[0]].source
            cells[answer]["source"] = solution
    return [(i, c["source"]) for i, c in enumerate(cells) if c["cell_type"] == "code"]


def _work_through(learner: Learner, folder: str, name: str, paste: bool) -> dict:
    """Open ``name`` on the kernel it names, run every cell, save it: what the checks said."""
    path = f"{folder}/{name}.ipynb"
    nb = learner.contents(path)["content"]
    kernel = nb["metadata"]["kernelspec"]["name"]
    course = CourseNotebook.read(ROOT / "notebooks" / f"{name}.ipynb") if paste else None
    cells = _student_sources(nb, course)
    session = learner.open_session(path, kernel)
    try:
        kernel_id = session["kernel"]["id"]
        language_info = learner.kernel_info(kernel_id)["language_info"]
        (probe,) = learner.run_cells(kernel_id, ["import sys; print(sys.executable)"])
        started = time.monotonic()
        outputs = learner.run_cells(kernel_id, [source for _, source in cells])
        seconds = time.monotonic() - started
    finally:
        learner.close_session(session)
    for (index, _), outs in zip(cells, outputs, strict=True):
        nb["cells"][index]["outputs"] = outs
    learner.save(path, nb)
    return {
        "kernel": session["kernel"]["name"],
        # JupyterLab writes this into the notebook once the kernel started: equal, no change
        "language_info unchanged": language_info == nb["metadata"].get("language_info"),
        "python": "".join(probe[0]["text"]).strip() if probe else "",
        "errors": [
            f"cell {i}: {o['ename']}: {o['evalue'][:200]}"
            for (i, _), outs in zip(cells, outputs, strict=True)
            for o in outs
            if o["output_type"] == "error"
        ],
        "statuses": dict(s for outs in outputs for s in statuses(outs)),
        "seconds": round(seconds, 1),
    }


@pytest.mark.skipif(not LEARNERS, reason="the real-hub test: make test-hub (AURORA_HUB_LEARNERS)")
def test_a_room_on_a_real_jupyterhub(tmp_path):
    assert (HUB_VENV / "bin" / "jupyterhub").exists(), "run make test-hub (it builds .venv-hub)"
    assert LEARNERS >= 1
    repo = _repository(tmp_path / "git")
    # The admin's steps (docs/jupyterhub.md): the course's kernel registered from the course's
    # Python into a folder the servers search (JUPYTER_PATH, set in the hub's configuration).
    kernels = tmp_path / "kernel"
    assert main(["kernel", "install", "--prefix", str(kernels)]) == 0
    names = [f"learner{i + 1}" for i in range(LEARNERS)]
    link_args = {"branch": "student-copies", "folder": ".", "repository": str(repo)}
    figures: dict = {"learners": LEARNERS, "notebooks": NOTEBOOKS}
    peaks: dict[str, int] = {}
    stop = threading.Event()

    with running_hub(tmp_path / "hub", kernels / "share" / "jupyter") as hub:
        hub.api("POST", "/hub/api/users", {"usernames": names})
        figures["hub alone MiB"] = round(hub.rss() / MIB)
        room = [Learner(hub, n) for n in names]
        watcher = threading.Thread(target=sample_memory, args=(hub, room, stop, peaks))
        watcher.start()
        try:
            _serve_and_teach(hub, room, link_args, figures)
        finally:
            stop.set()
            watcher.join()
        figures["peak MiB per learner"] = {n: round(peaks.get(n, 0) / MIB) for n in names}
        figures["hub total peak MiB"] = round(peaks.get("hub total", 0) / MIB)
        _stop_and_start_keeps_work(room[0], link_args, figures)
        homes = {learner.name: learner.home for learner in room}
        submissions = tmp_path / "submissions"
        for name, home in homes.items():
            for nb in NOTEBOOKS:
                (submissions / name).mkdir(parents=True, exist_ok=True)
                shutil.copy(home / "aurora-course" / f"{nb}.ipynb", submissions / name)
        left = hub.close()
    assert not left, left
    assert not any(home.exists() for home in homes.values())

    _grade(submissions, names, figures)
    SUMMARY.parent.mkdir(parents=True, exist_ok=True)
    SUMMARY.write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))


def _serve_and_teach(hub: Hub, room: list[Learner], link_args: dict, figures: dict) -> None:
    """Every learner at once: log in, start a server, pull, work through the notebooks."""
    link = nbgitpuller_link(hub.url, notebook=f"{NOTEBOOKS[0]}.ipynb", **link_args)
    started = time.monotonic()

    def serve(learner: Learner) -> float:
        learner.login()
        learner.start_server()
        opened = learner.pull(link)
        assert opened.endswith(f"aurora-course/{NOTEBOOKS[0]}.ipynb"), opened
        return time.monotonic() - started

    with ThreadPoolExecutor(len(room)) as pool:
        served = list(pool.map(serve, room))
    figures["seconds to serve the room"] = round(max(served), 1)
    figures["seconds per learner served"] = [round(s, 1) for s in served]

    student = sorted(p.name for p in (ROOT / "student").glob("*.ipynb"))
    for learner in room:
        clone = learner.home / "aurora-course"
        got = sorted(p.name for p in clone.glob("*.ipynb"))
        assert got == student, f"{learner.name} got {got}"
        assert not (clone / "notebooks").exists(), "the solutions reached a learner's home"
        for name in student:
            assert (clone / name).read_bytes() == (ROOT / "student" / name).read_bytes(), name

    # What JupyterLab writes into a notebook once its kernel started is the spec the server
    # serves for the name the notebook stores: equal, so opening a notebook changes nothing.
    specs = room[0].kernelspecs()["kernelspecs"]
    served_spec = specs[COURSE_KERNELSPEC["name"]]["spec"]
    assert {
        "name": COURSE_KERNELSPEC["name"],
        "display_name": served_spec["display_name"],
        "language": served_spec["language"],
    } == COURSE_KERNELSPEC
    # The servers' own Python (the kernel "python3") is not the course's: a notebook that asked
    # for it would start without the course (the wrong kernel).
    assert specs["python3"]["spec"]["argv"][0] != sys.executable

    def teach(learner: Learner) -> dict:
        paste = learner is room[0]
        return {nb: _work_through(learner, "aurora-course", nb, paste) for nb in NOTEBOOKS}

    with ThreadPoolExecutor(len(room)) as pool:
        results = dict(zip([r.name for r in room], pool.map(teach, room), strict=True))
    figures["notebook seconds"] = {
        name: {nb: r["seconds"] for nb, r in runs.items()} for name, runs in results.items()
    }
    for learner in room:
        for nb, run in results[learner.name].items():
            where = f"{learner.name}'s {nb}"
            assert run["kernel"] == COURSE_KERNELSPEC["name"], where
            assert run["language_info unchanged"], where
            assert Path(run["python"]).resolve() == Path(sys.executable).resolve(), where
            assert not run["errors"], f"{where}: {run['errors']}"
            labels = CourseNotebook.read(ROOT / "notebooks" / f"{nb}.ipynb").labels
            want = "solved" if learner is room[0] else "not solved yet"
            assert run["statuses"] == dict.fromkeys(labels, want), f"{where}: {run['statuses']}"


def _stop_and_start_keeps_work(learner: Learner, link_args: dict, figures: dict) -> None:
    """Stop a server and start it again: the saved work is there, and the link pulls again
    without touching it."""
    path = f"aurora-course/{NOTEBOOKS[0]}.ipynb"
    before = learner.contents(path)["content"]
    started = time.monotonic()
    learner.stop_server()
    learner.start_server()
    figures["seconds to stop and start a server"] = round(time.monotonic() - started, 1)
    assert learner.contents(path)["content"] == before
    learner.pull(nbgitpuller_link(learner.hub.url, notebook=f"{NOTEBOOKS[0]}.ipynb", **link_args))
    assert learner.contents(path)["content"] == before, "pulling again changed the learner's work"


def _grade(submissions: Path, names: list[str], figures: dict) -> None:
    """The saved notebooks graded: the learner who pasted the solutions scores every exercise,
    the others none."""
    out = submissions.parent / "grades.json"
    started = time.monotonic()
    assert main(["grade", str(submissions), "--json", str(out), "--jobs", "2"]) == 0
    figures["seconds to grade"] = round(time.monotonic() - started, 1)
    grades = json.loads(out.read_text())
    scored: dict[str, dict[str, str]] = {}
    for row in grades["submissions"]:
        assert row["status"] == "graded", row
        scored.setdefault(row["learner"], {}).update(
            {e["exercise"]: e["status"] for e in row["exercises"]}
        )
    for name in names:
        want = "solved" if name == names[0] else "not solved yet"
        assert set(scored[name].values()) == {want}, (name, scored[name])
