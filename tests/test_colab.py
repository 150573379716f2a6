"""The Colab alignment: jax, jaxlib, every JAX plugin and the training stack end at the tested set."""

import re
import subprocess

import jax
import jaxlib
import nbformat
import pytest

from aurora_course.course import find_notebooks
from aurora_helpers import _tested, colab
from aurora_helpers.colab import (
    TRAINING_STACK,
    ColabSetupError,
    PipInstallError,
    align_jax,
    align_training_stack,
    explain_pip_failure,
    in_range,
    installed_jax_packages,
    installed_versions,
    plan_alignment,
    plan_training_stack,
    training_stack_requirements,
)

from .conftest import NOTEBOOKS

# Fixed pins shaped like the index (jax 0.12.1 out, its CUDA 12 plugin not yet), so that
# these tests do not change meaning when `make pin` rewrites aurora_helpers/_tested.py.
TESTED_JAX = "0.12.1"
CUDA12_RELEASE = "0.12.0.1"
NEWER = "0.12.2"  # newer than the tested release: what an unconstrained install could bring
FAKE_TESTED = {
    "jax": TESTED_JAX,
    "jaxlib": TESTED_JAX,
    "flax": "0.12.12",
    "optax": "0.2.8",
    "orbax-checkpoint": "0.12.8",
}
FAKE_PLUGIN_RELEASES = {"cuda12": CUDA12_RELEASE, "cuda13": TESTED_JAX}
CUDA12_NOTE = (
    f"jax-cuda12-plugin has no {TESTED_JAX} release yet; jax, jaxlib and the CUDA 12 plugins go to"
    f" {CUDA12_RELEASE}, the newest release that has them all."
)


@pytest.fixture(autouse=True)
def pins(monkeypatch):
    monkeypatch.setattr(colab, "TESTED", FAKE_TESTED)
    monkeypatch.setattr(colab, "PLUGIN_RELEASES", FAKE_PLUGIN_RELEASES)


def fake_requires(name: str) -> list[str]:
    """Requirement strings shaped like jax's and its CUDA plugins' metadata."""
    if name == "jax":
        pins = [
            f'jaxlib<={TESTED_JAX},>={TESTED_JAX}; extra == "{extra}"'
            for extra in ("tpu", "cuda12", "cuda13", "cuda12-local", "cuda13-local")
        ]
        return [
            f"jaxlib<={TESTED_JAX},>={TESTED_JAX}",
            *pins,
            'libtpu==0.0.50.*; extra == "tpu"',
            f'jax-cuda12-plugin[with-cuda]<={TESTED_JAX},>={TESTED_JAX}; extra == "cuda12"',
            f'jax-cuda12-plugin<={TESTED_JAX},>={TESTED_JAX}; extra == "cuda12-local"',
            f'jax-cuda13-plugin<={TESTED_JAX},>={TESTED_JAX}; extra == "cuda13-local"',
        ]
    major = re.match(r"jax-cuda(\d+)-plugin", name)
    if major:
        n = major.group(1)
        return [
            f"jax-cuda{n}-pjrt=={TESTED_JAX}",
            f'nvidia-cublas-cu{n}>=12.1; extra == "with-cuda"',
            f'nvidia-cudnn-cu{n}>=9.8; extra == "with-cuda"',
        ]
    return []


def plan(installed, present=None):
    return plan_alignment(installed, fake_requires, present=set(installed) | (present or set()))


# Colab's GPU runtime after the course's install: the newest jax, its own CUDA 12 plugin.
GPU_AFTER_COURSE = {
    "jax": TESTED_JAX,
    "jaxlib": TESTED_JAX,
    "jax-cuda12-plugin": "0.7.2",
    "jax-cuda12-pjrt": "0.7.2",
}
GPU_ALIGNED = {name: CUDA12_RELEASE for name in GPU_AFTER_COURSE}


