"""The Colab alignment: jax, jaxlib and every JAX plugin end at one version inside the range."""

import re

import jax
import jaxlib
import nbformat
import pytest

from aurora_course.course import find_notebooks
from aurora_helpers import colab
from aurora_helpers._jax_versions import JAX_OLDEST, JAX_UPPER_EXCLUSIVE
from aurora_helpers.colab import (
    TRAINING_STACK,
    ColabSetupError,
    align_jax,
    align_training_stack,
    installed_jax_packages,
    installed_versions,
    plan_alignment,
    plan_training_stack,
    training_stack_requirements,
)

from .conftest import NOTEBOOKS

NEW = "0.12.0.1"


def fake_requires(name: str) -> list[str]:
    """Requirement strings shaped like jax 0.12.0.1's and its CUDA plugins' metadata."""
    if name == "jax":
        pins = [
            f'jaxlib<={NEW},>={NEW}; extra == "{extra}"'
            for extra in ("tpu", "cuda12", "cuda13", "cuda12-local", "cuda13-local")
        ]
        return [
            f"jaxlib<={NEW},>={NEW}",
            *pins,
            'libtpu==0.0.50.*; extra == "tpu"',
            f'jax-cuda12-plugin[with-cuda]<={NEW},>={NEW}; extra == "cuda12"',
            f'jax-cuda12-plugin<={NEW},>={NEW}; extra == "cuda12-local"',
        ]
    major = re.match(r"jax-cuda(\d+)-plugin", name)
    if major:
        n = major.group(1)
        return [
            f"jax-cuda{n}-pjrt=={NEW}",
            f'nvidia-cublas-cu{n}>=12.1; extra == "with-cuda"',
            f'nvidia-cudnn-cu{n}>=9.8; extra == "with-cuda"',
        ]
    return []


GPU_AFTER_COURSE = {
    "jax": NEW,
    "jaxlib": NEW,
    "jax-cuda12-plugin": "0.7.2",
    "jax-cuda12-pjrt": "0.7.2",
}


def test_gpu_runtime_without_pip_cuda_gets_the_local_extra():
    plan = plan_alignment(GPU_AFTER_COURSE, fake_requires, present=set(GPU_AFTER_COURSE))
    assert plan.version == NEW and plan.extras == ("cuda12-local",)
    assert plan.requirements == (f"jax[cuda12-local]=={NEW}", f"jaxlib=={NEW}")
    assert any("jax-cuda12-plugin 0.7.2 differs" in p for p in plan.problems)


def test_gpu_runtime_with_pip_cuda_gets_the_cuda_extra():
    present = {*GPU_AFTER_COURSE, "nvidia-cublas-cu12", "nvidia-cudnn-cu12"}
    plan = plan_alignment(GPU_AFTER_COURSE, fake_requires, present=present)
    assert plan.requirements == (f"jax[cuda12]=={NEW}", f"jaxlib=={NEW}")


def test_consistent_sets_need_nothing():
    cpu = {"jax": NEW, "jaxlib": NEW}
    assert plan_alignment(cpu, fake_requires, present=set(cpu)).requirements == ()
    gpu = {**GPU_AFTER_COURSE, "jax-cuda12-plugin": NEW, "jax-cuda12-pjrt": NEW}
    plan = plan_alignment(gpu, fake_requires, present=set(gpu))
    assert plan.requirements == () and plan.extras == ("cuda12-local",)


def test_tpu_runtime_gets_jax_tpu_when_libtpu_does_not_match():
    tpu = {"jax": NEW, "jaxlib": NEW, "libtpu": "0.0.17"}
    plan = plan_alignment(tpu, fake_requires, present=set(tpu))
    assert plan.requirements == (f"jax[tpu]=={NEW}", f"jaxlib=={NEW}")
    matching = {**tpu, "libtpu": "0.0.50.1"}
    assert plan_alignment(matching, fake_requires, present=set(matching)).requirements == ()


