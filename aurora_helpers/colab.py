"""Colab: bring jax, jaxlib, every installed JAX plugin and Flax/Optax/Orbax to the tested set.

Colab's runtimes preinstall an older JAX, on GPU runtimes with ``jax-cuda12-plugin`` and
``jax-cuda12-pjrt`` at that same version, on TPU runtimes with ``libtpu``. Installing the course
upgrades jax and jaxlib but not the plugins, and JAX then skips a CUDA plugin whose version differs
from jaxlib's with only a warning: the course would run on the CPU. Each notebook's Colab cell runs
``python -m aurora_helpers.colab`` right after installing the course (in a subprocess, so that the
notebook's own kernel has not imported JAX yet). What to align is decided from the installed
distributions (``importlib.metadata``), not from whether a GPU is visible.

The version it installs is the one the course was tested with (``_tested.TESTED``), not the newest
on the index: installing the course from git brings the newest jax, and the GPU plugin wheels of a
JAX release can appear later than jax itself, or never (JAX 0.12.1 has no CUDA 12 plugin). When an
installed plugin family has no release at the tested version, the whole set goes to the newest
release that has that family's wheels (``_tested.PLUGIN_RELEASES``, checked against the index by
``make pin``), and the output says so in one line.

Colab also preinstalls its own Flax, Optax and Orbax, releases made for its older JAX; notebook 10
needs newer ones. The same command then pins those three to their tested releases, holding jax and
jaxlib at the version just aligned (in the same pip call, so that pip cannot move JAX).

When pip fails (a release missing from the index, no network), the command prints one line saying
what it could not install and what to do, and exits with :data:`PIP_FAILED_EXIT_STATUS` rather
than a traceback.
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

from ._jax_versions import JAX_OLDEST, JAX_UPPER_EXCLUSIVE, parse_version
from ._tested import PLUGIN_RELEASES, TESTED

#: Distributions that must carry jax's own version: ``jax-cuda12-plugin``, ``jax-cuda13-pjrt``...
_PLUGIN = re.compile(r"^jax-(?P<kind>cuda|rocm)(?P<major>\d+)-(?:plugin|pjrt)$")
#: TPU runtime library names (its version numbers differ from jax's; jax's ``tpu`` extra pins it).
_TPU_LIBRARIES = ("libtpu", "libtpu-nightly")
#: Exit status of ``python -m aurora_helpers.colab`` when the runtime must be restarted.
RESTART_EXIT_STATUS = 3
#: Exit status of ``python -m aurora_helpers.colab`` when pip could not install the tested set.
PIP_FAILED_EXIT_STATUS = 4
#: Exit status when the packages still disagree after installing, or jax is missing altogether.
SETUP_FAILED_EXIT_STATUS = 5
#: The training libraries of notebook 10, whose ranges the ``course`` extra declares.
TRAINING_STACK = ("flax", "optax", "orbax-checkpoint")
#: The distribution whose metadata declares those ranges.
COURSE_DISTRIBUTION = "aurora-helpers"


class ColabSetupError(RuntimeError):
    """The JAX packages could not be brought to one consistent version."""


class PipInstallError(ColabSetupError):
    """pip exited with an error; :func:`explain_pip_failure` turns its output into one line."""

    def __init__(self, requirements: Sequence[str], returncode: int, output: str) -> None:
        super().__init__(f"pip install {' '.join(requirements)} exited with status {returncode}")
        self.requirements = tuple(requirements)
        self.returncode = returncode
        self.output = output
        """What pip wrote to stderr (its errors and warnings)."""


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


def family_label(family: str) -> str:
    """How a learner names a plugin family: ``cuda12`` -> ``CUDA 12``, ``rocm7`` -> ``ROCm 7``."""
    match = re.fullmatch(r"(cuda|rocm)(\d+)", family)
    if match is None:
        return family
    return f"{'CUDA' if match[1] == 'cuda' else 'ROCm'} {match[2]}"


def _plugin_families(installed: Mapping[str, str]) -> list[str]:
    """The plugin families (``cuda12``...) of the installed ``jax-<family>-*`` distributions."""
    found = {f"{m['kind']}{m['major']}" for m in map(_PLUGIN.match, installed) if m is not None}
    return sorted(found)


@dataclass(frozen=True)
class Target:
    """The version jax, jaxlib and the plugins must end at, and why, if not the tested one."""

    version: str
    trailing: tuple[str, ...]
    """The installed plugin families whose wheels lack the tested version (they decided it)."""


def target_version(families: Sequence[str]) -> Target:
    """The tested JAX version, or an older one where an installed plugin family has no wheels.

    A family in ``PLUGIN_RELEASES`` whose release there is older than ``TESTED["jax"]`` has no
    wheels at the tested version (plugin wheels can trail a JAX release), so the whole set goes to
    that release: ``make pin`` checked that jax, jaxlib and that family's plugin and pjrt all exist
    at it. Several trailing families: the oldest of their releases. A family the pins do not know
    (ROCm, a future CUDA) keeps the tested version; if pip then finds no wheel, the failure says so.
    """
    tested = TESTED["jax"]
    releases = {
        family: PLUGIN_RELEASES[family]
        for family in families
        if family in PLUGIN_RELEASES
        and parse_version(PLUGIN_RELEASES[family]) < parse_version(tested)
    }
    if not releases:
        return Target(tested, ())
    version = min(releases.values(), key=parse_version)
    trailing = tuple(family for family in sorted(releases) if releases[family] == version)
    return Target(version, trailing)


def target_note(target: Target, families: Sequence[str], *, changing: bool) -> str | None:
    """One line on why the set is not at ``TESTED["jax"]`` (None when it is)."""
    if not target.trailing:
        return None
    plugins = " and ".join(f"jax-{family}-plugin" for family in target.trailing)
    verb = "has" if len(target.trailing) == 1 else "have"
    labels = " and ".join(family_label(family) for family in families)
    move = "go to" if changing else "stay at"
    return (
        f"{plugins} {verb} no {TESTED['jax']} release yet; jax, jaxlib and the {labels} plugins"
        f" {move} {target.version}, the newest release that has them all."
    )


@dataclass(frozen=True)
class AlignmentPlan:
    """What :func:`plan_alignment` decided: the version to hold, and what pip must install."""

    version: str
    """The version jax, jaxlib and the plugins end at (:func:`target_version`)."""
    extras: tuple[str, ...]
    """jax's extras for the installed plugins: ``cuda12``, ``cuda12-local``, ``tpu``..."""
    requirements: tuple[str, ...]
    """pip requirements to install; empty when everything already agrees."""
    problems: tuple[str, ...]
    """Why something must change, one line per package."""
    note: str | None = None
    """Why :attr:`version` is not the tested JAX version (:func:`target_note`), in one line."""