def test_the_tested_version_is_chosen_over_a_newer_installed_one():
    newer = plan({"jax": NEWER, "jaxlib": NEWER})
    assert newer.version == TESTED_JAX and newer.note is None
    assert newer.requirements == (f"jax=={TESTED_JAX}", f"jaxlib=={TESTED_JAX}")
    assert "jax 0.12.2 differs from the target 0.12.1" in newer.problems


def test_a_trailing_cuda12_plugin_takes_the_set_to_its_release_with_a_note():
    gpu = plan(GPU_AFTER_COURSE)
    assert gpu.version == CUDA12_RELEASE and gpu.extras == ("cuda12-local",)
    assert gpu.requirements == (f"jax[cuda12-local]=={CUDA12_RELEASE}", f"jaxlib=={CUDA12_RELEASE}")
    assert gpu.note == CUDA12_NOTE
    assert any("jax-cuda12-plugin 0.7.2 differs" in p for p in gpu.problems)
    # Already there (the run after the restart): nothing to install; the note says it stays.
    aligned = plan(GPU_ALIGNED)
    assert aligned.requirements == () and aligned.version == CUDA12_RELEASE
    assert aligned.note == CUDA12_NOTE.replace("go to", "stay at")


def test_the_note_follows_the_generated_release_not_a_constant(monkeypatch):
    monkeypatch.setattr(colab, "PLUGIN_RELEASES", {"cuda12": "0.12.0"})
    assert plan(GPU_AFTER_COURSE).version == "0.12.0"
    monkeypatch.setattr(colab, "PLUGIN_RELEASES", {"cuda12": TESTED_JAX})  # it caught up
    caught_up = plan(GPU_AFTER_COURSE)
    assert caught_up.version == TESTED_JAX and caught_up.note is None


def test_gpu_runtime_with_pip_cuda_gets_the_cuda_extra():
    gpu = plan(GPU_AFTER_COURSE, present={"nvidia-cublas-cu12", "nvidia-cudnn-cu12"})
    assert gpu.requirements == (f"jax[cuda12]=={CUDA12_RELEASE}", f"jaxlib=={CUDA12_RELEASE}")


def test_cuda13_keeps_the_tested_version():
    cuda13 = {
        "jax": TESTED_JAX,
        "jaxlib": TESTED_JAX,
        "jax-cuda13-plugin": "0.7.2",
        "jax-cuda13-pjrt": "0.7.2",
    }
    gpu = plan(cuda13)
    assert gpu.version == TESTED_JAX and gpu.note is None
    assert gpu.requirements == (f"jax[cuda13-local]=={TESTED_JAX}", f"jaxlib=={TESTED_JAX}")


@pytest.mark.parametrize("family", ["rocm7", "cuda14"])
def test_a_family_without_pinned_releases_keeps_the_tested_version(family):
    # No jax extra names these: the plugins are pinned directly.
    other = {
        "jax": NEWER,
        "jaxlib": NEWER,
        f"jax-{family}-plugin": "0.7.2",
        f"jax-{family}-pjrt": "0.7.2",
    }
    gpu = plan(other)
    assert gpu.version == TESTED_JAX and gpu.note is None
    assert gpu.requirements == (
        f"jax=={TESTED_JAX}",
        f"jaxlib=={TESTED_JAX}",
        f"jax-{family}-pjrt=={TESTED_JAX}",
        f"jax-{family}-plugin=={TESTED_JAX}",
    )


def test_consistent_sets_at_the_target_need_nothing():
    assert plan({"jax": TESTED_JAX, "jaxlib": TESTED_JAX}).requirements == ()
    # Consistent, in the course's range, but not the tested release: moved to it.
    older = plan({"jax": "0.11.2", "jaxlib": "0.11.2"})
    assert older.requirements == (f"jax=={TESTED_JAX}", f"jaxlib=={TESTED_JAX}")


def test_tpu_runtime_gets_jax_tpu_when_libtpu_does_not_match():
    tpu = {"jax": TESTED_JAX, "jaxlib": TESTED_JAX, "libtpu": "0.0.17"}
    assert plan(tpu).requirements == (f"jax[tpu]=={TESTED_JAX}", f"jaxlib=={TESTED_JAX}")
    assert plan({**tpu, "libtpu": "0.0.50.1"}).requirements == ()


