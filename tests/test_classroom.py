"""The classroom kit: peak memory of a process tree, the memory table, the kernel, nbgitpuller
links, the workshop lock file, and free ports for every local cluster."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

import aurora_helpers as ah
from aurora_course import peak_memory
from aurora_course.cli import main
from aurora_course.jupyterhub import (
    COURSE_LANGUAGE_INFO,
    KERNEL_CLASS,
    install_kernel,
    kernel_python,
    nbgitpuller_link,
)
from aurora_course.memory_report import BEGIN, END, memory_table, write_memory_report
from aurora_course.runner import CourseRun, NotebookRun
from aurora_helpers._jax_versions import JAX_UPPER_EXCLUSIVE

from .conftest import ROOT

LOCK = ROOT / "ci" / "workshop.lock"

needs_proc = pytest.mark.skipif(not peak_memory.supported(), reason="needs Linux /proc")

# A child that holds ~150 MiB for a moment, then a grandchild that holds ~150 MiB more.
_HOLDER = """
import subprocess, sys, time
block = bytearray({mib} * 2**20)
for i in range(0, len(block), 4096):
    block[i] = 1  # touch every page, so it is resident
if {spawn}:
    subprocess.run([sys.executable, "-c", {child!r}], check=True)
else:
    time.sleep(1.0)
"""


def _holder(mib: int, spawn: bool) -> str:
    child = _HOLDER.format(mib=mib, spawn=False, child="")
    return _HOLDER.format(mib=mib, spawn=spawn, child=child)


def _in_a_fresh_process(body: str) -> None:
    """Run ``body`` (asserts on ``PeakMemory``) in a new Python, whose process tree holds only
    what the body starts: in a pytest worker, a kernel that an earlier test shut down can still
    be exiting, and it would count among the worker's children."""
    script = "import sys, time, subprocess\nfrom aurora_course import peak_memory\n" + body
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


@needs_proc
@pytest.mark.slow
def test_peak_memory_counts_children_and_grandchildren():
    _in_a_fresh_process(
        f"""
alone_code, tree_code = {_holder(150, spawn=False)!r}, {_holder(150, spawn=True)!r}
with peak_memory.PeakMemory(include_root=False, interval_s=0.05) as alone:
    subprocess.run([sys.executable, "-c", alone_code], check=True)
with peak_memory.PeakMemory(include_root=False, interval_s=0.05) as tree:
    subprocess.run([sys.executable, "-c", tree_code], check=True)
assert alone.peak_mib is not None and tree.peak_mib is not None
assert alone.peak_mib > 150, alone.peak_mib  # the block, plus an interpreter
assert (tree.peak_processes, alone.peak_processes) == (2, 1), (tree, alone)
assert tree.peak_mib > alone.peak_mib + 120, (tree.peak_mib, alone.peak_mib)  # grandchild's too
assert alone.samples > 5, alone.samples  # sampled while the child ran, not only at the start
"""
    )


@needs_proc
@pytest.mark.slow
def test_peak_memory_of_nothing_and_bad_interval():
    _in_a_fresh_process(
        """
import os
with peak_memory.PeakMemory(include_root=False) as none:
    time.sleep(0.15)
assert none.peak_bytes == 0 and none.peak_processes == 0, none
me, count = peak_memory.tree_rss(os.getpid())
assert me > 10 * 2**20 and count >= 1, (me, count)
"""
    )
    with pytest.raises(ValueError, match="positive"):
        peak_memory.PeakMemory(interval_s=0)


def _course() -> CourseRun:
    runs = [
        NotebookRun("00_welcome", "ok", 2.0, "x", device_count=8, jax_version="0.12.0.1"),
        NotebookRun("08_multi_host", "ok", 15.0, "y", device_count=8, jax_version="0.12.0.1"),
    ]
    runs[0].peak_memory_mib, runs[0].peak_processes, runs[0].cpu_seconds = 262.4, 1, 1.5
    runs[1].peak_memory_mib, runs[1].peak_processes, runs[1].cpu_seconds = 1690.0, 7, 11.0
    return CourseRun(runs=runs)


