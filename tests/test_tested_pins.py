"""ci/tested.txt (the pins make setup and make run install) against what declares and uses them.

A fresh clone must install the release set the last green run used: these tests keep the pins
inside pyproject.toml's ranges, the installed package's copy (aurora_helpers/_tested.py, what
Colab's install cell reads) equal to them, the workshop lock on the same versions, and the
scripts that read them in step with the file's format.
"""

from __future__ import annotations

import re
import tomllib

from packaging.requirements import Requirement
from packaging.version import Version

from aurora_helpers import _tested
from aurora_helpers._jax_versions import check_jax_version

from .conftest import ROOT, load_script
from .test_jax_versions import _matrix_releases

PINS_FILE = ROOT / "ci" / "tested.txt"


PIN = load_script("pin")


def _pins() -> dict[str, str]:
    return PIN.read_pins(PINS_FILE)


def test_every_line_is_an_exact_pin():
    for line in PINS_FILE.read_text().splitlines():
        if line and not line.startswith("#"):
            assert re.fullmatch(r"[a-z0-9-]+==[0-9A-Za-z.+!-]+", line), (
                f"not name==version: {line!r}"
            )


def test_pins_lie_inside_every_declared_range():
    pins = _pins()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    declared = [*project["dependencies"], *extras["course"], *extras["dev"], *extras["lab"]]
    for text in declared:
        req = Requirement(text)
        if req.name == "aurora-helpers":
            continue
        name = PIN.normalize(req.name)
        assert name in pins, (
            f"{name} is not pinned in ci/tested.txt: make test-latest, then make pin"
        )
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"ci/tested.txt pins {name}=={pins[name]}, outside {req.specifier}"
        )
    assert check_jax_version(pins["jax"]).supported
    assert pins["jaxlib"] == pins["jax"]


def test_the_package_carries_the_same_stack():
    pins = _pins()
    assert {name: pins[name] for name in PIN.STACK} == _tested.TESTED


def test_plugin_releases_are_no_newer_than_the_tested_jax():
    jax_version = Version(_tested.TESTED["jax"])
    assert set(_tested.PLUGIN_RELEASES) <= set(PIN.PLUGIN_FAMILIES)
    for family, release in _tested.PLUGIN_RELEASES.items():
        assert check_jax_version(release).supported, family
        assert Version(release) <= jax_version, family


def test_the_workshop_lock_installs_the_tested_versions():
    lock = dict(
        re.findall(
            r"^([A-Za-z0-9_.-]+)==([^ ;\\\n]+)", (ROOT / "ci" / "workshop.lock").read_text(), re.M
        )
    )
    pins = _pins()
    differ = {
        name: (version, pins[PIN.normalize(name)])
        for name, version in lock.items()
        if PIN.normalize(name) in pins and pins[PIN.normalize(name)] != version
    }
    assert not differ, f"ci/workshop.lock differs from ci/tested.txt (run make lock): {differ}"


def test_differences_name_each_kind_of_change():
    lines = PIN.differences({"a": "1", "b": "2", "c": "3"}, {"a": "1", "b": "2.1", "d": "4"})
    assert lines == [
        "  ~ b 2 -> 2.1",
        "  - c 3 (pinned, not installed here)",
        "  + d 4 (not pinned)",
    ]
    assert PIN.differences({"a": "1"}, {"a": "1"}) == []


def test_module_text_round_trips(tmp_path):
    text = PIN.module_text({"jax": "9.9"}, {"cuda12": "9.8"})
    namespace: dict[str, object] = {}
    exec(text, namespace)
    assert namespace["TESTED"] == {"jax": "9.9"}
    assert namespace["PLUGIN_RELEASES"] == {"cuda12": "9.8"}
    assert text.startswith('"""The release set')


def test_setup_and_run_install_from_the_pins():
    makefile = (ROOT / "Makefile").read_text()
    assert "PINS := ci/tested.txt" in makefile
    assert re.search(r"make-venv \$\(VENV\) dev \$\(PINS\)", makefile)
    assert re.search(r"make-venv \$\(VENV\) course \$\(PINS\)", makefile)
    assert "scripts/make-venv $(LATEST_VENV) dev,lab" in makefile  # test-latest: not pinned


def test_the_older_releases_environments_are_pinned_too():
    """make test-oldest and make test-matrix install everything but JAX from their own lists."""
    wanted = {"tested-oldest.txt", *(f"tested-jax-{v}.txt" for v in _matrix_releases())}
    present = {p.name for p in (ROOT / "ci").glob("tested-*.txt")}
    assert wanted <= present, f"missing (make pin-envs): {sorted(wanted - present)}"
    assert present <= wanted, f"lists for releases no run uses: {sorted(present - wanted)}"
    for name in wanted:
        pins = PIN.read_pins(ROOT / "ci" / name)
        assert "jax" not in pins and "jaxlib" not in pins, f"{name}: JAX is pinned elsewhere"
        assert "numpy" in pins and "pytest" in pins, f"{name} is not a whole environment"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    oldest_python = project["requires-python"].removeprefix(">=")
    assert f"on Python {oldest_python}:" in (ROOT / "ci" / "tested-oldest.txt").read_text()


def test_each_older_run_reads_its_list():
    makefile = (ROOT / "Makefile").read_text()
    assert "dev ci/oldest.txt $(wildcard ci/tested-oldest.txt)" in makefile
    assert (
        'ROOT / "ci" / f"tested-jax-{version}.txt"'
        in (ROOT / "scripts" / "test-matrix").read_text()
    )
