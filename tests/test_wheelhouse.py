"""A wheelhouse per target platform: scripts/make-wheelhouse evaluates the lock's markers for the
target, not for the machine that builds it (a macOS wheelhouse built on Linux lacked appnope, a
Windows one failed on uvloop). Runs nothing but the selection and the command line; `make
test-wheelhouse` resolves every target's set against the index."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import ROOT, load_script

WHEELHOUSE = load_script("make-wheelhouse")
LOCK = (ROOT / "ci" / "workshop.lock").read_text()


def _names(target: str) -> set[str]:
    return {req.split("==")[0] for req, _ in WHEELHOUSE.select(LOCK, WHEELHOUSE.TARGETS[target])}


@pytest.mark.parametrize(
    ("target", "present", "absent"),
    [
        ("macos-arm64", {"appnope", "uvloop", "pexpect"}, {"pywinpty", "colorama"}),
        (
            "windows-amd64",
            {"pywinpty", "colorama", "nest-asyncio"},
            {"appnope", "uvloop", "pexpect"},
        ),
        ("linux-x86_64", {"uvloop", "pexpect", "ptyprocess"}, {"appnope", "pywinpty", "colorama"}),
        ("linux-aarch64", {"uvloop", "jaxlib"}, {"appnope", "pywinpty"}),
    ],
)
def test_each_target_gets_the_packages_its_markers_name(target, present, absent):
    names = _names(target)
    assert present <= names and not absent & names
    everything = {req.split("==")[0] for req, _, _ in WHEELHOUSE.lock_entries(LOCK)}
    unmarked = {
        req.split("==")[0] for req, marker, _ in WHEELHOUSE.lock_entries(LOCK) if not marker
    }
    assert unmarked <= names <= everything and "jax" in unmarked


def test_the_requirements_keep_every_hash_and_drop_every_marker():
    selected = WHEELHOUSE.select(LOCK, WHEELHOUSE.TARGETS["macos-arm64"])
    text = WHEELHOUSE.requirements_text(selected)
    assert ";" not in text and len(text.splitlines()) == len(selected)
    assert all(
        line.split()[0].count("==") == 1 and "--hash=sha256:" in line for line in text.splitlines()
    )
    entries = {req: hashes for req, _, hashes in WHEELHOUSE.lock_entries(LOCK)}
    assert sum(len(h) for h in entries.values()) == LOCK.count("--hash=")  # every hash read
    assert all(hashes == entries[req] for req, hashes in selected)


def test_pip_is_told_the_platform_and_not_to_resolve_again(tmp_path):
    target = WHEELHOUSE.TARGETS["linux-aarch64"]
    command = WHEELHOUSE.pip_download("python3", target, Path("req.txt"), tmp_path)
    assert command[command.index("--python-version") + 1] == "3.12"
    platforms = [command[i + 1] for i, a in enumerate(command) if a == "--platform"]
    assert "manylinux_2_17_aarch64" in platforms and "manylinux2014_aarch64" in platforms
    assert "--no-deps" in command and "--require-hashes" in command
    check = WHEELHOUSE.pip_check("python3", target, Path("req.txt"), tmp_path)
    assert check[3:5] == ["install", "--dry-run"] and "--report" in check and "-d" not in check


def test_a_lock_line_it_cannot_read_is_an_error():
    with pytest.raises(ValueError, match="cannot read"):
        WHEELHOUSE.lock_entries("??? not a requirement\n")