def test_jax_outside_the_range_is_replaced_inside_it():
    old = {
        "jax": "0.7.2",
        "jaxlib": "0.7.2",
        "jax-cuda12-plugin": "0.7.2",
        "jax-cuda12-pjrt": "0.7.2",
    }
    plan = plan_alignment(old, fake_requires, present=set(old))
    spec = f">={JAX_OLDEST},<{JAX_UPPER_EXCLUSIVE}"
    assert plan.version is None
    assert plan.requirements == (f"jax[cuda12-local]{spec}", f"jaxlib{spec}")


def test_plugins_without_a_jax_extra_are_pinned_directly():
    rocm = {"jax": NEW, "jaxlib": NEW, "jax-rocm7-plugin": "0.7.2", "jax-rocm7-pjrt": "0.7.2"}
    plan = plan_alignment(rocm, fake_requires, present=set(rocm))
    assert plan.requirements == (
        f"jax=={NEW}",
        f"jaxlib=={NEW}",
        f"jax-rocm7-pjrt=={NEW}",
        f"jax-rocm7-plugin=={NEW}",
    )


def test_missing_jax_is_an_error():
    with pytest.raises(ColabSetupError, match="install the course first"):
        plan_alignment({"jaxlib": NEW}, fake_requires, present=set())


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
    aligned = {name: NEW for name in GPU_AFTER_COURSE}
    runtime = FakeRuntime(GPU_AFTER_COURSE, after=aligned)
    result = align_jax(
        loaded_jax=None, pip_install=runtime.pip_install, installed=runtime.installed
    )
    assert runtime.calls == [[f"jax[cuda12-local]=={NEW}", f"jaxlib=={NEW}"]]
    assert result.packages == aligned and not result.restart_needed
    assert "aligned" in result.message and "Restart" not in result.message


def test_restart_is_demanded_only_when_the_loaded_jax_is_stale(metadata):
    aligned = {name: NEW for name in GPU_AFTER_COURSE}
    runtime = FakeRuntime(GPU_AFTER_COURSE, after=aligned)
    stale = align_jax(
        loaded_jax="0.7.2", pip_install=runtime.pip_install, installed=runtime.installed
    )
    assert stale.restart_needed and "Runtime > Restart session" in stale.message
    # Run all again without a restart, JAX already imported at the aligned version: no restart.
    again = align_jax(loaded_jax=NEW, pip_install=runtime.pip_install, installed=runtime.installed)
    assert not again.restart_needed and "already consistent" in again.message
    assert len(runtime.calls) == 1
    # The same JAX loaded, but its plugin changed underneath it: restart.
    runtime = FakeRuntime(GPU_AFTER_COURSE, after=aligned)
    changed = align_jax(
        loaded_jax=NEW, pip_install=runtime.pip_install, installed=runtime.installed
    )
    assert changed.restart_needed


def test_align_fails_loudly_when_pip_leaves_a_mismatch(metadata):
    runtime = FakeRuntime(GPU_AFTER_COURSE, after=GPU_AFTER_COURSE)
    with pytest.raises(ColabSetupError, match=r"still disagree.*jax-cuda12-plugin 0\.7\.2"):
        align_jax(loaded_jax=None, pip_install=runtime.pip_install, installed=runtime.installed)


def test_main_exit_status_asks_for_a_restart(metadata, monkeypatch, capsys):
    aligned = {"jax": NEW, "jaxlib": NEW}
    monkeypatch.setattr(colab, "installed_jax_packages", lambda: aligned)
    assert colab.main(["--loaded-jax", NEW]) == 0
    assert colab.main(["--loaded-jax", "0.7.2"]) == colab.RESTART_EXIT_STATUS
    assert "Restart session" in capsys.readouterr().err


def test_installed_packages_are_read_from_metadata():
    found = installed_jax_packages()
    assert found["jax"] == jax.__version__ and found["jaxlib"] == jaxlib.__version__


STACK = ("flax<0.13,>=0.12.6", "optax<0.3,>=0.2.8", "orbax-checkpoint<0.13,>=0.12.8")


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


COLAB_STACK = {"flax": "0.10.7", "optax": "0.2.5", "orbax-checkpoint": "0.11.24"}
COURSE_STACK = {"flax": "0.12.12", "optax": "0.2.8", "orbax-checkpoint": "0.12.8"}