def test_jax_outside_the_range_goes_to_the_target():
    old = {**GPU_AFTER_COURSE, "jax": "0.7.2", "jaxlib": "0.7.2"}
    assert plan(old).requirements == (
        f"jax[cuda12-local]=={CUDA12_RELEASE}",
        f"jaxlib=={CUDA12_RELEASE}",
    )


def test_missing_jax_is_an_error():
    with pytest.raises(ColabSetupError, match="install the course first"):
        plan_alignment({"jaxlib": TESTED_JAX}, fake_requires, present=set())


def test_the_generated_pins_are_inside_the_course_ranges():
    # The real aurora_helpers/_tested.py, as `make pin` wrote it.
    assert in_range(_tested.TESTED["jax"]) and _tested.TESTED["jaxlib"] == _tested.TESTED["jax"]
    for release in _tested.PLUGIN_RELEASES.values():
        assert in_range(release) and colab.parse_version(release) <= colab.parse_version(
            _tested.TESTED["jax"]
        )
    stack = {name: _tested.TESTED[name] for name in TRAINING_STACK}
    assert plan_training_stack(stack, training_stack_requirements(pyproject_requires), None) == (
        colab.StackPlan((), ())
    )


def test_the_aligner_reads_the_generated_pins(monkeypatch):
    monkeypatch.undo()  # drop the fixed pins of the `pins` fixture
    assert colab.TESTED is _tested.TESTED and colab.PLUGIN_RELEASES is _tested.PLUGIN_RELEASES


class FakeRuntime:
    """Installed packages that change when ``pip_install`` runs (as pip would)."""

    def __init__(self, packages, after=None):
        self.packages = dict(packages)
        self.after = after
        self.calls: list[list[str]] = []

    def installed(self):
        return dict(self.packages)

    def pip_install(self, requirements):
        self.calls.append(requirements)
        if self.after is not None:
            self.packages = dict(self.after)


@pytest.fixture
def metadata(monkeypatch):
    monkeypatch.setattr(colab, "_requires", fake_requires)
    monkeypatch.setattr(colab, "installed_names", lambda: set())


def test_align_installs_then_verifies(metadata):
    runtime = FakeRuntime(GPU_AFTER_COURSE, after=GPU_ALIGNED)
    result = align_jax(
        loaded_jax=None, pip_install=runtime.pip_install, installed=runtime.installed
    )
    assert runtime.calls == [[f"jax[cuda12-local]=={CUDA12_RELEASE}", f"jaxlib=={CUDA12_RELEASE}"]]
    assert result.packages == GPU_ALIGNED and not result.restart_needed
    assert result.message.splitlines()[0] == CUDA12_NOTE  # the note is one line of its own
    assert "aligned" in result.message and "Restart" not in result.message


def test_restart_is_demanded_only_when_the_loaded_jax_is_stale(metadata):
    runtime = FakeRuntime(GPU_AFTER_COURSE, after=GPU_ALIGNED)
    stale = align_jax(
        loaded_jax="0.7.2", pip_install=runtime.pip_install, installed=runtime.installed
    )
    assert stale.restart_needed and "Runtime > Restart session" in stale.message
    # Run all again without a restart, JAX already imported at the aligned version: no restart.
    again = align_jax(
        loaded_jax=CUDA12_RELEASE, pip_install=runtime.pip_install, installed=runtime.installed
    )
    assert not again.restart_needed and "already consistent" in again.message
    assert len(runtime.calls) == 1
    # The same JAX loaded, but its plugin changed underneath it: restart.
    mixed = {**GPU_ALIGNED, "jax-cuda12-plugin": "0.7.2", "jax-cuda12-pjrt": "0.7.2"}
    runtime = FakeRuntime(mixed, after=GPU_ALIGNED)
    changed = align_jax(
        loaded_jax=CUDA12_RELEASE, pip_install=runtime.pip_install, installed=runtime.installed
    )
    assert changed.restart_needed