def test_memory_table_and_page(tmp_path):
    table = memory_table(_course())
    assert "| 08_multi_host | 1690 | 7 | 11.0 | 15.0 | ok |" in table
    assert "Largest peak: **1690 MiB**" in table and "8 simulated device(s)" in table
    page = tmp_path / "page.md"
    page.write_text(f"# Hub\n\nbefore\n{BEGIN}\nold table\n{END}\nafter\n")
    write_memory_report(page, _course())
    text = page.read_text()
    assert "old table" not in text and "| 00_welcome | 262 | 1 |" in text
    assert text.startswith("# Hub\n\nbefore\n") and text.endswith(f"{END}\nafter\n")
    fresh = write_memory_report(tmp_path / "new.md", _course())
    assert fresh.read_text() == table
    (tmp_path / "other.md").write_text("no markers here\n")
    with pytest.raises(ValueError, match="marker"):
        write_memory_report(tmp_path / "other.md", _course())
    unmeasured = CourseRun(runs=[NotebookRun("00_welcome", "ok", 1.0, "x")])
    with pytest.raises(ValueError, match="/proc"):
        memory_table(unmeasured)


def test_jupyterhub_page_table_is_generated_by_a_run():
    page = (ROOT / "docs" / "jupyterhub.md").read_text()
    assert BEGIN in page and END in page
    table = page.split(BEGIN, 1)[1].split(END, 1)[0]
    rows = re.findall(r"^\| (\w+) \| (\d+) \|", table, flags=re.M)
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9A-Z][0-9]_*.ipynb"))
    assert sorted(name for name, _ in rows) == notebooks, "re-run: make memory-report"
    peaks = {name: int(mib) for name, mib in rows}
    assert peaks["08_multi_host"] > peaks["00_welcome"]  # the workers are counted


def test_kernel_install(tmp_path, capsys):
    where = install_kernel(name="aurora-test", prefix=tmp_path, devices=3)
    assert where == tmp_path / "share" / "jupyter" / "kernels" / "aurora-test"
    spec = json.loads((where / "kernel.json").read_text())
    assert kernel_python(where) == sys.executable
    assert spec["display_name"] == "Project Aurora (JAX)" and spec["env"] == {"AURORA_DEVICES": "3"}
    assert spec["argv"][-1] == f"--IPKernelApp.kernel_class={KERNEL_CLASS}"


def test_the_course_kernel_reports_what_the_notebooks_store():
    """The registered kernel's language_info is the notebooks' (tests/test_notebooks.py), on any
    machine: IPython's without the patch version, which is all that differs between machines."""
    from ipykernel.ipkernel import IPythonKernel

    from aurora_course.kernel import CourseKernel

    assert CourseKernel.language_info == COURSE_LANGUAGE_INFO
    assert {
        **CourseKernel.language_info,
        "version": "x",
    }.keys() == IPythonKernel.language_info.keys()


def test_kernel_install_from_the_command_line(tmp_path, capsys):
    assert main(["kernel", "install", "--prefix", str(tmp_path), "--name", "room"]) == 0
    assert "Installed kernel 'room'" in capsys.readouterr().out
    spec = json.loads((tmp_path / "share/jupyter/kernels/room/kernel.json").read_text())
    assert "env" not in spec or "AURORA_DEVICES" not in spec["env"]
    with pytest.raises(ValueError, match="letters"):
        install_kernel(name="bad name", prefix=tmp_path)
    assert main(["kernel", "install", "--prefix", str(tmp_path), "--devices", "0"]) == 2


def test_nbgitpuller_link():
    link = nbgitpuller_link("https://hub.example.org/", notebook="05_async.ipynb", branch="v1")
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https",
        "hub.example.org",
        "/hub/user-redirect/git-pull",
    )
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert query == {
        "repo": "https://github.com/project-aurora/aurora-course",
        "urlpath": "lab/tree/aurora-course/student/05_async.ipynb",  # the student copy
        "branch": "v1",
    }
    instructor = parse_qs(urlsplit(nbgitpuller_link("https://h.org", folder="notebooks")).query)
    assert instructor["urlpath"] == ["lab/tree/aurora-course/notebooks/00_welcome.ipynb"]
    branch = parse_qs(urlsplit(nbgitpuller_link("https://h.org", folder=".")).query)
    assert branch["urlpath"] == ["lab/tree/aurora-course/00_welcome.ipynb"]
    with pytest.raises(ValueError, match="folder"):
        nbgitpuller_link("https://h.org", folder="../x")
    with pytest.raises(ValueError, match="address"):
        nbgitpuller_link("hub.example.org")