def plan_alignment(
    installed: Mapping[str, str],
    requires: Callable[[str], list[str]] = _requires,
    present: set[str] | None = None,
) -> AlignmentPlan:
    """Decide, from the installed JAX distributions, how to bring them to the tested set.

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
    families = _plugin_families(installed)
    target = target_version(families)
    version = target.version
    problems: list[str] = []
    for name in ("jax", "jaxlib"):
        if installed.get(name) != version:
            problems.append(
                f"{name} {installed.get(name, 'missing')} differs from the target {version}"
            )
    jax_extras = set(re.findall(r"""extra\s*==\s*["']([^"']+)["']""", " ".join(requires("jax"))))
    extras: list[str] = []
    direct: list[str] = []
    for name, found in sorted(installed.items()):
        plugin = _PLUGIN.match(name)
        if plugin is None:
            continue
        if found != version:
            problems.append(f"{name} {found} differs from the target {version}; JAX would skip it")
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
    note = target_note(target, families, changing=bool(problems))
    if not problems:
        return AlignmentPlan(version, tuple(extras), (), (), note)
    spec = f"=={version}"
    jax_req = f"jax[{','.join(extras)}]{spec}" if extras else f"jax{spec}"
    requirements = [jax_req, f"jaxlib{spec}", *(f"{name}{spec}" for name in direct)]
    return AlignmentPlan(version, tuple(extras), tuple(requirements), tuple(problems), note)


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
        text = f"{self.plan.note}\n" if self.plan.note else ""
        text += f"JAX packages {done}: {listed}."
        if self.restart_needed:
            text += (
                "\nThis runtime had imported JAX before these packages were installed, so it"
                " still runs the old ones. Restart it: Runtime > Restart session (Ctrl+M .), then"
                " run the notebook again from the top; this cell will then find everything in place."
            )
        return text


PipRunner = Callable[[list[str]], object]


def _pip_install(requirements: list[str]) -> object:
    """Run pip, keeping its stderr so that a failure can be explained in one line.

    Raises:
        PipInstallError: pip exited with an error.
    """
    command = [sys.executable, "-m", "pip", "install", "-q", *requirements]
    done = subprocess.run(command, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        raise PipInstallError(requirements, done.returncode, done.stderr)
    sys.stderr.write(done.stderr)  # pip's warnings: shown, as they would have been
    return done


def _quoted(requirements: Sequence[str]) -> str:
    return " ".join(f'"{r}"' for r in requirements)


#: pip's last word when it found no release that satisfies a requirement.
_NOT_FOUND = re.compile(r"No matching distribution found for (?P<requirement>[^;\n]+)")
#: What pip's retries print when the index cannot be reached at all.
_OFFLINE = re.compile(
    r"NewConnectionError|ConnectTimeoutError|ReadTimeoutError|ProxyError|SSLError"
    r"|Temporary failure in name resolution|Network is unreachable"
)


def _plain_pin(requirement: str) -> str:
    """``jax-cuda12-plugin<=0.12.1,>=0.12.1`` (how jax's extras pin) as ``jax-cuda12-plugin==0.12.1``."""
    text = requirement.strip()
    match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)<=([^,\s]+),\s*>=\2", text)
    return f"{match[1]}=={match[2]}" if match else text