def test_align_fails_loudly_when_pip_leaves_a_mismatch(metadata):
    runtime = FakeRuntime(GPU_AFTER_COURSE, after=GPU_AFTER_COURSE)
    with pytest.raises(ColabSetupError, match=r"still disagree.*jax-cuda12-plugin 0\.7\.2"):
        align_jax(loaded_jax=None, pip_install=runtime.pip_install, installed=runtime.installed)


def test_main_exit_status_asks_for_a_restart(metadata, monkeypatch, capsys):
    aligned = {"jax": TESTED_JAX, "jaxlib": TESTED_JAX}
    monkeypatch.setattr(colab, "installed_jax_packages", lambda: aligned)
    monkeypatch.setattr(colab, "installed_versions", lambda names: dict(FAKE_TESTED))
    assert colab.main(["--loaded-jax", TESTED_JAX]) == 0
    assert colab.main(["--loaded-jax", "0.7.2"]) == colab.RESTART_EXIT_STATUS
    assert "Restart session" in capsys.readouterr().err


def test_main_says_in_one_line_when_the_set_stays_inconsistent(metadata, monkeypatch, capsys):
    monkeypatch.setattr(colab, "installed_jax_packages", lambda: dict(GPU_AFTER_COURSE))
    monkeypatch.setattr(colab, "_pip_install", lambda requirements: None)  # installs nothing
    assert colab.main([]) == colab.SETUP_FAILED_EXIT_STATUS
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Colab setup stopped:") and "pip install" in err[0]


# What pip 25 writes when jax's cuda12-local extra names a plugin release the index lacks.
PIP_NO_PLUGIN = f"""\
ERROR: Could not find a version that satisfies the requirement jax-cuda12-plugin<={TESTED_JAX},\
>={TESTED_JAX}; extra == "cuda12-local" (from jax[cuda12-local]) (from versions: 0.7.2, 0.12.0.1)
ERROR: No matching distribution found for jax-cuda12-plugin<={TESTED_JAX},>={TESTED_JAX}; \
extra == "cuda12-local"
"""
# ...and when it cannot reach the index.
PIP_OFFLINE = """\
WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after \
connection broken by 'NewConnectionError('<HTTPSConnection object>: Failed to establish a new \
connection: [Errno -3] Temporary failure in name resolution')': /simple/jax/
ERROR: Could not find a version that satisfies the requirement jax==0.12.1 (from versions: none)
ERROR: No matching distribution found for jax==0.12.1
"""


def failing_pip(output, returncode=1):
    def pip_install(requirements):
        raise PipInstallError(requirements, returncode, output)

    return pip_install


def test_a_missing_plugin_release_stops_with_status_4_and_one_line(metadata, monkeypatch, capsys):
    # The issue: pins that do not know the CUDA 12 plugin trails, on Colab's GPU runtime.
    monkeypatch.setattr(colab, "PLUGIN_RELEASES", {})
    monkeypatch.setattr(colab, "installed_jax_packages", lambda: dict(GPU_AFTER_COURSE))
    monkeypatch.setattr(colab, "_pip_install", failing_pip(PIP_NO_PLUGIN))
    assert colab.main(["--loaded-jax", ""]) == colab.PIP_FAILED_EXIT_STATUS == 4
    out = capsys.readouterr()
    assert out.out == ""
    [line] = out.err.splitlines()
    assert line.startswith(
        f"Colab setup stopped: the package index has no jax-cuda12-plugin=={TESTED_JAX} yet"
    )
    assert "Runtime > Change runtime type > CPU" in line


def test_pip_failures_are_explained_by_what_pip_could_not_install():
    offline = explain_pip_failure(
        PipInstallError(["jax==0.12.1", "jaxlib==0.12.1"], 1, PIP_OFFLINE)
    )
    assert offline.cause == "offline" and "to install jax==0.12.1." in offline.line
    assert "online" in offline.line
    flax = "ERROR: No matching distribution found for flax==0.12.12\n"
    missing = explain_pip_failure(PipInstallError(["flax==0.12.12"], 1, flax))
    assert missing.cause == "missing" and "has no flax==0.12.12," in missing.line
    assert "`pip index versions flax`" in missing.line
    for failure in (offline, missing):
        assert "\n" not in failure.line


