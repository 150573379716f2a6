"""Count XLA compilations, so a notebook can show recompilation instead of guessing it.

Every call of a ``jax.jit`` function whose argument types, shapes or static values the function has
not seen before compiles a new program; the compile cache hides the cost of every later call.
:func:`count_compilations` listens to the compile event JAX reports through its public
``jax.monitoring`` module (the same in every supported JAX) and records each compilation with its
duration. It uses no private API such as a jitted function's ``_cache_size()``::

    with ah.count_compilations(f) as compiled:
        f(x); f(x); f(y_of_another_shape)
    assert compiled.count == 2
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from jax import monitoring

#: The ``jax.monitoring`` duration event JAX records once per XLA compilation, with the compiled
#: program's name (``"jit(f)"``) in its ``fun_name`` metadata.
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


@dataclass
class Compilations:
    """The compilations seen so far inside a :func:`count_compilations` block (updated live).

    ``names`` holds each compiled program's name as JAX reports it (``"jit(f)"``), ``seconds`` its
    compile time, in the order they happened.
    """

    only: str | None = None
    names: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    @property
    def count(self) -> int:
        """How many compilations were recorded."""
        return len(self.names)

    @property
    def total_seconds(self) -> float:
        """Time spent compiling, summed over the recorded compilations."""
        return float(sum(self.seconds))

    def __str__(self) -> str:
        what = f" of {self.only}" if self.only else ""
        plural = "" if self.count == 1 else "s"
        return f"{self.count} compilation{plural}{what} ({self.total_seconds:.3f} s compiling)"

    __repr__ = __str__


def _program_name_matches(program: str, wanted: str) -> bool:
    """``jit(f)`` and ``pmap(f)`` match ``f``; so does a bare ``f``."""
    return program == wanted or program.endswith(f"({wanted})")


def _wanted_name(fun: Callable[..., Any] | str | None) -> str | None:
    if fun is None:
        return None
    if isinstance(fun, str):
        if not fun:
            raise ValueError("count_compilations(''): give the function's name, e.g. 'step'")
        return fun
    if not callable(fun):
        raise TypeError(
            f"count_compilations() takes a function, its name as a string, or None; got "
            f"{type(fun).__name__}. Example: `with ah.count_compilations(step) as compiled:`"
        )
    name = getattr(fun, "__name__", None)
    if not isinstance(name, str) or not name:
        raise TypeError(
            f"cannot tell the name of {fun!r} (functools.partial objects have none); pass the "
            "name JAX compiles it under as a string instead, e.g. count_compilations('step')"
        )
    return name


@contextmanager
def count_compilations(fun: Callable[..., Any] | str | None = None) -> Iterator[Compilations]:
    """Record every XLA compilation inside the ``with`` block.

    Args:
        fun: count only programs compiled for this function (a jitted function, the Python
            function it wraps, or its ``__name__``); ``None`` counts every compilation, including
            the small programs JAX compiles for operations such as ``jnp.ones`` outside ``jit``.
            Matching is by name: two different functions called ``f`` both count as ``f``.

    Yields:
        A :class:`Compilations` record, updated as compilations happen. It keeps its contents
        after the block ends; the listener is removed even when the block raises.

    Raises:
        TypeError: ``fun`` is neither a named callable, a string nor ``None``.
        ValueError: ``fun`` is an empty string.
    """
    wanted = _wanted_name(fun)
    record = Compilations(only=wanted)

    def listener(event: str, duration_secs: float, **metadata: Any) -> None:
        if event != COMPILE_EVENT:
            return
        program = str(metadata.get("fun_name", ""))
        if wanted is None or _program_name_matches(program, wanted):
            record.names.append(program)
            record.seconds.append(float(duration_secs))

    monitoring.register_event_duration_secs_listener(listener)
    try:
        yield record
    finally:
        monitoring.unregister_event_duration_listener(listener)