def _lock() -> dict[str, tuple[Version, int]]:
    """name -> (pinned version, number of hashes), from ci/workshop.lock."""
    text = LOCK.read_text()
    pins: dict[str, tuple[Version, int]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        first = block.splitlines()[0]
        if first.startswith("#"):
            continue
        match = re.match(r"([A-Za-z0-9_.-]+)==([^ ;\\]+)", first)
        assert match, f"not an exact pin in ci/workshop.lock: {first!r}"
        pins[match[1].lower().replace("_", "-")] = (
            Version(match[2]),
            block.count("--hash=sha256:"),
        )
    return pins


def test_workshop_lock_covers_the_course_with_hashes():
    pins = _lock()
    assert all(hashes for _, hashes in pins.values()), "every pin needs hashes (make lock)"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = [
        *project["project"]["dependencies"],
        *project["project"]["optional-dependencies"]["course"],
        *[
            r  # the lab extra: JupyterLab, so an offline room can open the notebooks (issue 28)
            for r in project["project"]["optional-dependencies"]["lab"]
            if not r.startswith("aurora-helpers")
        ],
        *project["build-system"]["requires"],
    ]
    for line in wanted:
        req = Requirement(line)
        name = req.name.lower().replace("_", "-")
        assert name in pins, f"{name} is not in ci/workshop.lock: run make lock"
        assert req.specifier.contains(pins[name][0], prereleases=True), (
            f"ci/workshop.lock pins {name}=={pins[name][0]}, outside {req.specifier}: make lock"
        )
    # The newest supported JAX: inside the range, in its newest minor series.
    jax_version = pins["jax"][0]
    assert SpecifierSet(ah.JAX_REQUIREMENT.split("jax", 1)[1]).contains(jax_version)
    assert Version(JAX_UPPER_EXCLUSIVE).minor - jax_version.minor == 1
    assert pins["jaxlib"][0] == jax_version
    # Run-only: no test tool in the workshop set.
    assert not {"pytest", "nbval", "ruff", "mypy", "selenium"} & set(pins)
    assert "jupyterlab" in pins


def test_the_offline_kit_installs_without_running_and_lab_never_reaches_the_network():
    """`make install-offline` installs from the wheelhouse alone and runs nothing; `make lab`
    with OFFLINE set refuses to pip-install JupyterLab (scripts/test-offline runs both)."""
    dry = subprocess.run(
        ["make", "-n", "install-offline", "WHEELHOUSE=/nowhere"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "AURORA_WHEELHOUSE=/nowhere scripts/make-venv" in dry and "aurora_course run" not in dry
    makefile = (ROOT / "Makefile").read_text()
    lab = makefile[makefile.index("\nlab:") : makefile.index("\n\n", makefile.index("\nlab:"))]
    assert "OFFLINE" in lab and "install-offline" in lab
    assert (
        "make --no-print-directory install-offline" in (ROOT / "scripts/test-offline").read_text()
    )


def test_every_local_cluster_gets_its_own_free_port():
    from aurora_helpers.cluster import launcher

    ports = {launcher._free_port() for _ in range(20)}
    assert len(ports) > 1  # picked by the system each time, not a fixed number
    import socket

    for port in list(ports)[:3]:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))  # free a moment later too
    assert "_free_port()" in Path(launcher.__file__).read_text()
    for module in Path(launcher.__file__).parent.glob("*.py"):  # no fixed port anywhere
        assert not re.search(r"port\s*=\s*\d{4,5}\b", module.read_text()), module.name


def test_offline_setup_refuses_what_it_cannot_do_offline(tmp_path):
    """make run OFFLINE=1 without a complete wheelhouse, or for the test tools, stops at once."""

    def make_venv(extras: str, wheelhouse: Path) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "AURORA_WHEELHOUSE": str(wheelhouse)}
        return subprocess.run(
            ["scripts/make-venv", str(tmp_path / "venv"), extras],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    (tmp_path / "half").mkdir()  # a download that never finished has no .complete marker
    missing = make_venv("course", tmp_path / "half")
    assert missing.returncode == 1 and "run 'make wheelhouse' first" in missing.stderr
    dev = make_venv("dev", tmp_path / "half")
    assert dev.returncode == 1 and "not the 'dev' extra" in dev.stderr
    assert not (tmp_path / "venv").exists()  # nothing was created
