"""The rules an answer cell must follow, checked statically: one rule set, applied in two places.

``aurora grade`` screens the answer cells of a submitted notebook with it, and a notebook's own
``ah.check`` screens the learner's answer cells in the kernel with it
(:mod:`aurora_helpers.checks.answer_cells`), so the two never disagree and the notebook says what to
change while the learner can still change it.

An answer may hold what a learner writes while solving: functions, assignments, a trial
``print(...)``, imports of JAX, NumPy, the standard library's computing modules (``operator``,
``itertools``, ...) and whatever the notebook itself imports. The screen rejects what could fake
a pass or skip the skill instead: patching or calling the checking code, reaching the
interpreter's internals (frames, ``sys.modules``, ``exec``), rebinding names the course's own
cells use, changing their values in place, defining classes (objects that compare equal to
anything), and reading or writing files or the environment (``open``, ``np.save``/``np.load``,
``os.remove``, ``os.environ[...] = ...``). Reading the environment (``{**os.environ, ...}``) and
starting a process are allowed. It reads the code (Python's ``ast``); each problem is one
sentence naming the line. To tell a module from its members, and two spellings of one object
apart, it imports what an answer may import, and nothing else.
"""

from __future__ import annotations

import ast
import functools
import importlib
import types
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from ._answer_rules import (
    ALWAYS_PROTECTED,
    BASE_IMPORTS,
    BLOCKED_BUILTINS,
    CHECKING_NAMES,
    ENVIRONMENT,
    ENVIRONMENT_PARTS,
    FILE_ATTRIBUTES,
    FRAME_ATTRIBUTES,
    HELPER_ALIASES,
    HELPER_PACKAGES,
    MODULE_RULES,
    MUTATING_METHODS,
    NAMED_ACCESS_ATTRIBUTES,
    NEVER_IMPORTS,
    TAMPERING_BUILTINS,
    TAMPERING_IMPORTS,
    TAUGHT_ENVIRONMENT,
)


@dataclass
class Screening:
    """The verdict on one answer cell: the problems found (empty: it may run), in words.

    ``tampering`` is true when a problem is an attempt at the checking machinery (patching
    ``ah.check``, setting attributes, rebinding ``ah``, ``exec``, ``sys.modules``, ...) rather
    than something an answer may not do.
    """

    problems: list[str] = field(default_factory=list)
    #: The problems that are attempts at the checking machinery (a subset of ``problems``).
    attempts: list[str] = field(default_factory=list)

    @property
    def tampering(self) -> bool:
        return bool(self.attempts)

    def add(self, node: ast.AST, text: str, *, tampering: bool = False) -> None:
        problem = f"line {getattr(node, 'lineno', '?')}: {text}"
        if problem in self.problems:
            return
        self.problems.append(problem)
        if tampering:
            self.attempts.append(problem)


@dataclass(frozen=True)
class CourseNames:
    """What the course notebook binds outside its solution cells, and how it imports.

    ``bound`` maps each name bound at the top level of a non-solution cell to a description of
    the binding: ``"import numpy"`` for an import, ``""`` otherwise. ``imports`` are the top-level
    packages the course notebook imports anywhere.
    """

    bound: Mapping[str, str] = field(default_factory=dict)
    imports: frozenset[str] = frozenset()


def _import_bindings(node: ast.Import | ast.ImportFrom) -> list[tuple[str, str, str]]:
    """``(name bound, description, top-level package)`` for each alias of an import."""
    out = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            target = alias.name if alias.asname else alias.name.split(".")[0]
            out.append((bound, f"import {target}", alias.name.split(".")[0]))
    else:
        module = "." * node.level + (node.module or "")
        for alias in node.names:
            out.append(
                (
                    alias.asname or alias.name,
                    f"from {module} import {alias.name}",
                    module.split(".")[0],
                )
            )
    return out


def _dotted(description: str) -> str:
    """The object an import description binds: ``"import os"`` -> ``os``, ``"from jax import
    numpy"`` -> ``jax.numpy``."""
    words = description.split()
    if len(words) == 2:
        return words[1]
    return f"{words[1]}.{words[3]}" if len(words) == 4 else ""


