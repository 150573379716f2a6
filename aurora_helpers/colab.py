"""Colab: leave jax, jaxlib and every installed JAX plugin at one version inside the course's range.

Colab's runtimes preinstall an older JAX, on GPU runtimes with ``jax-cuda12-plugin`` and
``jax-cuda12-pjrt`` at that same version, on TPU runtimes with ``libtpu``. Installing the course
upgrades jax and jaxlib but not the plugins, and JAX then skips a CUDA plugin whose version differs
from jaxlib's with only a warning: the course would run on the CPU. Each notebook's Colab cell runs
``python -m aurora_helpers.colab`` right after installing the course (in a subprocess, so that the
notebook's own kernel has not imported JAX yet). What to align is decided from the installed
distributions (``importlib.metadata``), not from whether a GPU is visible.

Colab also preinstalls its own Flax, Optax and Orbax, releases made for its older JAX; notebook 10
needs the ones the course's ``course`` extra names. The same command then brings those three to
the course's ranges (read from the installed ``aurora-helpers``'s own metadata, so the ranges live
in ``pyproject.toml`` alone), holding jax and jaxlib at the version just aligned.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata

from ._jax_versions import JAX_OLDEST, JAX_REQUIREMENT, JAX_UPPER_EXCLUSIVE, parse_version

#: Distributions that must carry jax's own version: ``jax-cuda12-plugin``, ``jax-cuda13-pjrt``...
_PLUGIN = re.compile(r"^jax-(?P<kind>cuda|rocm)(?P<major>\d+)-(?:plugin|pjrt)$")
#: TPU runtime library names (its version numbers differ from jax's; jax's ``tpu`` extra pins it).
_TPU_LIBRARIES = ("libtpu", "libtpu-nightly")
#: Exit status of ``python -m aurora_helpers.colab`` when the runtime must be restarted.
RESTART_EXIT_STATUS = 3
#: The training libraries of notebook 10, whose ranges the ``course`` extra declares.
TRAINING_STACK = ("flax", "optax", "orbax-checkpoint")
#: The distribution whose metadata declares those ranges.
COURSE_DISTRIBUTION = "aurora-helpers"


class ColabSetupError(RuntimeError):
    """The JAX packages could not be brought to one consistent version."""


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return _normalize(match.group(1)) if match else ""


def installed_jax_packages() -> dict[str, str]:
    """``{name: version}`` of jax, jaxlib, every ``jax-cudaN-*`` / ``jax-rocmN-*`` plugin and libtpu."""
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = _normalize(dist.metadata["Name"] or "")
        if name in ("jax", "jaxlib", *_TPU_LIBRARIES) or _PLUGIN.match(name):
            found[name] = dist.version
    return found


def _requires(name: str) -> list[str]:
    try:
        return metadata.requires(name) or []
    except metadata.PackageNotFoundError:
        return []


def _extra_requirements(requires: Sequence[str], extra: str) -> list[str]:
    marker = re.compile(rf"""extra\s*==\s*["']{re.escape(extra)}["']""")
    return [r.split(";")[0].strip() for r in requires if marker.search(r)]


def _satisfies(version: str, requirement: str) -> bool:
    """Whether ``version`` meets the ``==`` / ``<=,>=`` pins jax puts on its extras' packages."""
    found = parse_version(version)
    for op, wanted in re.findall(r"(==|>=|<=)\s*([0-9][0-9A-Za-z.*+]*)", requirement):
        if op == "==" and wanted.endswith(".*"):
            ok = (version + ".").startswith(wanted[:-1])
        else:
            pin = parse_version(wanted)
            ok = {"==": found == pin, ">=": found >= pin, "<=": found <= pin}[op]
        if not ok:
            return False
    return True


def in_range(version: str) -> bool:
    """Whether a JAX version lies inside the course's supported range."""
    found = parse_version(version)
    return parse_version(JAX_OLDEST) <= found < parse_version(JAX_UPPER_EXCLUSIVE)


@dataclass(frozen=True)
class AlignmentPlan:
    """What :func:`plan_alignment` decided: the version to hold, and what pip must install."""

    version: str | None
    """The version jax, jaxlib and the plugins end at (None: pip picks the newest in range)."""
    extras: tuple[str, ...]
    """jax's extras for the installed plugins: ``cuda12``, ``cuda12-local``, ``tpu``..."""
    requirements: tuple[str, ...]
    """pip requirements to install; empty when everything already agrees."""
    problems: tuple[str, ...]
    """Why something must change, one line per package."""


def plan_alignment(
    installed: Mapping[str, str],
    requires: Callable[[str], list[str]] = _requires,
    present: set[str] | None = None,
) -> AlignmentPlan:
    """Decide, from the installed JAX distributions, how to make them agree.

    Args:
        installed: ``{name: version}`` as :func:`installed_jax_packages` returns.
        requires: the requirement strings of an installed distribution (``importlib.metadata``).
        present: normalized names of every installed distribution (default: read them); a CUDA
            plugin whose ``with-cuda`` wheels are present gets the ``cudaN`` extra, else ``cudaN-local``.

    Raises:
        ColabSetupError: jax is not installed at all.
    """
    if "jax" not in installed:
        raise ColabSetupError(
            "jax is not installed; install the course first (the cell above does)."
        )
    if present is None:
        present = installed_names()
    jax_version = installed["jax"]
    problems: list[str] = []
    version: str | None = jax_version
    if not in_range(jax_version):
        version = None
        problems.append(f"jax {jax_version} is outside the course's range ({JAX_REQUIREMENT})")
    elif installed.get("jaxlib") != jax_version:
        problems.append(
            f"jaxlib {installed.get('jaxlib', 'missing')} differs from jax {jax_version}"
        )
    jax_extras = set(re.findall(r"""extra\s*==\s*["']([^"']+)["']""", " ".join(requires("jax"))))
    extras: list[str] = []
    direct: list[str] = []
    for name, found in sorted(installed.items()):
        plugin = _PLUGIN.match(name)
        if plugin is None:
            continue
        if version is not None and found != version:
            problems.append(f"{name} {found} differs from jax {jax_version}; JAX would skip it")
        family = f"{plugin['kind']}{plugin['major']}"
        plugin_name = f"jax-{family}-plugin"
        with_cuda = {
            _requirement_name(r) for r in _extra_requirements(requires(plugin_name), "with-cuda")
        }
        extra = family if with_cuda & present else f"{family}-local"
        if extra in jax_extras or family in jax_extras:
            extra = extra if extra in jax_extras else family
            if extra not in extras:
                extras.append(extra)
        else:
            direct.append(name)
    tpu = [name for name in _TPU_LIBRARIES if name in installed]
    if tpu:
        extras.append("tpu")
        pins = [
            r for r in _extra_requirements(requires("jax"), "tpu") if _requirement_name(r) in tpu
        ]
        for pin in pins:
            name = _requirement_name(pin)
            if not _satisfies(installed[name], pin):
                problems.append(
                    f"{name} {installed[name]} does not meet jax {jax_version}'s {pin!r}"
                )
    if not problems:
        return AlignmentPlan(version, tuple(extras), (), ())
    spec = f"=={version}" if version else f">={JAX_OLDEST},<{JAX_UPPER_EXCLUSIVE}"
    jax_req = f"jax[{','.join(extras)}]{spec}" if extras else f"jax{spec}"
    requirements = [jax_req, f"jaxlib{spec}", *(f"{name}{spec}" for name in direct)]
    return AlignmentPlan(version, tuple(extras), tuple(requirements), tuple(problems))


def installed_names() -> set[str]:
    """Normalized names of every installed distribution."""
    return {_normalize(d.metadata["Name"] or "") for d in metadata.distributions()}


@dataclass(frozen=True)
class AlignmentResult:
    """The outcome of :func:`align_jax`."""

    plan: AlignmentPlan
    packages: dict[str, str]
    """The JAX distributions installed afterwards, ``{name: version}``."""
    restart_needed: bool

    @property
    def message(self) -> str:
        listed = ", ".join(f"{name} {version}" for name, version in sorted(self.packages.items()))
        done = "aligned" if self.plan.requirements else "already consistent"
        text = f"JAX packages {done}: {listed}."
        if self.restart_needed:
            text += (
                "\nThis runtime had imported JAX before these packages were installed, so it"
                " still runs the old ones. Restart it: Runtime > Restart session (Ctrl+M .), then"
                " run the notebook again from the top; this cell will then find everything in place."
            )
        return text


PipRunner = Callable[[list[str]], object]


def _pip_install(requirements: list[str]) -> object:
    command = [sys.executable, "-m", "pip", "install", "-q", *requirements]
    return subprocess.run(command, check=True)


def align_jax(
    *,
    loaded_jax: str | None,
    pip_install: PipRunner = _pip_install,
    installed: Callable[[], dict[str, str]] | None = None,
) -> AlignmentResult:
    """Bring jax, jaxlib and every installed JAX plugin to one version inside the course's range.

    Args:
        loaded_jax: the version of JAX the notebook's kernel had imported before the install, or
            None if it had not. The runtime must be restarted when that JAX differs from the one
            installed now, or when this call changed any package under an imported JAX.
        pip_install: installs a list of requirements (tests replace it).
        installed: reads the installed JAX distributions (default: :func:`installed_jax_packages`).

    Raises:
        ColabSetupError: after installing, the packages still disagree (the message says which).
    """
    if installed is None:
        installed = installed_jax_packages
    plan = plan_alignment(installed())
    if plan.requirements:
        pip_install(list(plan.requirements))
        after = plan_alignment(installed())
        if after.requirements:
            raise ColabSetupError(
                "JAX's packages still disagree after installing "
                f"{' '.join(plan.requirements)}: {'; '.join(after.problems)}. Run "
                f'`pip install "{after.requirements[0]}"` in a cell, then restart the runtime.'
            )
    packages = installed()
    stale = bool(loaded_jax) and (loaded_jax != packages.get("jax") or bool(plan.requirements))
    return AlignmentResult(plan, packages, restart_needed=stale)


def training_stack_requirements(
    requires: Callable[[str], list[str]] | None = None,
) -> tuple[str, ...]:
    """The ``course`` extra's requirements on :data:`TRAINING_STACK` (e.g. ``flax<0.13,>=0.12.6``).

    Empty when the installed course declares none (an older release of the helpers).
    """
    wanted = _extra_requirements((requires or _requires)(COURSE_DISTRIBUTION), "course")
    return tuple(r for r in wanted if _requirement_name(r) in TRAINING_STACK)


def installed_versions(names: Sequence[str]) -> dict[str, str]:
    """``{name: version}`` of those of ``names`` that are installed."""
    found: dict[str, str] = {}
    for name in names:
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[_normalize(name)] = metadata.version(name)
    return found


@dataclass(frozen=True)
class StackPlan:
    """What :func:`plan_training_stack` decided."""

    requirements: tuple[str, ...]
    """pip requirements to install (the stack's, then jax and jaxlib held); empty when fine."""
    problems: tuple[str, ...]
    """Why, one line per library."""


def plan_training_stack(
    installed: Mapping[str, str], wanted: Sequence[str], jax_version: str | None
) -> StackPlan:
    """Decide whether the installed Flax, Optax and Orbax meet the course's requirements.

    Args:
        installed: ``{name: version}`` of the training libraries that are installed.
        wanted: the course's requirements on them (:func:`training_stack_requirements`).
        jax_version: the JAX that must stay installed (pinned in the same pip call, so that pip
            picks the libraries' releases for it instead of moving JAX), or None.
    """
    from packaging.requirements import Requirement  # on first use: keeps import fast

    problems: list[str] = []
    for text in wanted:
        requirement = Requirement(text)
        name = _normalize(requirement.name)
        found = installed.get(name)
        if found is None:
            problems.append(f"{name} is not installed (the course needs {text})")
        elif not requirement.specifier.contains(found, prereleases=True):
            problems.append(f"{name} {found} is outside the course's range ({text})")
    if not problems:
        return StackPlan((), ())
    held = (f"jax=={jax_version}", f"jaxlib=={jax_version}") if jax_version else ()
    return StackPlan((*wanted, *held), tuple(problems))


@dataclass(frozen=True)
class StackResult:
    """The outcome of :func:`align_training_stack`."""

    plan: StackPlan
    packages: dict[str, str]
    """The training libraries installed afterwards, ``{name: version}``."""

    @property
    def message(self) -> str:
        if not self.packages:
            return "No training libraries to check (this release of the helpers names none)."
        listed = ", ".join(f"{name} {version}" for name, version in sorted(self.packages.items()))
        return (
            f"Training libraries {'aligned' if self.plan.requirements else 'in range'}: {listed}."
        )


def align_training_stack(
    jax_version: str | None,
    *,
    pip_install: PipRunner | None = None,
    installed: Callable[[], dict[str, str]] | None = None,
    requires: Callable[[str], list[str]] | None = None,
) -> StackResult:
    """Bring Flax, Optax and Orbax into the course's ranges, keeping jax at ``jax_version``.

    Raises:
        ColabSetupError: after installing, a library is still missing or out of range.
    """
    if installed is None:

        def installed() -> dict[str, str]:
            return installed_versions(TRAINING_STACK)

    wanted = training_stack_requirements(requires)
    plan = plan_training_stack(installed(), wanted, jax_version)
    if plan.requirements:
        (pip_install or _pip_install)(list(plan.requirements))
        after = plan_training_stack(installed(), wanted, jax_version)
        if after.requirements:
            raise ColabSetupError(
                f"the training libraries still disagree after installing "
                f"{' '.join(plan.requirements)}: {'; '.join(after.problems)}. Run "
                f"`pip install {' '.join(repr(r) for r in wanted)}` in a cell, then restart the "
                "runtime."
            )
    return StackResult(plan, installed() if wanted else {})


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m aurora_helpers.colab [--loaded-jax VERSION]``; exit status 3 asks for a restart."""
    parser = argparse.ArgumentParser(prog="python -m aurora_helpers.colab", description=__doc__)
    parser.add_argument(
        "--loaded-jax",
        default="",
        metavar="VERSION",
        help="the JAX version the notebook's kernel had imported before this install (empty: none)",
    )
    args = parser.parse_args(argv)
    result = align_jax(loaded_jax=args.loaded_jax or None)
    print(result.message, file=sys.stderr if result.restart_needed else sys.stdout)
    stack = align_training_stack(result.packages.get("jax"))
    print(stack.message)
    # A session that had imported JAX may have imported the old Flax, Optax or Orbax too.
    restart = result.restart_needed or (bool(args.loaded_jax) and bool(stack.plan.requirements))
    if restart and not result.restart_needed:
        print(
            "This runtime had imported JAX before the training libraries changed; restart it: "
            "Runtime > Restart session (Ctrl+M .), then run the notebook again from the top.",
            file=sys.stderr,
        )
    return RESTART_EXIT_STATUS if restart else 0


if __name__ == "__main__":
    sys.exit(main())
