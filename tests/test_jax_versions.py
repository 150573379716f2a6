import re
import tomllib

import pytest

from aurora_helpers import _jax_versions
from aurora_helpers._jax_versions import check_jax_version, parse_version

from .conftest import ROOT


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.9.0", (0, 9, 0)),
        ("0.12.0.1", (0, 12, 0, 1)),
        ("0.10.0rc1", (0, 10, 0)),
        ("0.9.2+cuda", (0, 9, 2)),
    ],
)
def test_parse_version(text, expected):
    assert parse_version(text) == expected


def test_parse_version_rejects_garbage():
    with pytest.raises(ValueError, match="not a version"):
        parse_version("latest")


@pytest.mark.parametrize("version", ["0.9.0", "0.9.2", "0.10.2", "0.12.0.1"])
def test_supported_versions(version):
    result = check_jax_version(version)
    assert result.supported and result.fix is None


@pytest.mark.parametrize(
    ("version", "word"),
    [("0.4.35", "older"), ("0.8.3", "older"), ("0.13.0", "newer"), ("1.0", "newer")],
)
def test_unsupported_versions_name_the_fix(version, word):
    result = check_jax_version(version)
    assert not result.supported
    assert word in result.message
    assert result.fix == f'python -m pip install -U "{_jax_versions.JAX_REQUIREMENT}"'


def test_installed_jax_is_supported():
    assert check_jax_version().supported


def test_declared_range_matches_pyproject_and_ci():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert _jax_versions.JAX_REQUIREMENT in project["dependencies"]
    pins = dict(
        re.findall(r"^(jax|jaxlib)==(\S+)$", (ROOT / "ci" / "oldest.txt").read_text(), re.M)
    )
    assert pins == {"jax": _jax_versions.JAX_OLDEST, "jaxlib": _jax_versions.JAX_OLDEST}


def _matrix_releases() -> list[str]:
    lines = (ROOT / "ci" / "matrix.txt").read_text().splitlines()
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


def test_matrix_covers_every_minor_release_in_the_range():
    """ci/matrix.txt: one release per minor series between the oldest and the newest (which
    `make test-oldest` and `make test` cover), all inside the declared range."""
    matrix = _matrix_releases()
    assert matrix, "ci/matrix.txt lists no release"
    for version in matrix:
        assert check_jax_version(version).supported, (
            f"{version} is outside {_jax_versions.JAX_REQUIREMENT}"
        )
    oldest, upper = (
        parse_version(_jax_versions.JAX_OLDEST),
        parse_version(_jax_versions.JAX_UPPER_EXCLUSIVE),
    )
    assert oldest[0] == upper[0] == 0, "the minor-series count below assumes 0.x releases"
    minors = [parse_version(v)[:2] for v in matrix]
    assert len(set(minors)) == len(minors), "one release per minor series"
    # The newest minor series (upper - 1) is what `make test` installs; every other one is listed.
    assert set(minors) == {(0, minor) for minor in range(oldest[1], upper[1] - 1)}
