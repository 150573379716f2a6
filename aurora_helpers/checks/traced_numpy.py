"""An answer that tries NumPy first and falls back to JAX when it is traced.

``try: <NumPy on the arrays> except: <the taught JAX route>`` computes with NumPy whenever a
learner calls it, and with JAX only under a trace. A check that reads one traced program takes
its values and its route from the JAX branch, which is right, so the NumPy road a learner's own
calls take goes unseen. What gives it away is the attempt: NumPy asking a traced value for its
data (``Tracer.__array__``), from the answer's code rather than from inside JAX. This module
watches for that attempt while the answer is traced; whether the answer then caught the error is
beside the point.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import jax

from ._watch import watching_calls

_ASKS = frozenset(
    getattr(jax.core.Tracer, name).__code__
    for name in ("__array__", "tolist")
    if hasattr(getattr(jax.core.Tracer, name, None), "__code__")
)


def _from_answer(frame: Any) -> bool:
    """Whether the call came from the answer's code: the nearest caller outside NumPy is not
    JAX's own code (JAX converts traced values on purpose, inside ``try``, in a few places)."""
    caller = frame.f_back
    while caller is not None and "/numpy/" in caller.f_code.co_filename.replace("\\", "/"):
        caller = caller.f_back
    if caller is None:
        return True
    name = caller.f_code.co_filename.replace("\\", "/")
    return "/jax/" not in name and "/jaxlib/" not in name


@contextlib.contextmanager
def watching_numpy_on_traced() -> Iterator[list[str]]:
    """Within the block, note each time the answer's code asks a traced value for NumPy data.
    Yields a list that holds one entry per attempt seen (the function that asked)."""
    seen: list[str] = []

    def watch(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in _ASKS and _from_answer(frame):
            seen.append(getattr(frame.f_back, "f_code", frame.f_code).co_name)

    with watching_calls(watch):
        yield seen


SWITCHES = (
    "your function tries NumPy on its arrays first and turns to JAX only when JAX traces it, so "
    "every call you make computes with NumPy: compute with JAX operations whatever it is given"
)