def test_the_stack_requirements_come_from_the_course_extra():
    assert training_stack_requirements(course_requires) == STACK
    assert training_stack_requirements(lambda name: []) == ()


def test_the_installed_course_declares_the_stack_in_pyproject():
    import tomllib

    from .conftest import ROOT

    course = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["course"]
    declared = {colab._requirement_name(r) for r in course}
    assert set(TRAINING_STACK) <= declared


def test_colabs_older_stack_is_replaced_holding_jax():
    plan = plan_training_stack(COLAB_STACK, STACK, NEW)
    assert plan.requirements == (*STACK, f"jax=={NEW}", f"jaxlib=={NEW}")
    assert any("flax 0.10.7 is outside" in p for p in plan.problems)
    assert any("orbax-checkpoint 0.11.24 is outside" in p for p in plan.problems)


def test_a_missing_library_is_installed_and_a_consistent_stack_left_alone():
    missing = {k: v for k, v in COURSE_STACK.items() if k != "optax"}
    plan = plan_training_stack(missing, STACK, None)
    assert plan.requirements == STACK and plan.problems == (
        "optax is not installed (the course needs optax<0.3,>=0.2.8)",
    )
    assert plan_training_stack(COURSE_STACK, STACK, NEW).requirements == ()
    assert plan_training_stack({}, (), NEW).requirements == ()


def test_align_training_stack_installs_then_verifies():
    runtime = FakeRuntime(COLAB_STACK, after=COURSE_STACK)
    result = align_training_stack(
        NEW, pip_install=runtime.pip_install, installed=runtime.installed, requires=course_requires
    )
    assert runtime.calls == [[*STACK, f"jax=={NEW}", f"jaxlib=={NEW}"]]
    assert result.packages == COURSE_STACK and "aligned: flax 0.12.12" in result.message
    again = align_training_stack(
        NEW, pip_install=runtime.pip_install, installed=runtime.installed, requires=course_requires
    )
    assert len(runtime.calls) == 1 and "in range" in again.message


def test_align_training_stack_fails_loudly_when_pip_leaves_an_old_release():
    runtime = FakeRuntime(COLAB_STACK, after={**COURSE_STACK, "flax": "0.10.7"})
    with pytest.raises(ColabSetupError, match=r"still disagree.*flax 0\.10\.7"):
        align_training_stack(
            NEW, pip_install=runtime.pip_install, installed=runtime.installed,
            requires=course_requires,
        )  # fmt: skip


def test_main_restarts_when_the_stack_changed_under_a_loaded_jax(metadata, monkeypatch, capsys):
    monkeypatch.setattr(colab, "_requires", course_requires)
    monkeypatch.setattr(colab, "installed_jax_packages", lambda: {"jax": NEW, "jaxlib": NEW})
    runtime = FakeRuntime(COLAB_STACK, after=COURSE_STACK)
    monkeypatch.setattr(colab, "_pip_install", runtime.pip_install)
    monkeypatch.setattr(colab, "installed_versions", lambda names: runtime.installed())
    assert colab.main(["--loaded-jax", NEW]) == colab.RESTART_EXIT_STATUS
    assert "training libraries changed" in capsys.readouterr().err
    assert colab.main(["--loaded-jax", NEW]) == 0  # after the restart: nothing changes
    assert colab.main([]) == 0


def test_installed_versions_are_read_from_metadata():
    found = installed_versions(("jax", "no-such-distribution-here"))
    assert found == {"jax": jax.__version__}


def _colab_cell(path):
    return next(c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code").source


# Notebook 07 is owned by another engineer this round; its cell is updated when the branches merge.
@pytest.mark.parametrize("path", find_notebooks(NOTEBOOKS), ids=lambda p: p.stem[:2])
def test_every_colab_cell_aligns_jax(path):
    source = _colab_cell(path)
    assert source == _colab_cell(NOTEBOOKS / "00_welcome.ipynb"), "Colab cells must be identical"
    assert 'os.environ.get(\n        "AURORA_INSTALL_TARGET"' in source
    assert '"-m", "aurora_helpers.colab", "--loaded-jax"' in source
