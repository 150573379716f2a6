"""Budgets over everything an answer does, not over one call or one kind of memory.

A budget read from one place is dodged by doing the work in another: ``tracemalloc`` sees host
memory only, so a callback that builds the whole array with ``jax.numpy`` on a device and slices
its block out passes a host-memory budget. :func:`largest_array_made` watches every JAX array
any Python function returns while the answer runs (JAX's own functions included, however deep),
so a whole array made anywhere, on any device, is seen. A per-call bound is dodged by more
calls (one ``process_allgather`` per row, each within the bound): :func:`calls_counted` counts
every call of the functions a budget is about, by their code, whatever name or alias calls them.
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax

from ._watch import watching_calls


@dataclass
class ArraysMade:
    """What :func:`largest_array_made` saw: the largest array's bytes and shape, and how many
    arrays were made."""

    largest_bytes: int = 0
    largest_shape: tuple[int, ...] = ()
    count: int = 0
    _seen: set[int] = field(default_factory=set, repr=False)

    def saw(self, value: Any) -> None:
        if not isinstance(value, jax.Array) or id(value) in self._seen:
            return
        self._seen.add(id(value))
        self.count += 1
        size = int(value.size) * value.dtype.itemsize
        if size > self.largest_bytes:
            self.largest_bytes, self.largest_shape = size, tuple(value.shape)


def largest_array_made(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, ArraysMade]:
    """Call ``fn(*args, **kwargs)`` and report the largest JAX array (global size, in bytes) that
    any Python function returned while it ran, in this thread: ``jnp.arange(n)`` made and then
    sliced counts at its full size. Arrays passed in are not counted unless returned again by a
    function called inside (``fn`` returning its argument counts it).
    """
    made = ArraysMade()

    def watch(frame: Any, event: str, arg: Any) -> None:
        if event == "return":
            made.saw(arg)
            if isinstance(arg, tuple | list):
                for item in arg[:64]:
                    made.saw(item)

    with watching_calls(watch):
        value = fn(*args, **kwargs)
    made.saw(value)
    return value, made


def calls_counted(
    targets: Sequence[Callable[..., Any]], fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[Any, Counter[str]]:
    """Call ``fn(*args, **kwargs)`` and count the calls of each of ``targets`` made while it ran
    (in this thread), keyed by the target's ``__name__``: a function is recognised by its code,
    so an alias, a ``functools.partial`` or a copy of it counts too."""
    codes = {
        getattr(inspect.unwrap(t), "__code__", None): getattr(t, "__name__", repr(t))
        for t in targets
    }
    codes.pop(None, None)
    counted: Counter[str] = Counter({name: 0 for name in codes.values()})

    def watch(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in codes:
            counted[codes[frame.f_code]] += 1

    with watching_calls(watch):
        value = fn(*args, **kwargs)
    return value, counted
