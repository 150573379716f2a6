"""The source text of functions and classes a notebook defined, for programs run elsewhere.

A cluster process is a fresh Python that knows nothing the notebook defined. A real multi-host
job imports its model from a package installed on every host; in a course the model lives in a
notebook cell. ``ah.source_of(Block, Decoder)`` returns the text that defines them, so that a
program sent to the cluster can run it (``exec``) and then use the same classes::

    code = ah.source_of(rms_norm, Block, Decoder)
    cluster.run(evaluate, args=(code, ...))   # evaluate() execs `code` before it builds a model

Functions come from :func:`inspect.getsource`. A class defined in a notebook cell has no file
:mod:`inspect` can read, so its text is found through one of its methods: the method's code
object names the cell, and IPython keeps every cell's text in :mod:`linecache`.
"""

from __future__ import annotations

import inspect
import linecache
import re
import textwrap
from typing import Any


class SourceNotFound(TypeError):
    """The definition of an object cannot be recovered as text."""


def _function_source(fn: Any) -> str:
    if fn.__name__ == "<lambda>" or "<locals>" in fn.__qualname__:
        raise SourceNotFound(
            f"{fn.__qualname__} is a lambda or is defined inside another function; define it "
            "with `def` at the top level of a cell so that its text stands on its own"
        )
    if fn.__code__.co_freevars:
        raise SourceNotFound(
            f"{fn.__qualname__} uses variables of an enclosing function "
            f"({', '.join(fn.__code__.co_freevars)}); its text alone cannot rebuild it"
        )
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError) as err:
        raise SourceNotFound(f"the source of {fn.__qualname__} is not available ({err})") from None


def _methods(cls: type) -> list[Any]:
    """The plain functions defined in ``cls``'s own body (properties and wrappers unwrapped)."""
    found = []
    for value in vars(cls).values():
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        elif isinstance(value, property):
            value = value.fget
        if getattr(value, "__code__", None) is not None:
            found.append(value)
    return found


def _class_source_from_cell(cls: type) -> str:
    """Find ``class Name`` above one of its methods in the text of the cell that defined it."""
    header = re.compile(rf"^(\s*)class\s+{re.escape(cls.__name__)}\b")
    for method in _methods(cls):
        code = method.__code__
        lines = linecache.getlines(code.co_filename)  # none for generated code ("<string>")
        if not lines:
            continue
        above = [i for i in range(min(code.co_firstlineno, len(lines))) if header.match(lines[i])]
        if not above:
            continue
        start = above[-1]
        while start > 0 and lines[start - 1].lstrip().startswith("@"):  # its decorators
            start -= 1
        first = above[-1]
        block = inspect.getblock(lines[first:])
        return textwrap.dedent("".join(lines[start:first]) + "".join(block))
    raise SourceNotFound(
        f"the source of class {cls.__qualname__} is not available: define it at the top level "
        "of a notebook cell (or in a file) with at least one method of its own"
    )


def _class_source(cls: type) -> str:
    if "<locals>" in cls.__qualname__:
        raise SourceNotFound(
            f"{cls.__qualname__} is defined inside a function; define it at the top level"
        )
    try:
        return textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return _class_source_from_cell(cls)


def source_of(*objects: Any) -> str:
    """The text that defines each of ``objects`` (functions and classes), in the order given.

    The text holds the definitions only, not the imports or globals they use: a program that
    runs it provides those first (e.g. ``exec(code, {"jnp": jax.numpy, ...})``).

    Raises:
        SourceNotFound: an object is a lambda, a closure, defined inside a function, built in,
            or its text is not available (a ``TypeError``).
    """
    if not objects:
        raise ValueError("name at least one function or class")
    texts = []
    for obj in objects:
        if inspect.isclass(obj):
            texts.append(_class_source(obj))
        elif inspect.isfunction(obj):
            texts.append(_function_source(obj))
        else:
            raise SourceNotFound(
                f"source_of takes functions and classes defined in Python, got "
                f"{type(obj).__name__} {obj!r:.60}"
            )
    code = "\n\n".join(text.rstrip() + "\n" for text in texts)
    compile(code, "<source_of>", "exec")  # the pieces must stand on their own
    return code
