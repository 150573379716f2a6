"""Execute a notebook in a fresh Jupyter kernel: the one way the course's tools and tests do it.

:func:`execute_notebook` runs the code cells of an nbformat notebook in order, in place, in a new
``python3`` kernel started in ``cwd`` with the environment given, and returns an
:class:`Execution`: what ran, what raised, and whether the run timed out or the kernel died.
``aurora run`` (with the parameters papermill injects: :func:`inject_parameters`), ``aurora grade``
(a time limit for the whole notebook, a hook after each cell) and the notebook tests all use it.
The kernel's own output (warnings, a crash's last words) goes to a log file, not to the caller's
terminal.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .course_notebook import PARAMETERS_TAG, NotebookNode

#: Seconds any one cell may run unless the caller says otherwise.
CELL_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class CellError:
    """An error output of an executed code cell."""

    index: int  # the cell's index in the notebook
    count: int | None  # its execution count, as Jupyter shows it: ``[7]``
    ename: str
    evalue: str
    line: str = ""  # the line that raised, from the traceback ("" where it cannot be told)

    @property
    def gist(self) -> str:
        """``NameError: the first line of the message``; for an error without a message (a bare
        ``assert``), the line that raised: ``AssertionError at assert x == y``."""
        lines = self.evalue.strip().splitlines()
        if lines:
            return f"{self.ename}: {lines[0][:300]}"
        return f"{self.ename} at {self.line[:300]}" if self.line else f"{self.ename} (no message)"

    def __str__(self) -> str:
        return f"cell [{self.count}] raised {self.gist}"


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
#: IPython's marker of the line that raised in a traceback frame: ``----> 3 assert x``.
_RAISING_LINE = re.compile(r"^-+>\s*\d+\s?(?P<code>.*)$", re.M)


def raising_line(traceback: list[str]) -> str:
    """The source line that raised, read from IPython's traceback (its last marked line)."""
    text = _ANSI.sub("", "\n".join(str(t) for t in traceback))
    found = _RAISING_LINE.findall(text)
    return found[-1].strip() if found else ""


def cell_error(cell: NotebookNode, index: int = -1) -> CellError | None:
    """The first error output of an executed code cell (``index``: its place), if any."""
    if cell.get("cell_type") == "code":
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                ename, evalue = str(output.get("ename", "")), str(output.get("evalue", ""))
                line = raising_line(list(output.get("traceback", [])))
                return CellError(index, cell.get("execution_count"), ename, evalue, line)
    return None


def cell_errors(nb: NotebookNode) -> list[CellError]:
    """The error of each executed code cell of ``nb`` that raised, in order."""
    return [e for i, c in enumerate(nb.cells) if (e := cell_error(c, i)) is not None]


@dataclass
class Execution:
    """What executing a notebook did. The notebook itself now holds the outputs."""

    nb: NotebookNode
    seconds: float = 0.0
    executed: list[int] = field(default_factory=list)  # indices of the cells that started
    failure: Literal["timed out", "kernel died"] | None = None
    stopped_at: int | None = None  # the cell that was running when the run stopped
    #: The run stopped because one cell ran past ``cell_timeout_s`` (not the notebook's own time).
    cell_timed_out: bool = False
    detail: str = ""  # the failure in words

    @property
    def errors(self) -> list[CellError]:
        return cell_errors(self.nb)

    def problems(self) -> list[str]:
        """Everything that went wrong, in words (empty: every cell ran without an error)."""
        return ([self.detail] if self.failure else []) + [str(e) for e in self.errors]


