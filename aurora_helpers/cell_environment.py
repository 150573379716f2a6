"""What each cell of this kernel changed in the environment a check runs answers in, so that the
check can put back what an answer changed.

An answer cell runs before its check, at the top level of the learner's kernel: a
``jax.config.update("jax_enable_x64", True)`` or an ``os.environ[...] = ...`` there changes the
environment of the check *and of every cell after it*. The answer rules refuse such lines by name
(:mod:`aurora_helpers.checks._answer_rules`); this module is the other half, by effect: the set-up
cell (:func:`aurora_helpers.setup_notebook`) asks IPython to note, cell by cell, which of JAX's
configuration values and which environment variables the cell changed; before a check runs an
answer it puts back what the answer's cells changed (whatever path they took to change it) and
says so, so that the check, and the rest of the notebook, run as the course wrote them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import jax

#: What stands for "not set" among the environment variables.
_UNSET = object()


@dataclass(frozen=True)
class Change:
    """One value a cell changed: a JAX option (``jax_enable_x64``) or an environment variable."""

    kind: str  # "config" or "environ"
    name: str
    before: Any
    after: Any

    def describe(self) -> str:
        def shown(value: Any) -> str:
            return "unset" if value is _UNSET else repr(value)

        what = "JAX's option" if self.kind == "config" else "the environment variable"
        return f"{what} `{self.name}` ({shown(self.before)} → {shown(self.after)})"


def _snapshot() -> dict[tuple[str, str], Any]:
    values: dict[tuple[str, str], Any] = {("config", k): v for k, v in jax.config.values.items()}
    values.update({("environ", k): v for k, v in os.environ.items()})
    return values


def _differences(
    before: dict[tuple[str, str], Any], after: dict[tuple[str, str], Any]
) -> list[Change]:
    changes = []
    for key in before.keys() | after.keys():
        old, new = before.get(key, _UNSET), after.get(key, _UNSET)
        if old is not new and old != new:
            changes.append(Change(key[0], key[1], old, new))
    return sorted(changes, key=lambda c: (c.kind, c.name))


class CellChanges:
    """IPython's ``pre_run_cell``/``post_run_cell`` hooks that note, per execution count, what
    each cell changed."""

    def __init__(self) -> None:
        self.by_cell: dict[int, list[Change]] = {}
        self._before: dict[tuple[str, str], Any] | None = None

    def pre_run_cell(self, info: Any = None) -> None:
        self._before = _snapshot()

    def post_run_cell(self, result: Any = None) -> None:
        count = getattr(result, "execution_count", None)
        if self._before is None or count is None:
            return
        changes = _differences(self._before, _snapshot())
        self._before = None
        if changes:
            self.by_cell[count] = changes

    def since(self, first_count: int) -> list[Change]:
        """Every value the cells from ``first_count`` on changed, from its value before the first
        of them to its value now (a value set and set back again is no change)."""
        first: dict[tuple[str, str], Change] = {}
        for count in sorted(c for c in self.by_cell if c >= first_count):
            for change in self.by_cell[count]:
                first.setdefault((change.kind, change.name), change)
        now = _snapshot()
        kept = []
        for key, change in sorted(first.items()):
            current = now.get(key, _UNSET)
            if current is not change.before and current != change.before:
                kept.append(Change(change.kind, change.name, change.before, current))
        return kept


_watcher: CellChanges | None = None


def watch_cells() -> None:
    """Note what each later cell of this IPython kernel changes (idempotent; nothing outside
    IPython)."""
    global _watcher
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or (_watcher is not None and _watcher in _registered(shell)):
        return
    _watcher = CellChanges()
    shell.events.register("pre_run_cell", _watcher.pre_run_cell)
    shell.events.register("post_run_cell", _watcher.post_run_cell)


def _registered(shell: Any) -> list[Any]:
    callbacks = shell.events.callbacks.get("post_run_cell", [])
    return [getattr(c, "__self__", None) for c in callbacks]


def put_back_since(first_count: int) -> list[str]:
    """Put back every JAX option and environment variable that the cells from ``first_count`` on
    changed, and say which (empty when none did, or when no cell was watched)."""
    if _watcher is None:
        return []
    problems = []
    for change in _watcher.since(first_count):
        try:
            if change.kind == "config":
                jax.config.update(change.name, change.before)
            elif change.before is _UNSET:
                os.environ.pop(change.name, None)
            else:
                os.environ[change.name] = change.before
            done = "the check put it back"
        except Exception as error:  # an option fixed once the backend started, say
            done = f"and it cannot be put back in this kernel ({type(error).__name__}): restart it"
        problems.append(
            f"your answer's cells changed {change.describe()}; {done}: an answer works inside "
            "the check's environment and leaves it as it was"
        )
    return problems