def test_an_unrecognised_pip_failure_shows_pip_output_then_one_line(metadata, monkeypatch, capsys):
    monkeypatch.setattr(colab, "installed_jax_packages", lambda: {"jax": NEWER, "jaxlib": NEWER})
    monkeypatch.setattr(colab, "_pip_install", failing_pip("ERROR: No space left on device\n", 2))
    assert colab.main([]) == colab.PIP_FAILED_EXIT_STATUS
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "ERROR: No space left on device"  # not swallowed
    assert err[1] == (
        f'Colab setup stopped: `pip install "jax=={TESTED_JAX}" "jaxlib=={TESTED_JAX}"` failed with'
        " status 2 (pip's messages are above). Fix what they name, then run this cell again."
    )


def test_pip_install_raises_with_what_pip_wrote(monkeypatch, capsys):
    def run(command, **kwargs):
        assert command[-2:] == ["jax==9", "jaxlib==9"] and kwargs["stderr"] == subprocess.PIPE
        if kwargs.get("check"):  # as subprocess.run would: no output for the explanation
            raise subprocess.CalledProcessError(1, command)
        return subprocess.CompletedProcess(command, 1, None, PIP_OFFLINE)

    monkeypatch.setattr(colab.subprocess, "run", run)
    with pytest.raises(PipInstallError) as raised:
        colab._pip_install(["jax==9", "jaxlib==9"])
    assert raised.value.output == PIP_OFFLINE and raised.value.returncode == 1
    assert capsys.readouterr().err == ""  # main decides what to show


def test_installed_packages_are_read_from_metadata():
    found = installed_jax_packages()
    assert found["jax"] == jax.__version__ and found["jaxlib"] == jaxlib.__version__


STACK = ("flax<0.13,>=0.12.6", "optax<0.3,>=0.2.8", "orbax-checkpoint<0.13,>=0.12.8")
TESTED_STACK = ("flax==0.12.12", "optax==0.2.8", "orbax-checkpoint==0.12.8")


def course_requires(name: str) -> list[str]:
    """Requirement strings shaped like an installed aurora-helpers' metadata."""
    if name == "aurora-helpers":
        return [
            "jax<0.13,>=0.9.0",
            'papermill<3,>=2.6; extra == "course"',
            *(f'{r}; extra == "course"' for r in STACK),
            'pytest<10,>=8.2; extra == "dev"',
        ]
    return fake_requires(name)


def pyproject_requires(name: str) -> list[str]:
    """The ``course`` extra of this checkout's pyproject.toml, as installed metadata lists it."""
    import tomllib

    from .conftest import ROOT

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [f'{r}; extra == "course"' for r in project["optional-dependencies"]["course"]]


COLAB_STACK = {"flax": "0.10.7", "optax": "0.2.5", "orbax-checkpoint": "0.11.24"}
COURSE_STACK = {"flax": "0.12.12", "optax": "0.2.8", "orbax-checkpoint": "0.12.8"}


def test_the_stack_requirements_come_from_the_course_extra():
    assert training_stack_requirements(course_requires) == STACK
    assert training_stack_requirements(lambda name: []) == ()


def test_the_installed_course_declares_the_stack_in_pyproject():
    declared = {colab._requirement_name(r) for r in pyproject_requires("aurora-helpers")}
    assert set(TRAINING_STACK) <= declared


def test_the_stack_is_pinned_to_the_tested_releases_holding_jax():
    assert colab.tested_stack_requirements() == TESTED_STACK
    plan = plan_training_stack(COLAB_STACK, TESTED_STACK, CUDA12_RELEASE)
    assert plan.requirements == (
        *TESTED_STACK,
        f"jax=={CUDA12_RELEASE}",
        f"jaxlib=={CUDA12_RELEASE}",
    )
    assert "flax 0.10.7 does not meet flax==0.12.12" in plan.problems
    # A newer flax inside the course's range is still replaced by the tested one.
    newer = {**COURSE_STACK, "flax": "0.12.13"}
    assert plan_training_stack(newer, STACK, None).requirements == ()
    assert plan_training_stack(newer, TESTED_STACK, None).requirements == TESTED_STACK


