"""The check's own references, detected when an answer reaches them by any path.

An exercise that asks for a number the notebook already computes (09's ``fsdp_memory``, XLA's
cost analysis in 05) is passed by calling that reference: by its name, through an alias, a
default argument, ``jax.jit`` of it, or a copy of the function. Names are easy to dodge, so this
follows what runs: while the answer runs, a profile hook notes every call whose code is a
reference's code (a copy of a function shares it) and every call of a function or built-in
method with a reference's name (``"cost_analysis"`` covers ``Compiled.cost_analysis()``). A
nanobind method (jaxlib's ``LoadedExecutable.cost_analysis``) is invisible to profile hooks:
name the Python road to it as well (``"runtime_executable"``); private roads (``._executable``)
are refused by the answer screen.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ._watch import watching_calls

#: What may be given: a Python function (followed by its code) or a name (a built-in's).
OffLimits = Sequence[Callable[..., Any] | str]


def _targets(off_limits: OffLimits) -> tuple[dict[Any, str], set[str]]:
    codes: dict[Any, str] = {}
    names: set[str] = set()
    for ref in off_limits:
        if isinstance(ref, str):
            names.add(ref)
            continue
        code = getattr(inspect.unwrap(ref), "__code__", None)
        label = getattr(ref, "__name__", repr(ref))
        if code is None:
            names.add(label)
        else:
            codes[code] = label
        clear = getattr(ref, "clear_cache", None)
        if callable(clear):  # a jitted reference: its Python runs again when traced
            clear()
    return codes, names


@contextlib.contextmanager
def watching(off_limits: OffLimits) -> Iterator[list[str]]:
    """Within the block, collect the names of the references reached (in this thread and in
    threads started inside it). Yields the list, filled as calls happen."""
    reached: list[str] = []
    if not off_limits:
        yield reached
        return
    codes, names = _targets(off_limits)

    def watch(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            label = codes.get(code) or (code.co_name if code.co_name in names else None)
            if label and label not in reached:
                reached.append(label)
        elif event == "c_call":
            name = getattr(arg, "__name__", None)
            if name in names and name not in reached:
                reached.append(name)

    with watching_calls(watch, threads=True):
        yield reached


def reached_problem(reached: list[str]) -> str:
    """What to tell a learner whose answer reached a reference."""
    return (
        f"your answer reaches {', '.join(reached)}, which is what this check compares against: "
        "work the result out the way the section teaches, without it"
    )
