"""Show a deliberate error without stopping "Run all".

A notebook sometimes teaches by failing: writing into a JAX array, a Python ``if`` on a traced
value. A cell that raises stops "Run all" in Colab (which has no cell tags) and in JupyterLab
without the ``raises-exception`` tag. :func:`expect_error` runs the failing code, shows the error
as the last line of a traceback would, and checks that it is the error the text promises.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class ShownError:
    """What :func:`expect_error` caught: the exception itself, once the block has run."""

    error: BaseException | None = None

    @property
    def message(self) -> str:
        return str(self.error) if self.error is not None else ""


def _first_lines(text: str, limit: int = 6) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    shown = lines[:limit]
    if len(lines) > limit:
        shown.append(f"... ({len(lines) - limit} more lines)")
    return "\n".join(shown)


@contextmanager
def expect_error(
    kind: type[BaseException] | tuple[type[BaseException], ...],
    match: str | None = None,
    *,
    show: bool = True,
) -> Iterator[ShownError]:
    """Run the ``with`` block, which must raise ``kind``; print the error and carry on.

    Args:
        kind: the exception class (or classes) the block must raise; subclasses count.
        match: a regular expression that must be found (``re.search``) in the error's message.
        show: print ``ErrorType: message`` (the first lines of a long message), as a traceback
            would end.

    Yields:
        A :class:`ShownError` whose ``error`` is set once the block has raised.

    Raises:
        AssertionError: the block raised nothing, or its message does not match ``match``.
        BaseException: an exception of another kind, unchanged (the claim was wrong).
    """
    shown = ShownError()
    names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
    try:
        yield shown
    except kind as err:
        shown.error = err
        if show:
            print(f"{type(err).__name__}: {_first_lines(str(err))}")
        if match is not None and not re.search(match, str(err)):
            raise AssertionError(
                f"the {type(err).__name__} raised here does not match {match!r}: {str(err)[:300]}"
            ) from err
    else:
        raise AssertionError(f"expected {names} to be raised here, but the code ran without error")
