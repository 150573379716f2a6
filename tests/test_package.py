"""The package's public names: one list (the tables in ``__init__``), mirrored for type checkers."""

import ast
import importlib

import aurora_helpers as ah

from .conftest import ROOT


def _type_checking_imports() -> dict[str, set[str]]:
    """Module -> names imported under ``if TYPE_CHECKING:`` in ``aurora_helpers/__init__.py``."""
    tree = ast.parse((ROOT / "aurora_helpers" / "__init__.py").read_text())
    found: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for item in node.body:
                assert isinstance(item, ast.ImportFrom) and item.level == 1, ast.unparse(item)
                found.setdefault(item.module, set()).update(a.name for a in item.names)
    return found


def test_type_checking_imports_mirror_the_tables():
    tables = {m: set(names) for m, names in {**ah._EAGER_MODULES, **ah._LAZY_MODULES}.items()}
    assert _type_checking_imports() == tables


def test_all_is_every_public_name_once_and_each_resolves_to_its_module():
    names = [
        n for table in (ah._EAGER_MODULES, ah._LAZY_MODULES) for v in table.values() for n in v
    ]
    assert sorted(names) == ah.__all__ and len(set(names)) == len(names)
    for module, public in {**ah._EAGER_MODULES, **ah._LAZY_MODULES}.items():
        loaded = importlib.import_module(f"aurora_helpers.{module}")
        for name in public:
            assert getattr(ah, name) is getattr(loaded, name), (module, name)
    assert not set(ah._EAGER_MODULES) & set(ah._LAZY_MODULES)


def test_imports_run_one_way():
    """No module imports a module that imports it back (cluster, throughput: subpackages)."""
    graph: dict[str, set[str]] = {}
    for path in (ROOT / "aurora_helpers").rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
                deps.add(target)
        graph[name] = {d for d in deps if d != name}
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
        if b in graph and a != "aurora_helpers" and reaches(b, a, {b})
    ]
    assert not cycles, f"modules that import each other (directly or through others): {cycles}"
