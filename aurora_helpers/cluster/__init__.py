"""Local multi-process JAX clusters, for teaching multi-host programs on one machine.

Modules with one job each, depending one way (``magic`` -> ``launcher`` -> ``processes`` ->
``outcomes``; ``_worker`` is a script the launcher starts and imports nothing from the package):

- :mod:`.launcher`: :class:`LocalCluster` and :func:`run_cluster` start, run and stop a cluster;
- :mod:`.processes`: the worker processes: environment, program hand-over, certain clean-up;
- :mod:`.outcomes`: what a run gives back (:class:`ClusterRun`) and its errors;
- :mod:`.magic`: the ``%%cluster`` cell magic on top of the launcher;
- :mod:`.sources`: :func:`source_of`, the text of notebook-defined functions and classes, for
  programs sent to a cluster;
- :mod:`._worker`: one process of a cluster;
- :mod:`.launchers`: the real launchers' command lines and job scripts (``mpirun``, SLURM) for
  the example programs in ``aurora_helpers/programs/`` (package data: scripts that clusters
  and launchers run, not modules of the package).

Imports only the core at the package's top, never another folder.

Notebooks use the names through ``aurora_helpers`` (``ah.LocalCluster``, ``ah.load_cluster_magic``).
"""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext aurora_helpers.cluster`` registers the ``%%cluster`` cell magic."""
    from .magic import load_cluster_magic

    load_cluster_magic(ipython)
