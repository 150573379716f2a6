"""CONTRIBUTING.md's maps of the two packages, held to the folders and modules that exist."""

from __future__ import annotations

import ast
import re

from .conftest import ROOT
from .test_package import FOLDER_IMPORTS

CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def _table(heading: str) -> list[list[str]]:
    """The rows (cells split, header and rule dropped) of the first table under ``heading``."""
    block: list[str] = []
    for line in CONTRIBUTING.split(heading, 1)[1].splitlines()[1:]:
        if line.startswith("|"):
            block.append(line)
        elif block:
            break
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in block[2:]]


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _helper_folders() -> set[str]:
    top = ROOT / "aurora_helpers"
    return {p.name for p in top.iterdir() if p.is_dir() and any(p.glob("*.py"))}


def test_the_helpers_map_has_one_line_per_folder_and_its_imports():
    rows = _table("### Map of `aurora_helpers`")
    folders = [_ticked(row[0])[0] for row in rows]
    assert folders[0] == "aurora_helpers/", "the core's line comes first"
    assert sorted(f.removesuffix("/") for f in folders[1:]) == sorted(_helper_folders())
    for row in rows[1:]:
        folder = _ticked(row[0])[0].removesuffix("/")
        allowed = {t.removesuffix("/") for t in _ticked(row[2])}
        if folder in FOLDER_IMPORTS:
            assert allowed == FOLDER_IMPORTS[folder], f"{folder}: the map and the test disagree"


def test_the_core_line_names_every_module_at_the_top():
    (core,) = [
        row
        for row in _table("### Map of `aurora_helpers`")
        if row[0] == "`aurora_helpers/` (the core)"
    ]
    named = set(_ticked(core[1]))
    modules = {p.stem for p in (ROOT / "aurora_helpers").glob("*.py")} - {"__init__"}
    assert modules <= named, f"not on the core's line: {sorted(modules - named)}"


def test_each_folder_lists_its_modules_in_its_docstring():
    """A folder's ``__init__`` says what each of its modules does (``:mod:`.name```)."""
    for folder in sorted(_helper_folders() - {"programs"}):
        init = ROOT / "aurora_helpers" / folder / "__init__.py"
        listed = set(
            re.findall(r":mod:`\.(\w+)`", ast.get_docstring(ast.parse(init.read_text())) or "")
        )
        path = init.parent
        modules = {p.stem for p in path.glob("*.py")} - {"__init__"}
        modules |= {p.parent.name for p in path.glob("*/__init__.py")}
        assert modules <= listed, f"{folder}/__init__.py does not list {sorted(modules - listed)}"


def test_the_course_map_names_every_module_and_only_those():
    rows = _table("### Map of `aurora_course`")
    named = {name.removesuffix("/") for row in rows for name in _ticked(row[0])}
    top = ROOT / "aurora_course"
    modules = {p.stem for p in top.glob("*.py")} - {"__init__"}
    modules |= {p.parent.name for p in top.glob("*/__init__.py")}
    assert named == modules, f"missing: {sorted(modules - named)}; gone: {sorted(named - modules)}"


#: A path into the repository as the documents and ci/ name it (placeholders such as
#: ``tests/test_<module>.py`` or ``ci/tested-jax-VERSION.txt`` are not paths and do not match).
_PATH = re.compile(
    r"(?<![\w/.-])((?:aurora_helpers|aurora_course|tests|scripts|ci|docs|notebooks)/[\w/.<>${*-]*)"
)


def test_the_documents_and_ci_name_files_that_exist():
    """A map or a comment that names a file which has moved misleads the next reader."""
    documents = [ROOT / "CONTRIBUTING.md", ROOT / "README.md", ROOT / "Makefile"]
    documents += sorted((ROOT / "docs").glob("*.md")) + sorted((ROOT / "ci").glob("*.txt"))
    missing = []
    for document in documents:
        for match in _PATH.finditer(document.read_text(encoding="utf-8")):
            path = match.group(1).rstrip(".-")
            if re.search(r"[A-Z]{2,}|[*<${]", path):
                continue  # a placeholder (NN, VERSION, <module>, $(VAR)) or a pattern
            if not (ROOT / path).exists():
                missing.append(f"{document.name}: {path}")
    assert not missing, missing
