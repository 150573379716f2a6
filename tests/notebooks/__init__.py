"""Each notebook's wrong answers, beside one another in one module per notebook
(``nb_<notebook's file stem>.py``), so that changing an exercise touches its notebook and its own
module here, nothing that every other notebook shares.

``WRONG_ANSWERS["NN.k"]`` maps a short description of what the answer skips to Python source that
replaces the exercise's solution cell. Each exercise lists at least two: a hard-coded value, and a
route that skips the skill the exercise teaches (a NumPy detour, no collective, no sharding, no
jit, ...). The sources run in the notebook's namespace, so they may use its names (``jax``,
``jnp``, ``np``, ``ah``, meshes and arrays defined earlier). ``tests/test_notebook_runs.py`` runs
each notebook at 8 simulated devices and requires the check to report every one as "wrong".

The course promises that only doing the skill passes a check, and names the kinds of answer that
try to pass without it (:data:`CLASSES`, kept here for every notebook: the brief's seven and issue
38's six more). ``COVERAGE["NN.k"]`` maps
each kind to the description (the key) of a wrong answer of that kind, or to ``"n/a: "`` followed
by why no answer of that kind exists for this exercise (a sentence a reviewer can check).
``tests/test_wrong_answers.py`` holds every exercise to two answers and every kind, and every
notebook to a module here that lists only its own exercises.

``RIGHT_ANSWERS["NN.k"]`` (optional in a module) maps a short description of an honest answer in
an ordinary style (the ``P`` alias, a helper function, a ``lax`` spelling, a trial print, a
standard-library import) to its source, or to a tuple of sources (an answer over several cells);
the twice-with-variants run requires each one's check to report "solved".

This module gathers the notebooks' tables into the two the tests read, in the course's order.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

CLASSES: dict[str, str] = {
    "hard-coded": "a value written in, not computed (for the inputs shown, or any)",
    "twin route": "the same result by another road: NumPy, another jnp function, a loop",
    "tailored": "an answer shaped to the inputs, sizes, meshes or ranks the check tries",
    "default": "the default (of JAX, the compiler, the layout) doing the work the skill should do",
    "elsewhere": "the work done on one device or the host, then placed, resharded or copied",
    "reference": "the check's own reference (or a function or measurement its cell defines) "
    "called, wrapped or cached",
    "idle": "the skill's API present but doing no work, or its result unused",
    # Issue 38's classes: answers that passed checks which tested names, not causes.
    "times zero": "the taught operation present, its values cancelled (0 *, a where never taken)",
    "switches when traced": "NumPy on concrete values, the taught route only when traced",
    "split across calls": "a total split over many calls, each within a per-call bound",
    "unwatched": "whole arrays or work put where the check's budget does not look "
    "(a device inside a callback, another process, device memory under a host-memory budget)",
    "host inside": "the host doing the work inside the taught construct (a callback in the "
    "loop, the kernel or the shard_map)",
    "environment": "the check's environment changed by the answer (transfer guard, "
    "configuration, mesh, environment variables)",
}

NOT_APPLICABLE = "n/a: "

#: The prefix of a notebook's module: ``nb_03_devices`` holds ``03_devices.ipynb``'s answers (a
#: module's name cannot start with a digit).
PREFIX = "nb_"


def _by_notebook() -> dict[str, ModuleType]:
    """Each notebook's module by the notebook's file stem, in file-name order (the course's)."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith(PREFIX))
    return {n.removeprefix(PREFIX): importlib.import_module(f"{__name__}.{n}") for n in names}


BY_NOTEBOOK: dict[str, ModuleType] = _by_notebook()

WRONG_ANSWERS: dict[str, dict[str, str]] = {
    label: answers for m in BY_NOTEBOOK.values() for label, answers in m.WRONG_ANSWERS.items()
}

RIGHT_ANSWERS: dict[str, dict[str, str | tuple[str, ...]]] = {
    label: answers
    for m in BY_NOTEBOOK.values()
    for label, answers in getattr(m, "RIGHT_ANSWERS", {}).items()
}

COVERAGE: dict[str, dict[str, str]] = {
    label: kinds for m in BY_NOTEBOOK.values() for label, kinds in m.COVERAGE.items()
}