def execute_notebook(
    nb: NotebookNode,
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout_s: float | None = None,
    cell_timeout_s: float = CELL_TIMEOUT_S,
    cell_limits: Mapping[int, float] | None = None,
    stop_on_error: bool = False,
    kernel_log: Path | None = None,
    after_cell: Callable[[int], None] | None = None,
    kernel_name: str = "python3",
) -> Execution:
    """Execute the code cells of ``nb`` in place, in order, in a fresh kernel started in ``cwd``.

    Args:
        env: variables set for the kernel on top of this process's environment.
        timeout_s: seconds the whole notebook may take (None: no limit but ``cell_timeout_s``).
        cell_timeout_s: seconds any one cell may take.
        cell_limits: seconds for particular cells (by index), in place of ``cell_timeout_s``
            (``aurora grade``: an exercise's cells).
        stop_on_error: stop at the first cell that raises (as papermill does); otherwise every
            cell runs and errors stay in the outputs.
        kernel_log: where the kernel's own stdout and stderr go (default: a temporary file, read
            for the last words of a kernel that died).
        after_cell: called with each code cell's index after it ran (``aurora grade`` and the
            tests read the check log there).
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    client = NotebookClient(
        nb,
        kernel_name=kernel_name,
        allow_errors=True,
        shutdown_kernel="immediate",
        startup_timeout=120,
        resources={"metadata": {"path": str(cwd)}},
    )
    run = Execution(nb)
    cell_limited = False
    start = time.monotonic()
    deadline = math.inf if timeout_s is None else start + timeout_s
    with tempfile.TemporaryDirectory(prefix="aurora-kernel-") as scratch:
        log = kernel_log or Path(scratch) / "kernel.log"
        try:
            with (
                log.open("wb") as sink,
                client.setup_kernel(env={**os.environ, **(env or {})}, stdout=sink, stderr=sink),
            ):
                for index, cell in enumerate(nb.cells):
                    if cell.get("cell_type") != "code":
                        continue
                    left = deadline - time.monotonic()
                    if left <= 0:
                        run.failure, run.detail = "timed out", f"stopped after {timeout_s:g} s"
                        break
                    limit = (cell_limits or {}).get(index, cell_timeout_s)
                    client.timeout = max(1, math.ceil(min(left, limit)))
                    cell_limited = limit <= left
                    run.stopped_at = index
                    run.executed.append(index)
                    client.execute_cell(cell, index)
                    run.stopped_at = None
                    if after_cell is not None:
                        after_cell(index)
                    if stop_on_error and cell_error(cell) is not None:
                        break
        except CellTimeoutError:
            run.failure = "timed out"
            run.detail = f"a cell was still running after {client.timeout:g} s"
            run.cell_timed_out = cell_limited
        except DeadKernelError:
            said = log.read_text("utf-8", "replace").strip().splitlines() if log.exists() else []
            run.failure = "kernel died"
            run.detail = "the kernel died" + (f": {said[-1][:200]}" if said else "")
    run.seconds = time.monotonic() - start
    return run


def inject_parameters(nb: NotebookNode, parameters: Mapping[str, Any]) -> NotebookNode:
    """``nb`` with papermill's ``injected-parameters`` cell after its ``parameters`` cell.

    Give only names the notebook declares (:func:`declared_parameters`).
    """
    if not parameters:
        return nb
    import nbformat
    from papermill.parameterize import parameterize_notebook

    nb.metadata["papermill"] = nbformat.from_dict({"parameters": {}})  # where papermill notes them
    for cell in nb.cells:  # papermill reads every cell's tags, as its own reader leaves them
        cell.setdefault("metadata", {}).setdefault("tags", [])
    return parameterize_notebook(nb, dict(parameters), kernel_name="python3", language="python")


def declared_parameters(nb: NotebookNode) -> set[str]:
    """The names a notebook's ``parameters`` cell assigns (what ``aurora run -p`` may set)."""
    import ast

    names: set[str] = set()
    for cell in nb.cells:
        if cell.get("cell_type") == "code" and PARAMETERS_TAG in cell.get("metadata", {}).get(
            "tags", []
        ):
            for node in ast.parse(cell.source).body:
                targets = node.targets if isinstance(node, ast.Assign) else []
                if isinstance(node, ast.AnnAssign):
                    targets = [node.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names
