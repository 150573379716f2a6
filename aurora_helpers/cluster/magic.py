"""The ``%%cluster`` cell magic: the cell is the program every process of a local cluster runs.

``ah.load_cluster_magic()`` (or ``%load_ext aurora_helpers.cluster``) registers it. Options::

    %%cluster [-n PROCESSES] [-d DEVICES] [-t TIMEOUT] [--on NAME] [--out NAME] [--imitate slurm]

Without ``--on`` each cell starts a fresh cluster and shuts it down afterwards
(:func:`aurora_helpers.run_cluster`); ``--on NAME`` runs the cell on the
:class:`aurora_helpers.LocalCluster` bound to ``NAME`` in the notebook, whose processes stay up
between cells. The cell's value is the :class:`aurora_helpers.ClusterRun` (each rank's output,
labelled, and whatever each rank left in ``result``); ``--out NAME`` also stores it as ``NAME``,
or, when the run fails, stores the error there before raising it, for the next cell to inspect.
"""

from __future__ import annotations

from typing import Any

from .launcher import (
    DEFAULT_TIMEOUT,
    IMITATIONS,
    ClusterError,
    ClusterRun,
    LocalCluster,
    run_cluster,
)


def _parser() -> Any:
    import argparse  # only when a cell runs: keeps `import aurora_helpers` light

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> Any:  # bad options: an error, not a SystemExit
            raise ValueError(f"%%cluster: {message}. Usage: {self.format_usage().strip()}")

    parser = Parser(prog="%%cluster", add_help=False)
    parser.add_argument("-n", "--processes", type=int)
    parser.add_argument("-d", "--devices", type=int, help="CPU devices per process")
    parser.add_argument("-t", "--timeout", type=float, default=DEFAULT_TIMEOUT)
    parser.add_argument("--on", metavar="NAME", help="a LocalCluster in the notebook to run on")
    parser.add_argument("--out", metavar="NAME", help="also store the ClusterRun as NAME")
    parser.add_argument("--imitate", choices=IMITATIONS)
    return parser


def cluster_cell(line: str, cell: str, namespace: dict[str, Any]) -> ClusterRun:
    """Run ``cell`` as the per-process program, with the options in ``line``."""
    import shlex

    options = _parser().parse_args(shlex.split(line))
    if options.out is not None and not options.out.isidentifier():
        raise ValueError(f"%%cluster --out {options.out}: not a valid Python name")
    try:
        if options.on is not None:
            if options.processes or options.devices or options.imitate:
                raise ValueError(
                    "%%cluster: -n, -d and --imitate describe a new cluster; --on runs on an "
                    "existing one, whose shape is already set"
                )
            cluster = namespace.get(options.on)
            if not isinstance(cluster, LocalCluster):
                raise ValueError(
                    f"%%cluster --on {options.on}: no LocalCluster named {options.on!r} in the "
                    f"notebook; create one first, e.g. `{options.on} = ah.LocalCluster(4, 2)`"
                )
            run = cluster.run(cell, timeout=options.timeout)
        else:
            run = run_cluster(
                cell,
                processes=2 if options.processes is None else options.processes,
                devices_per_process=2 if options.devices is None else options.devices,
                timeout=options.timeout,
                imitate=options.imitate,
            )
    except ClusterError as err:
        if options.out is not None:
            namespace[options.out] = err  # so the next cell can inspect what went wrong
        raise
    if options.out is not None:
        namespace[options.out] = run
    return run


def load_cluster_magic(shell: Any = None) -> None:
    """Register the ``%%cluster`` cell magic in the running IPython kernel (idempotent).

    Raises:
        RuntimeError: not running under IPython/Jupyter; call :func:`aurora_helpers.run_cluster`
            with the program's source text instead.
    """
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            get_ipython = None
        shell = get_ipython() if get_ipython is not None else None
    if shell is None:
        raise RuntimeError(
            "%%cluster needs IPython or Jupyter. In a script, call "
            "ah.run_cluster(source_text, processes=..., devices_per_process=...) instead."
        )

    def cluster(line: str, cell: str) -> ClusterRun:
        return cluster_cell(line, cell, shell.user_ns)

    cluster.__doc__ = __doc__
    shell.register_magic_function(cluster, magic_kind="cell", magic_name="cluster")