@dataclass(frozen=True)
class PipFailure:
    """What :func:`explain_pip_failure` made of a failed pip call."""

    cause: str
    """``offline``, ``missing-plugin`` (an accelerator wheel), ``missing`` or ``other``."""
    line: str
    """The one line to print: what pip could not install and what to do."""


def explain_pip_failure(error: PipInstallError) -> PipFailure:
    """Read pip's error output and say, in one line, what it could not install and what to do.

    A missing accelerator plugin is the expected case (its wheels trail a JAX release): the way out
    is a CPU runtime. An unrecognised failure (``other``) names only the command; pip's own output
    must then be shown as well, since it alone says what went wrong.
    """
    found = _NOT_FOUND.search(error.output)
    wanted = _plain_pin(found["requirement"]) if found else _quoted(error.requirements)
    if _OFFLINE.search(error.output) and (found is None or "(from versions: none)" in error.output):
        return PipFailure(
            "offline",
            f"Colab setup stopped: pip could not reach the package index to install {wanted}."
            " Check that this runtime is online, then run this cell again.",
        )
    if found is None:
        return PipFailure(
            "other",
            f"Colab setup stopped: `pip install {_quoted(error.requirements)}` failed with status"
            f" {error.returncode} (pip's messages are above). Fix what they name, then run this"
            " cell again.",
        )
    name = _requirement_name(wanted)
    if _PLUGIN.match(name) or name in _TPU_LIBRARIES:
        return PipFailure(
            "missing-plugin",
            f"Colab setup stopped: the package index has no {wanted} yet (accelerator plugins can"
            " trail a JAX release). To run the course on the CPU, pick Runtime > Change runtime"
            " type > CPU, then run the notebook again.",
        )
    return PipFailure(
        "missing",
        f"Colab setup stopped: the package index has no {wanted}, which the course's tested set"
        f" needs. `pip index versions {name}` in a new cell lists what it has; please tell the"
        " course's maintainers.",
    )


def align_jax(
    *,
    loaded_jax: str | None,
    pip_install: PipRunner | None = None,
    installed: Callable[[], dict[str, str]] | None = None,
) -> AlignmentResult:
    """Bring jax, jaxlib and every installed JAX plugin to the target version (the tested one).

    Args:
        loaded_jax: the version of JAX the notebook's kernel had imported before the install, or
            None if it had not. The runtime must be restarted when that JAX differs from the one
            installed now, or when this call changed any package under an imported JAX.
        pip_install: installs a list of requirements (default: pip; tests replace it).
        installed: reads the installed JAX distributions (default: :func:`installed_jax_packages`).

    Raises:
        PipInstallError: pip failed (:func:`explain_pip_failure` says why in one line).
        ColabSetupError: after installing, the packages still disagree (the message says which).
    """
    if installed is None:
        installed = installed_jax_packages
    plan = plan_alignment(installed())
    if plan.requirements:
        (pip_install or _pip_install)(list(plan.requirements))
        after = plan_alignment(installed())
        if after.requirements:
            raise ColabSetupError(
                "JAX's packages still disagree after installing "
                f"{' '.join(plan.requirements)}: {'; '.join(after.problems)}. Run "
                f"`pip install {_quoted(after.requirements)}` in a cell, then restart the runtime."
            )
    packages = installed()
    stale = bool(loaded_jax) and (loaded_jax != packages.get("jax") or bool(plan.requirements))
    return AlignmentResult(plan, packages, restart_needed=stale)