def test_a_missing_library_is_installed_and_a_tested_stack_left_alone():
    missing = {k: v for k, v in COURSE_STACK.items() if k != "optax"}
    plan = plan_training_stack(missing, TESTED_STACK, None)
    assert plan.requirements == TESTED_STACK and plan.problems == (
        "optax is not installed (the course needs optax==0.2.8)",
    )
    assert plan_training_stack(COURSE_STACK, TESTED_STACK, TESTED_JAX).requirements == ()


def test_align_training_stack_installs_the_tested_releases_then_verifies():
    runtime = FakeRuntime(COLAB_STACK, after=COURSE_STACK)
    result = align_training_stack(
        CUDA12_RELEASE, pip_install=runtime.pip_install, installed=runtime.installed
    )
    assert runtime.calls == [[*TESTED_STACK, f"jax=={CUDA12_RELEASE}", f"jaxlib=={CUDA12_RELEASE}"]]
    assert result.packages == COURSE_STACK
    assert "pinned to the tested releases: flax 0.12.12" in result.message
    again = align_training_stack(
        CUDA12_RELEASE, pip_install=runtime.pip_install, installed=runtime.installed
    )
    assert len(runtime.calls) == 1 and "already at the tested releases" in again.message


def test_align_training_stack_fails_loudly_when_pip_leaves_an_old_release():
    runtime = FakeRuntime(COLAB_STACK, after={**COURSE_STACK, "flax": "0.10.7"})
    with pytest.raises(ColabSetupError, match=r"still disagree.*flax 0\.10\.7"):
        align_training_stack(
            TESTED_JAX, pip_install=runtime.pip_install, installed=runtime.installed
        )


def test_main_restarts_when_the_stack_changed_under_a_loaded_jax(metadata, monkeypatch, capsys):
    monkeypatch.setattr(
        colab, "installed_jax_packages", lambda: {"jax": TESTED_JAX, "jaxlib": TESTED_JAX}
    )
    runtime = FakeRuntime(COLAB_STACK, after=COURSE_STACK)
    monkeypatch.setattr(colab, "_pip_install", runtime.pip_install)
    monkeypatch.setattr(colab, "installed_versions", lambda names: runtime.installed())
    assert colab.main(["--loaded-jax", TESTED_JAX]) == colab.RESTART_EXIT_STATUS
    assert "training libraries changed" in capsys.readouterr().err
    assert runtime.calls == [[*TESTED_STACK, f"jax=={TESTED_JAX}", f"jaxlib=={TESTED_JAX}"]]
    assert colab.main(["--loaded-jax", TESTED_JAX]) == 0  # after the restart: nothing changes
    assert colab.main([]) == 0


def test_installed_versions_are_read_from_metadata():
    found = installed_versions(("jax", "no-such-distribution-here"))
    assert found == {"jax": jax.__version__}


def _colab_cell(path):
    return next(c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code").source


@pytest.mark.parametrize("path", find_notebooks(NOTEBOOKS), ids=lambda p: p.stem[:2])
def test_every_colab_cell_aligns_jax(path):
    source = _colab_cell(path)
    assert source == _colab_cell(NOTEBOOKS / "00_welcome.ipynb"), "Colab cells must be identical"
    assert 'os.environ.get(\n        "AURORA_INSTALL_TARGET"' in source
    assert '"-m", "aurora_helpers.colab", "--loaded-jax"' in source
    # A failed install or alignment (restart, missing wheel, offline) stops the cell without a
    # traceback of its own: both pip calls end in a SystemExit, neither in check=True.
    assert source.count("raise SystemExit(") == 2 and "check=True" not in source
