"""The rules an answer cell must follow, checked statically: what ``aurora grade`` screens.

A solution cell may hold what ``aurora student`` can stub: imports, function definitions and
assignments to plain names. The screen also rejects code that could fake a pass instead of solving
the exercise: patching the checking code, reaching the interpreter's internals, rebinding names
the course's own cells rely on, or writing outside the function's own variables. It reads the code
only (Python's ``ast``); it never runs it. Each problem is one sentence naming the line.

The rules live in the helpers, not in the tools, so that a notebook's own ``ah.check`` can apply
the same screen as ``aurora grade`` (and the two never disagree); they import nothing but the
standard library.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

#: Packages a solution may import from, besides those the course notebook imports itself.
BASE_IMPORTS = frozenset(
    {
        "jax",
        "jaxlib",
        "numpy",
        "math",
        "functools",
        "itertools",
        "typing",
        "collections",
        "dataclasses",
    }
)
#: Packages a solution may never import: they reach the interpreter, the file system, other
#: processes or the checking code.
BLOCKED_IMPORTS = frozenset(
    {
        "IPython", "_thread", "aurora_course", "aurora_helpers", "atexit", "builtins", "code", "codeop", "ctypes",
        "gc", "importlib", "inspect", "io", "marshal", "multiprocessing", "operator", "os",
        "pathlib", "pdb", "pickle", "runpy", "shutil", "signal", "socket", "subprocess", "sys",
        "tempfile", "threading", "traceback", "types", "unittest", "weakref", "ipykernel",
    }
)  # fmt: skip
#: Built-in functions that read or change namespaces, attributes or files by name.
BLOCKED_BUILTINS = frozenset(
    {
        "__import__", "breakpoint", "compile", "delattr", "eval", "exec", "getattr", "globals",
        "input", "locals", "memoryview", "open", "setattr", "vars", "exit", "quit", "get_ipython",
    }
)  # fmt: skip
#: Built-ins that change namespaces or attributes or run code from text: using one is tampering.
TAMPERING_BUILTINS = frozenset(
    {"__import__", "compile", "delattr", "eval", "exec", "globals", "locals", "setattr", "vars"}
)
#: Imports that reach the interpreter's internals: using one is tampering.
TAMPERING_IMPORTS = frozenset({"builtins", "ctypes", "gc", "importlib", "inspect", "sys"})
#: Methods that change their object in place (lists, dicts, sets, NumPy arrays). Called on a
#: value one of the course's cells made (not an imported module), they could change what a check
#: compares.
MUTATING_METHODS = frozenset(
    {
        "append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault",
        "sort", "reverse", "add", "discard", "fill", "put", "resize", "setflags", "itemset",
        "partition", "byteswap",
    }
)  # fmt: skip
#: Public names of the helpers that do the checking; a solution has no use for them.
CHECKING_NAMES = frozenset(
    {
        "check", "exercises", "routes", "contract", "answer_screen", "CheckResult", "ExerciseFailed", "NotSolvedYet",
        "Case", "differences", "assert_matches", "expect_error", "student",
    }
)  # fmt: skip
#: Names the course's cells rely on whatever the notebook binds: the helpers, IPython's, and
#: every built-in (a learner's ``sum = ...`` would change what a check cell computes).
ALWAYS_PROTECTED = frozenset(
    {"ah", "aurora_helpers", "get_ipython", "display", "In", "Out", *dir(builtins)}
)
#: Attributes that read or write files or the environment (NumPy's ``tofile``, ``os.environ``).
#: Not ``load``: Pallas kernels use ``pl.load``.
BLOCKED_ATTRIBUTES = frozenset(
    {
        "tofile", "fromfile", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt",
        "fromregex", "memmap", "DataSource", "environ", "system", "popen",
    }
)  # fmt: skip
#: The names under which the helpers are imported in notebooks.
HELPER_ALIASES = frozenset({"ah", "aurora_helpers"})
#: The course's packages: importing their modules from an answer reaches the checking code.
HELPER_PACKAGES = frozenset({"aurora_helpers", "aurora_course"})


@dataclass
class Screening:
    """The verdict on one solution cell: the problems found (empty: it may run), in words.

    ``tampering`` is true when a problem is an attempt at the checking machinery (patching
    ``ah.check``, setting attributes, rebinding ``ah``, ``exec``, ``sys``, ...) rather than a
    statement a solution cell may not hold.
    """

    problems: list[str] = field(default_factory=list)
    #: The problems that are attempts at the checking machinery (a subset of ``problems``).
    attempts: list[str] = field(default_factory=list)

    @property
    def tampering(self) -> bool:
        return bool(self.attempts)

    def add(self, node: ast.AST, text: str, *, tampering: bool = False) -> None:
        problem = f"line {getattr(node, 'lineno', '?')}: {text}"
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


def _module_level_bindings(tree: ast.Module) -> Iterable[tuple[str, str]]:
    """Names a cell binds at the top level, with their description (see :class:`CourseNames`)."""
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for bound, description, _ in _import_bindings(node):
                yield bound, description
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, ""
        else:
            for sub in ast.walk(node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    yield sub.id, ""


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
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                imports.update(package for _, _, package in _import_bindings(node) if package)
        if not is_solution:
            for name, description in _module_level_bindings(tree):
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


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


class _Screen(ast.NodeVisitor):
    """Walks a solution cell, collecting problems; tracks the enclosing function's locals."""

    def __init__(self, allowed_imports: frozenset[str], course: CourseNames) -> None:
        self.verdict = Screening()
        self.allowed_imports = allowed_imports
        self.course = course
        self.locals: list[set[str]] = []

    def problem(self, node: ast.AST, text: str, *, tampering: bool = False) -> None:
        self.verdict.add(node, text, tampering=tampering)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        if not isinstance(node, ast.Lambda) and node.name.startswith("__"):
            self.problem(node, f"a function may not be named {node.name}")
        self.locals.append(_local_names(node))
        self.generic_visit(node)
        self.locals.pop()

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.problem(node, "a solution may not define classes")

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        self.problem(node, "a solution may not use `global` or `nonlocal`")

    visit_Nonlocal = visit_Global

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> None:
        for _, description, package in _import_bindings(node):
            if package in BLOCKED_IMPORTS and not (
                package == "aurora_helpers" and description == "import aurora_helpers"
            ):
                tampering = package in TAMPERING_IMPORTS or package in HELPER_PACKAGES
                self.problem(
                    node, f"`{description}` is not allowed in a solution", tampering=tampering
                )
            elif package not in self.allowed_imports:
                self.problem(
                    node,
                    f"`{description}`: a solution may import only {', '.join(sorted(self.allowed_imports))}",
                )
            elif any(part.startswith("_") for part in description.split()[1].split(".")):
                self.problem(node, f"`{description}` reaches a private module")
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*" or alias.name.startswith("_"):
                    self.problem(
                        node, f"`from ... import {alias.name}` is not allowed in a solution"
                    )

    visit_ImportFrom = visit_Import

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in BLOCKED_BUILTINS:
            tampering = node.id in TAMPERING_BUILTINS
            self.problem(node, f"`{node.id}` is not allowed in a solution", tampering=tampering)
        elif node.id.startswith("__") or node.id.startswith("_aurora"):
            self.problem(node, f"the name `{node.id}` is reserved", tampering=True)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr.startswith("_"):
            self.problem(
                node, f"`.{node.attr}`: a solution may not use private or special attributes"
            )
        elif node.attr in BLOCKED_ATTRIBUTES:
            self.problem(
                node, f"`.{node.attr}`: a solution may not read or write files or the environment"
            )
        elif (
            isinstance(node.value, ast.Name)
            and node.value.id in HELPER_ALIASES
            and node.attr in CHECKING_NAMES
        ):
            self.problem(
                node,
                f"`{node.value.id}.{node.attr}`: a solution may not use the checking code",
                tampering=True,
            )
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.problem(node, "a solution may not set or delete attributes", tampering=True)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            root = _root_name(node)
            if not self.locals or root is None or root not in self.locals[-1]:
                self.problem(
                    node, "a solution may change items only of its functions' own variables"
                )
        self.generic_visit(node)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        if not self.locals:
            self.problem(node, "`:=` outside a function is not allowed in a solution")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) != 1:
            self.problem(node, "`type(...)` with more than one argument creates a class")
        if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATING_METHODS:
            root = _root_name(node.func.value)
            mine = bool(self.locals) and root in self.locals[-1]
            if root is not None and self.course.bound.get(root) == "" and not mine:
                self.problem(
                    node,
                    f"`{root}....{node.func.attr}(...)` changes a value the course's cells made",
                )
        self.generic_visit(node)


