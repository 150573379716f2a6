"""The two packages: aurora_helpers's public names (one table), and imports that run one way.

``aurora_helpers`` is what notebooks import; ``aurora_course`` is the course's tooling. The tooling
may import the helpers, never the reverse; inside each package no two modules import each other;
inside ``aurora_helpers`` each folder imports only the folders :data:`FOLDER_IMPORTS` allows.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import aurora_helpers as ah

from .conftest import ROOT

PACKAGES = ("aurora_helpers", "aurora_course")


def test_every_public_name_is_its_modules_and_listed_once():
    listed = [name for names in ah._EXPORTS.values() for name in names]
    assert sorted(listed) == ah.__all__ and len(set(listed)) == len(listed)
    for module, names in ah._EXPORTS.items():
        loaded = importlib.import_module(f"aurora_helpers.{module}")
        for name in names:
            assert getattr(ah, name) is getattr(loaded, name), (module, name)
    assert set(dir(ah)) >= set(ah.__all__)


def test_importing_the_package_reads_no_source():
    """The public API is a table, not found by parsing the package's own files at import."""
    source = (ROOT / "aurora_helpers" / "__init__.py").read_text()
    assert "ast" not in _imports(source, "aurora_helpers") and "read_text" not in source


def test_no_public_name_is_also_a_module_name():
    """Importing ``aurora_helpers.x`` sets the package's attribute ``x`` to the module, which would
    hide a public name ``x`` (``ah.probe`` once was both a function and a module)."""
    folder = ROOT / "aurora_helpers"
    modules = {p.stem for p in folder.glob("*.py")} | {
        p.parent.name for p in folder.glob("*/__init__.py")
    }
    assert not set(ah.__all__) & modules


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _imports(source: str, package: str) -> set[str]:
    """Every module ``source`` (a module of ``package``) imports, anywhere in it (in functions
    too), as absolute names."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                found.add(f"{base}.{node.module}" if node.module else base)
            else:
                found.add(node.module or "")
    return found


def _module_imports(path: Path) -> set[str]:
    name = _module_name(path)
    return _imports(
        path.read_text(), name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    )


def _sources(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def test_the_helpers_never_import_the_tooling():
    """Notebooks import aurora_helpers alone: nothing in it may need the course's tools."""
    reaching = {
        _module_name(path): sorted(
            m for m in _module_imports(path) if m.split(".")[0] == "aurora_course"
        )
        for path in _sources("aurora_helpers")
    }
    assert not {k: v for k, v in reaching.items() if v}, reaching


#: aurora_helpers's folders (one job each) and the folders each may import besides the core, the
#: modules at the package's top. The core imports no folder (the package's ``__init__`` loads
#: them by name, lazily, and is not counted).
FOLDER_IMPORTS: dict[str, set[str]] = {
    "checks": {"compiled"},
    "compiled": set(),
    "perf": {"compiled"},
    "pictures": {"compiled"},
    "cluster": set(),
}


def _folder(module: str) -> str | None:
    """``checks`` for ``aurora_helpers.checks.routes``; None for the core (or another package)."""
    parts = module.split(".")
    if parts[0] != "aurora_helpers" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in FOLDER_IMPORTS else None


def test_each_folder_imports_only_the_core_and_the_folders_it_may():
    folders = {p.parent.name for p in (ROOT / "aurora_helpers").glob("*/__init__.py")}
    assert folders == set(FOLDER_IMPORTS), "a new folder: say what it may import"
    wrong = []
    for path in _sources("aurora_helpers"):
        name = _module_name(path)
        if name == "aurora_helpers":
            continue
        mine = _folder(name)
        for imported in _module_imports(path):
            theirs = _folder(imported)
            if (
                theirs is not None
                and theirs != mine
                and theirs not in FOLDER_IMPORTS.get(mine or "", set())
            ):
                wrong.append(f"{name} imports {imported}")
    assert not wrong, wrong


def test_the_import_check_sees_hidden_and_relative_imports():
    """The check above can fail: imports inside functions and relative ones are found."""
    source = (
        "def f():\n    from aurora_course import cli\n    from ..x import y\n    return cli, y\n"
    )
    assert _imports(source, "aurora_helpers.cluster") == {"aurora_course", "aurora_helpers.x"}


def test_imports_run_one_way_inside_each_package():
    """No module imports a module that imports it back (directly or through others)."""
    graph: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in _sources(package):
            name = _module_name(path)
            graph[name] = {
                m for m in _module_imports(path) if m.split(".")[0] in PACKAGES and m != name
            }
    assert graph["aurora_helpers.cluster.magic"] >= {"aurora_helpers.cluster.launcher"}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph.get(start, ()):
            if nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})):
                return True
        return False

    cycles = [
        (a, b)
        for a in graph
        for b in graph[a]
        if b in graph and a not in PACKAGES and reaches(b, a, {b})
    ]
    assert not cycles, f"modules that import each other (directly or through others): {cycles}"


def _loaded_modules(*args: str) -> set[str]:
    """The modules a fresh ``python args...`` imports (from ``-X importtime``)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }


def test_importing_the_helpers_or_running_the_colab_fixer_imports_no_jax():
    """``python -m aurora_helpers.colab`` must pin JAX's version before anything imports JAX."""
    for args in (["-c", "import aurora_helpers"], ["-m", "aurora_helpers.colab", "--help"]):
        loaded = _loaded_modules(*args)
        assert "aurora_helpers" in loaded, args  # the measurement works
        heavy = sorted(m for m in loaded if m.split(".")[0] in ("jax", "jaxlib", "numpy"))
        assert not heavy, (args, heavy[:5])


def test_the_scripts_import_what_the_packages_have():
    """scripts/ run outside pytest (make test-launchers, the workflow): an import of a module that
    moved would fail there only, late in CI."""
    wrong = []
    for path in sorted((ROOT / "scripts").iterdir()):
        if not (
            path.is_file() and path.read_text(errors="replace").startswith("#!/usr/bin/env python")
        ):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PACKAGES
            ):
                continue
            module = importlib.import_module(node.module or "")
            for alias in node.names:
                found = hasattr(module, alias.name) or importlib.util.find_spec(
                    f"{node.module}.{alias.name}"
                )
                if not found:
                    wrong.append(f"{path.name}: from {node.module} import {alias.name}")
    assert not wrong, wrong
