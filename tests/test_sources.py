"""The text of notebook-defined functions and classes, for programs sent to other processes."""

import linecache
import textwrap

import pytest

import aurora_helpers as ah
from aurora_helpers.cluster.sources import SourceNotFound
from aurora_helpers.perf.state_sizes import StateBytes


def _define_in_a_cell(source: str, filename: str) -> dict:
    """What IPython does with a cell: its text goes into linecache, its code names that file."""
    source = textwrap.dedent(source)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {"__name__": "__main__"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


CELL = '''
import math

SCALE = 2


def twice(x):
    """Doubles."""
    return SCALE * x


@staticmethod
def unused():
    pass


class Box:
    """A box."""

    def __init__(self, size):
        self.size = size

    @property
    def area(self):
        return math.prod(self.size)

    def grow(self):
        return Box([twice(s) for s in self.size])


class Plain:
    pass

after = Box([1, 2])
'''


@pytest.fixture(params=["/tmp/ipykernel_0/000000001.py", "<ipython-input-0-0123456789ab>"])
def cell(request):
    """A cell as Jupyter's kernel names it, and as a bare IPython shell does."""
    yield _define_in_a_cell(CELL, request.param)
    linecache.cache.pop(request.param, None)


def test_a_class_from_a_cell_comes_back_whole_and_alone(cell):
    code = ah.source_of(cell["Box"])
    assert code.startswith("class Box:") and "def grow(self):" in code
    assert "class Plain" not in code and "after =" not in code and "def twice" not in code


def test_the_text_rebuilds_working_definitions(cell):
    code = ah.source_of(cell["twice"], cell["Box"])
    namespace = {"math": __import__("math"), "SCALE": 2}
    exec(code, namespace)
    assert namespace["Box"]([1, 3]).grow().area == 12


def test_a_function_keeps_its_decorators_and_docstring():
    namespace = _define_in_a_cell(
        '''
        import functools

        @functools.lru_cache
        def cached(n):
            """Cached."""
            return n + 1
        ''',
        "/tmp/ipykernel_0/000000002.py",
    )
    code = ah.source_of(namespace["cached"].__wrapped__)
    assert code.startswith("@functools.lru_cache") and '"""Cached."""' in code


def test_a_class_defined_in_a_file_is_read_by_inspect():
    code = ah.source_of(StateBytes)
    assert code.startswith("@dataclass(frozen=True)\nclass StateBytes:")


def test_methods_generated_elsewhere_are_passed_over(cell):
    import dataclasses

    generated = dataclasses.dataclass(cell["Box"])  # adds an __eq__ whose code is "<string>"
    assert ah.source_of(generated).startswith("class Box:")


def test_a_class_without_methods_of_its_own_is_refused(cell):
    with pytest.raises(SourceNotFound, match=r"class Plain.*at least one method"):
        ah.source_of(cell["Plain"])


def test_lambdas_closures_and_nested_definitions_are_refused():
    factor = 3

    def closure(x):
        return factor * x

    def nested():
        class Inner:
            def f(self):
                return 1

        return Inner

    with pytest.raises(SourceNotFound, match="lambda"):
        ah.source_of(lambda x: x)
    with pytest.raises(SourceNotFound, match="lambda or is defined inside"):
        ah.source_of(closure)
    with pytest.raises(SourceNotFound, match="inside a function"):
        ah.source_of(nested())
    with pytest.raises(SourceNotFound, match="functions and classes"):
        ah.source_of(len)
    with pytest.raises(SourceNotFound, match="functions and classes"):
        ah.source_of(3)
    with pytest.raises(ValueError, match="at least one"):
        ah.source_of()
    assert issubclass(SourceNotFound, TypeError)


def test_a_function_whose_text_is_gone_is_refused():
    namespace: dict = {}
    exec(compile("def lost(x):\n    return x\n", "/nowhere/lost.py", "exec"), namespace)
    with pytest.raises(SourceNotFound, match="not available"):
        ah.source_of(namespace["lost"])