_KINDS = {"Expr": "an expression (a call, a print)", "AugAssign": "an augmented assignment"}


def screen_solution(source: str, course: CourseNames, own_names: Iterable[str]) -> Screening:
    """Why ``source`` may not stand in for a course solution cell (no problems: it may).

    Args:
        source: the learner's cell.
        course: the course notebook's names (:func:`course_names`).
        own_names: names the course's own solution cell binds; the learner may bind these.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        return Screening([f"line {err.lineno}: not valid Python ({err.msg})"])
    screen = _Screen(BASE_IMPORTS | (course.imports - BLOCKED_IMPORTS) | {"aurora_helpers"}, course)
    own = set(own_names)
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for bound, description, _ in _import_bindings(node):
                if bound in own:
                    continue
                if bound in ALWAYS_PROTECTED and description != "import aurora_helpers":
                    screen.problem(
                        node,
                        f"`{description}` rebinds `{bound}`, which the course's cells use",
                        tampering=bound in HELPER_ALIASES,
                    )
                elif bound in course.bound and course.bound[bound] != description:
                    screen.problem(
                        node,
                        f"`{description}` rebinds `{bound}`, which the course's cells use; choose another name",
                    )
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign, ast.AnnAssign)):
            if isinstance(node, ast.AnnAssign) and not isinstance(node.target, ast.Name):
                screen.problem(node, "assign to plain names only")
            if isinstance(node, ast.Assign) and not all(
                isinstance(e, ast.Name)
                for t in node.targets
                for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t])
            ):
                screen.problem(node, "assign to plain names only")
            for name, _ in _module_level_bindings(ast.Module(body=[node], type_ignores=[])):
                if name not in own and (name in course.bound or name in ALWAYS_PROTECTED):
                    screen.problem(
                        node,
                        f"rebinds `{name}`, which the course's cells use; choose another name",
                        tampering=name in HELPER_ALIASES or name.startswith("_aurora"),
                    )
        elif not (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ) and not isinstance(node, ast.Pass):
            screen.problem(
                node,
                f"a solution cell may hold only imports, function definitions and assignments to "
                f"names, found {_KINDS.get(type(node).__name__, type(node).__name__)}; move it "
                f"to a cell of its own",
            )
    screen.visit(tree)
    return screen.verdict
