"""One way for the checks to watch what an answer runs: a profile hook for the length of a block.

The checks that follow cause (a reference reached by any path, NumPy asked for a traced value's
data, the largest array made, calls counted) all watch the Python calls an answer makes. They
share this hook's installation: it chains onto a watch already in place, so one check's watch
does not switch off another's, and the previous hook comes back however the block ends.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

#: A profile hook: ``(frame, event, arg)``, as :func:`sys.setprofile` calls it.
Hook = Callable[[Any, str, Any], None]


@contextlib.contextmanager
def watching_calls(hook: Hook, *, threads: bool = False) -> Iterator[None]:
    """Within the block, call ``hook`` on every profile event of this thread (and, with
    ``threads``, of threads started inside the block), then the watch already in place."""
    before = sys.getprofile()
    before_threads = threading.getprofile() if threads else None

    def watch(frame: Any, event: str, arg: Any) -> None:
        hook(frame, event, arg)
        if before is not None:
            before(frame, event, arg)

    sys.setprofile(watch)
    if threads:
        threading.setprofile(watch)
    try:
        yield
    finally:
        sys.setprofile(before)
        if threads:
            threading.setprofile(before_threads)
