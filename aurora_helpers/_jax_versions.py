"""The JAX versions the course supports (the tested range), and a check of the running one.

Keep these in step with ``pyproject.toml``, ``ci/oldest.txt`` and ``ci/matrix.txt``
(``tests/test_jax_versions.py`` compares them).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Oldest JAX the course is tested on (CI runs every notebook on it).
JAX_OLDEST = "0.9.0"
#: First JAX release outside the supported range.
JAX_UPPER_EXCLUSIVE = "0.13"
#: The pip requirement that selects a supported JAX.
JAX_REQUIREMENT = f"jax>={JAX_OLDEST},<{JAX_UPPER_EXCLUSIVE}"


def parse_version(text: str) -> tuple[int, ...]:
    """Numeric release of a version string (PEP 440): ``"0.9.0.1"`` -> ``(0, 9, 0, 1)``.

    Pre-release and local parts (``rc1``, ``.dev2024``, ``+cuda``) are dropped, so that a release
    candidate of 0.13 counts as 0.13: outside the tested range, as the release will be.
    """
    from packaging.version import InvalidVersion, Version  # on first use: keeps import fast

    try:
        return Version(text.strip()).release
    except InvalidVersion:
        raise ValueError(f"not a version string: {text!r}") from None


@dataclass(frozen=True)
class VersionCheck:
    """Whether a JAX version is inside the supported range, and how to fix it if not."""

    version: str
    supported: bool
    message: str
    fix: str | None


def check_jax_version(version: str | None = None) -> VersionCheck:
    """Compare ``version`` (default: the installed JAX) with the supported range."""
    if version is None:
        import jax

        version = jax.__version__
    found = parse_version(version)
    if found < parse_version(JAX_OLDEST):
        relation = f"older than the oldest supported release ({JAX_OLDEST})"
    elif found >= parse_version(JAX_UPPER_EXCLUSIVE):
        relation = f"newer than the course has been tested on (< {JAX_UPPER_EXCLUSIVE})"
    else:
        return VersionCheck(version, True, f"JAX {version} is supported ({JAX_REQUIREMENT}).", None)
    fix = f'python -m pip install -U "{JAX_REQUIREMENT}"'
    return VersionCheck(version, False, f"JAX {version} is {relation}.", fix)