def _top_level(statements: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements a cell runs at its top level, inside ``if``/``for``/``with``/``try`` too
    (not inside function or class bodies)."""
    for node in statements:
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for name in ("body", "orelse", "finalbody"):
            yield from _top_level(getattr(node, name, []))
        for handler in getattr(node, "handlers", []):
            yield from _top_level(handler.body)
        for case in getattr(node, "cases", []):
            yield from _top_level(case.body)


def _own_statement_names(node: ast.stmt) -> Iterator[tuple[str, str]]:
    """Names one statement binds (or deletes) in the cell's namespace, not in nested blocks."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        for bound, description, _ in _import_bindings(node):
            yield bound, description
        return
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name, ""
        return
    parts: list[ast.AST] = []
    for name, value in ast.iter_fields(node):
        if name in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        parts += value if isinstance(value, list) else [value]
    for part in parts:
        if isinstance(part, ast.AST):
            yield from ((name, "") for name in _stored_names(part))


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _stored_names(node: ast.AST, *, in_comprehension: bool = False) -> Iterator[str]:
    """Names an expression or target binds in the cell's namespace: not a comprehension's own
    variables or a lambda's (Python 3 scopes them), but a ``:=`` inside a comprehension (which
    binds in the enclosing scope)."""
    if isinstance(node, ast.Lambda):
        return
    if isinstance(node, ast.NamedExpr):
        yield from _stored_names(node.target)
        yield from _stored_names(node.value, in_comprehension=in_comprehension)
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        if not in_comprehension:
            yield node.id
        return
    inner = in_comprehension or isinstance(node, _COMPREHENSIONS)
    for child in ast.iter_child_nodes(node):
        yield from _stored_names(child, in_comprehension=inner)


def bindings(tree: ast.Module) -> dict[str, str]:
    """The names a cell binds at its top level, with their description (see
    :class:`CourseNames`); a name bound twice in different ways keeps ``""``."""
    bound: dict[str, str] = {}
    for node in _top_level(tree.body):
        for name, description in _own_statement_names(node):
            bound[name] = description if bound.get(name, description) == description else ""
    return bound


def imported_packages(tree: ast.AST) -> set[str]:
    """The top-level packages a piece of code imports anywhere."""
    return {
        package
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for _, _, package in _import_bindings(node)
        if package
    }


def course_names(other_cells: Iterable[str], solution_cells: Iterable[str]) -> CourseNames:
    """Read a course notebook's code: names its non-solution cells bind, packages it imports.

    Cells that are not plain Python (IPython magics) are skipped.
    """
    bound: dict[str, str] = {}
    imports: set[str] = set()
    for source, is_solution in [(s, False) for s in other_cells] + [
        (s, True) for s in solution_cells
    ]:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        imports |= imported_packages(tree)
        if not is_solution:
            for name, description in bindings(tree).items():
                # A name bound twice in different ways keeps "" (only an identical import may rebind).
                bound[name] = description if bound.get(name, description) == description else ""
    return CourseNames(bound=bound, imports=frozenset(imports))


def _local_names(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
    """Parameters and names assigned anywhere inside ``function`` (nested scopes included)."""
    names: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None:
                    names.add(arg.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(bound for bound, _, _ in _import_bindings(node))
    return names


def _same_import(description: str, course: CourseNames, name: str) -> bool:
    """Whether an answer's import binds ``name`` to what the notebook's import of it binds:
    the same line, or another spelling of the same object (``from jax.sharding import
    PartitionSpec as P`` where the notebook has ``from jax import P``)."""
    theirs = course.bound.get(name)
    if not theirs:
        return False
    if description == theirs:
        return True
    packages = course.imports - NEVER_IMPORTS
    mine = _resolved(_dotted(description), packages)
    other = _resolved(_dotted(theirs), packages)
    return mine is not None and mine is other


def _resolved(dotted: str, packages: Iterable[str]) -> object | None:
    """The object ``dotted`` names (``jax.numpy``, ``jax.P``), when its package is one of
    ``packages`` (never another: importing a module runs its code); ``None`` where it is not, or
    cannot be told."""
    return _object(dotted) if dotted.split(".")[0] in packages else None


@functools.cache
def _object(dotted: str) -> object | None:
    try:
        return importlib.import_module(dotted)
    except ImportError:  # ``jax.jit``, ``jax.P``: a member of a module, not a module
        pass
    module, _, member = dotted.rpartition(".")
    try:
        return getattr(importlib.import_module(module), member, None) if module else None
    except ImportError:
        return None


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class _Screen(ast.NodeVisitor):
    """Walks an answer cell, collecting problems; tracks the enclosing function's locals and
    which names stand for which modules (the cell's own imports and the notebook's)."""

    def __init__(self, tree: ast.Module, course: CourseNames, exercise: str = "") -> None:
        self.verdict = Screening()
        self.course = course
        self.taught = TAUGHT_ENVIRONMENT.get(exercise, frozenset())
        self.allowed_imports = BASE_IMPORTS | course.imports | {"aurora_helpers"}
        self.locals: list[set[str]] = []
        self.calls = [c for c in ast.walk(tree) if isinstance(c, ast.Call)]
        # Where a module may appear: as the base of an attribute (``jnp.sum``), never as a value
        # (``j = jax``, ``(jax,)[0]``, a default argument), which would hide what it reaches.
        nodes = list(ast.walk(tree))
        self.bases = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
        self.modules = {n: _dotted(d) for n, d in course.bound.items() if d}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                self.modules.update((b, _dotted(d)) for b, d, _ in _import_bindings(node))

    def problem(self, node: ast.AST, text: str, *, tampering: bool = False) -> None:
        self.verdict.add(node, text, tampering=tampering)

    def module_of(self, node: ast.expr) -> str | None:
        """The dotted name of the module (or module member) an expression names, if it does."""
        if isinstance(node, ast.Name):
            return self.modules.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.module_of(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def use(self, node: ast.AST, dotted: str) -> None:
        """Screen the use of a module member by its dotted name (``os.path.exists``): each module
        along the path may forbid the next part."""
        parts = dotted.split(".")
        if parts[0] == "jax":
            for end in range(1, len(parts)):
                name = ".".join(parts[: end + 1])
                if parts[end] in ENVIRONMENT_PARTS and name not in self.taught:
                    self.problem(node, f"`{name}` {ENVIRONMENT}")
                    return
        for end in range(1, len(parts)):
            rule = MODULE_RULES.get(".".join(parts[:end]))
            found = rule.problem(parts[end]) if rule is not None else None
            if found is not None:
                why, tampering = found
                name = ".".join(parts[: end + 1])
                if name not in self.taught:  # the exercise's own lesson
                    self.problem(node, f"`{name}` {why}", tampering=tampering)
                return

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        if not isinstance(node, ast.Lambda) and node.name.startswith("__"):
            self.problem(node, f"a function may not be named {node.name}")
        self.locals.append(_local_names(node))
        self.generic_visit(node)
        self.locals.pop()

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.problem(node, "an answer may not define classes; write functions")

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        self.problem(node, "an answer may not use `global` or `nonlocal`; return the value instead")

    visit_Nonlocal = visit_Global

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for _, description, package in _import_bindings(node):
            dotted = _dotted(description)
            plain_helpers = description == "import aurora_helpers"
            if package in HELPER_PACKAGES and not plain_helpers:
                self.problem(node, f"`{description}` reaches the checking code", tampering=True)
            elif package in NEVER_IMPORTS and not plain_helpers:
                self.problem(
                    node,
                    f"`{description}` is not allowed in an answer",
                    tampering=package in TAMPERING_IMPORTS,
                )
            elif package not in self.allowed_imports:
                self.problem(
                    node,
                    f"`{description}`: an answer may import JAX, NumPy, the standard library's "
                    "computing modules (math, operator, itertools, ...) and what the notebook "
                    "imports",
                    tampering=package in TAMPERING_IMPORTS,
                )
            elif any(part.startswith("_") for part in dotted.split(".")):
                self.problem(node, f"`{description}` reaches a private module")
            elif isinstance(node, ast.ImportFrom):
                self.use(node, dotted)
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    self.problem(node, "`from ... import *` is not allowed in an answer")

    visit_ImportFrom = visit_Import

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in BLOCKED_BUILTINS:
            tampering = node.id in TAMPERING_BUILTINS
            self.problem(node, f"`{node.id}` is not allowed in an answer", tampering=tampering)
        elif node.id.startswith("__") or node.id.startswith("_aurora"):
            self.problem(node, f"the name `{node.id}` is reserved", tampering=True)
        elif isinstance(node.ctx, ast.Load) and node.id in self.modules:
            dotted = self.modules[node.id]
            known = self.allowed_imports | NEVER_IMPORTS  # packages safe to import here
            module = isinstance(_resolved(dotted, known), types.ModuleType)
            if id(node) not in self.bases and module:
                self.problem(
                    node,
                    f"the module `{node.id}` used as a value: use its members where you need them "
                    f"(`{node.id}.name`), not the module itself",
                )
            self.use(node, dotted)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        module = self.module_of(node.value)
        at_top = not self.locals
        if node.attr.startswith("_"):
            self.problem(
                node, f"`.{node.attr}`: an answer may not use private or special attributes"
            )
        elif node.attr in NAMED_ACCESS_ATTRIBUTES:
            self.problem(node, f"`.{node.attr}` reads attributes by name", tampering=True)
        elif node.attr in FRAME_ATTRIBUTES:
            self.problem(node, f"`.{node.attr}` reaches a running frame", tampering=True)
        elif node.attr in FILE_ATTRIBUTES:
            self.problem(node, f"`.{node.attr}`: an answer may not read or write files")
        elif module in HELPER_PACKAGES and node.attr in CHECKING_NAMES:
            self.problem(
                node,
                f"`{ast.unparse(node)}`: an answer may not use the checking code (the check "
                "cell calls it)",
                tampering=not (at_top and self.calling(node)),
            )
        elif module is not None:
            self.use(node, f"{module}.{node.attr}")
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.problem(node, "an answer may not set or delete attributes", tampering=True)
        self.generic_visit(node)

    def calling(self, node: ast.Attribute) -> bool:
        """Whether ``node`` is called right where it is named (``ah.check(...)``)."""
        return any(isinstance(c, ast.Call) and c.func is node for c in self.calls)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            root = _root_name(node)
            if self.module_of(node.value) == "os.environ":
                self.problem(node, "an answer may not change the environment (`os.environ`)")
            elif not self.locals or root is None or root not in self.locals[-1]:
                self.problem(
                    node, "an answer may change items only of its functions' own variables"
                )
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) != 1:
            self.problem(node, "`type(...)` with more than one argument creates a class")
        if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS:
            root = _root_name(node.func.value)
            mine = bool(self.locals) and root in self.locals[-1]
            if self.module_of(node.func.value) == "os.environ":
                self.problem(node, "an answer may not change the environment (`os.environ`)")
            elif root is not None and self.course.bound.get(root) == "" and not mine:
                self.problem(
                    node,
                    f"`{root}....{node.func.attr}(...)` changes a value the course's cells made",
                )
        self.generic_visit(node)


def screen_solution(
    source: str, course: CourseNames, own_names: Iterable[str], exercise: str = ""
) -> Screening:
    """Why ``source`` may not stand in for a course solution cell (no problems: it may).

    Args:
        source: the learner's answer (one cell, or an exercise's cells joined).
        course: the course notebook's names (:func:`course_names`).
        own_names: names the course's own solution cell binds; the learner may bind these.
        exercise: its label; an exercise whose lesson changes the environment may do that
            (:data:`~aurora_helpers.checks._answer_rules.TAUGHT_ENVIRONMENT`).
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        return Screening([f"line {err.lineno}: not valid Python ({err.msg})"])
    screen = _Screen(tree, course, exercise)
    own = set(own_names)
    for node in _top_level(tree.body):
        for name, description in _own_statement_names(node):
            if name in own or (description and _same_import(description, course, name)):
                continue  # the answer's own name, or the notebook's import made again
            if name in ALWAYS_PROTECTED and description != "import aurora_helpers":
                screen.problem(
                    node,
                    f"rebinds `{name}`, which the course's cells use; choose another name",
                    tampering=name in HELPER_ALIASES,
                )
            elif name in course.bound:
                screen.problem(
                    node,
                    f"rebinds `{name}`, which the course's cells use; choose another name",
                    tampering=name.startswith("_aurora"),
                )
        if isinstance(node, ast.AnnAssign) and not isinstance(node.target, ast.Name):
            screen.problem(node, "assign to plain names only")
    screen.visit(tree)
    return screen.verdict


def screen_answer(
    cells: Sequence[str], course: CourseNames, own_names: Iterable[str], exercise: str = ""
) -> Screening:
    """:func:`screen_solution` of an answer written over several cells, screened as one piece of
    code (an import in one cell counts in the next) but with each problem placed in its cell."""
    if len(cells) <= 1:
        return screen_solution(cells[0] if cells else "", course, own_names, exercise)
    starts, joined, line = [], [], 1
    for source in cells:
        starts.append(line)
        text = source.rstrip("\n")
        joined.append(text)
        line += text.count("\n") + 3  # the cell's lines, then two blank ones
    verdict = screen_solution("\n\n\n".join(joined), course, own_names, exercise)

    def place(problem: str) -> str:
        number, sep, rest = problem.removeprefix("line ").partition(": ")
        if not sep or not number.isdigit():
            return problem
        cell = max(i for i, start in enumerate(starts) if start <= int(number))
        return f"cell {cell + 1} of the answer, line {int(number) - starts[cell] + 1}: {rest}"

    return Screening([place(p) for p in verdict.problems], [place(p) for p in verdict.attempts])