def training_stack_requirements(
    requires: Callable[[str], list[str]] | None = None,
) -> tuple[str, ...]:
    """The ``course`` extra's ranges on :data:`TRAINING_STACK` (e.g. ``flax<0.13,>=0.12.6``).

    The aligner installs the tested releases (:func:`tested_stack_requirements`); these ranges are
    what the course promises, so ``scripts/test-colab`` checks the result against them too. Empty
    when the installed course declares none (an older release of the helpers).
    """
    wanted = _extra_requirements((requires or _requires)(COURSE_DISTRIBUTION), "course")
    return tuple(r for r in wanted if _requirement_name(r) in TRAINING_STACK)


def tested_stack_requirements() -> tuple[str, ...]:
    """Exact pins of :data:`TRAINING_STACK` at the tested releases: ``flax==0.12.12``...

    Exact, not the course's ranges: pip would otherwise pick the newest release in range, which
    may need a newer JAX than the one just aligned, or differ from what the notebooks ran with.
    """
    return tuple(f"{name}=={TESTED[name]}" for name in TRAINING_STACK if name in TESTED)


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
    """Decide whether the installed Flax, Optax and Orbax meet ``wanted``.

    Args:
        installed: ``{name: version}`` of the training libraries that are installed.
        wanted: requirements on them: the tested pins (:func:`tested_stack_requirements`), or the
            course's ranges (:func:`training_stack_requirements`) to check a result.
        jax_version: the JAX that must stay installed (pinned in the same pip call, so that pip
            cannot move JAX to suit the libraries), or None.
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
            problems.append(f"{name} {found} does not meet {text}")
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
        listed = ", ".join(f"{name} {version}" for name, version in sorted(self.packages.items()))
        done = (
            "pinned to the tested releases"
            if self.plan.requirements
            else "already at the tested releases"
        )
        return f"Training libraries {done}: {listed}."


def align_training_stack(
    jax_version: str | None,
    *,
    pip_install: PipRunner | None = None,
    installed: Callable[[], dict[str, str]] | None = None,
) -> StackResult:
    """Bring Flax, Optax and Orbax to their tested releases, keeping jax at ``jax_version``.

    Raises:
        PipInstallError: pip failed (:func:`explain_pip_failure` says why in one line).
        ColabSetupError: after installing, a library is still missing or at another release.
    """
    if installed is None:

        def installed() -> dict[str, str]:
            return installed_versions(TRAINING_STACK)

    wanted = tested_stack_requirements()
    plan = plan_training_stack(installed(), wanted, jax_version)
    if plan.requirements:
        (pip_install or _pip_install)(list(plan.requirements))
        after = plan_training_stack(installed(), wanted, jax_version)
        if after.requirements:
            raise ColabSetupError(
                f"the training libraries still disagree after installing "
                f"{' '.join(plan.requirements)}: {'; '.join(after.problems)}. Run "
                f"`pip install {_quoted(after.requirements)}` in a cell, then restart the runtime."
            )
    return StackResult(plan, installed())


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m aurora_helpers.colab [--loaded-jax VERSION]``.

    Exit status 0: all in place; :data:`RESTART_EXIT_STATUS`: restart the runtime;
    :data:`PIP_FAILED_EXIT_STATUS`: pip could not install the tested set (one line on stderr says
    what and what to do); :data:`SETUP_FAILED_EXIT_STATUS`: the set is still inconsistent after
    installing (likewise one line).
    """
    parser = argparse.ArgumentParser(prog="python -m aurora_helpers.colab", description=__doc__)
    parser.add_argument(
        "--loaded-jax",
        default="",
        metavar="VERSION",
        help="the JAX version the notebook's kernel had imported before this install (empty: none)",
    )
    args = parser.parse_args(argv)
    try:
        result = align_jax(loaded_jax=args.loaded_jax or None)
        print(result.message, file=sys.stderr if result.restart_needed else sys.stdout)
        stack = align_training_stack(result.packages.get("jax"))
    except PipInstallError as error:
        failure = explain_pip_failure(error)
        if failure.cause == "other":
            sys.stderr.write(error.output)  # the line below points at pip's own explanation
        print(failure.line, file=sys.stderr)
        return PIP_FAILED_EXIT_STATUS
    except ColabSetupError as error:
        # Installed, yet still inconsistent (or no jax at all): the message says what to run.
        print(f"Colab setup stopped: {error}", file=sys.stderr)
        return SETUP_FAILED_EXIT_STATUS
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
