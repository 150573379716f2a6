"""One process of a :class:`aurora_helpers.LocalCluster`; started by the launcher, not by users.

The launcher runs this file as a script: ``python -u PATH/TO/_worker.py RUN_DIR RANK`` (by its path:
its directory is then removed from ``sys.path``, see below). The process reads
``RUN_DIR/spec.json``, gives JAX its simulated CPU devices and CPU collectives, joins the cluster
with ``jax.distributed.initialize`` on the loopback address, reports ``ready-RANK.pkl`` and then
waits for tasks: one line on stdin names ``task-ID.pkl``, optionally followed by this rank's own
arguments (base64 of a pickled tuple: they travel only on this process's pipe, so no rank can
read another's); the answer goes to ``result-ID-RANK.pkl``. ``exit`` (or the end of stdin) shuts the distributed system down and ends
the process. Every report is written to a temporary name and renamed, so the launcher never reads
half a file. A watchdog thread ends the process if the launcher dies, so no worker outlives it.
"""

from __future__ import annotations

import base64
import builtins
import importlib
import json
import linecache
import os
import pickle
import runpy
import sys
import threading
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

_THIS_FILE = os.path.abspath(__file__)
#: Seconds without heartbeats before the coordinator declares a process dead (JAX: 100), and
#: seconds jax.distributed.shutdown() waits for the others (JAX: 300). On one machine a silent
#: process is dead long before that; shortened as JAX's own multi-process tests shorten theirs.
LOCAL_HEARTBEAT_TIMEOUT = 20
LOCAL_SHUTDOWN_TIMEOUT = 20
#: The heartbeat of a recoverable cluster: a dead rank is noticed within about a second.
RECOVERABLE_HEARTBEAT_TIMEOUT = 1


def _write(path: Path, payload: dict[str, Any]) -> None:
    """Write a report atomically: the launcher polls for the final name."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as err:  # the value cannot cross the process boundary
        data = pickle.dumps(
            {
                "ok": False,
                "type": "TypeError",
                "message": f"the result could not be pickled ({type(err).__name__}: {err}). "
                "Return NumPy arrays, numbers, strings or containers of them.",
                "traceback": "",
            }
        )
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _trimmed_traceback(err: BaseException) -> str:
    """The traceback without this module's own frames, so the learner sees their code first."""
    tb = err.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) == _THIS_FILE:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(err), err, tb))


def _failure(err: BaseException) -> dict[str, Any]:
    kind = type(err)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    return {
        "ok": False,
        "type": name,
        "is_not_implemented": isinstance(err, NotImplementedError),
        "message": str(err),
        "traceback": _trimmed_traceback(err),
    }


def _orphaned(run_dir: Path) -> None:
    """The launcher has gone without closing the cluster: tidy up after it and leave now."""
    import shutil

    shutil.rmtree(run_dir, ignore_errors=True)  # the launcher cannot any more
    os._exit(70)


def _watch_parent(parent: int, run_dir: Path) -> None:
    """End this process when the launcher has gone (we were re-parented), even mid-program."""
    while True:
        time.sleep(0.25)
        if os.getppid() != parent:
            _orphaned(run_dir)


def _to_host(value: Any) -> Any:
    """JAX arrays become NumPy arrays so they can be pickled back to the launcher."""
    import jax
    import numpy as np

    def convert(leaf: Any) -> Any:
        if isinstance(leaf, jax.Array):
            if not (leaf.is_fully_addressable or leaf.is_fully_replicated):
                raise TypeError(
                    "the program returned a jax.Array that is not fully addressable: this "
                    "process holds only some of its shards. Return the local part "
                    "(`x.addressable_shards`) or gather it first with "
                    "`jax.experimental.multihost_utils.process_allgather(x)`."
                )
            return np.asarray(leaf)
        return leaf

    return jax.tree_util.tree_map(convert, value)


def _source_namespace(source: str, filename: str) -> dict[str, Any]:
    """Run ``source`` as a fresh ``__main__`` module; keep its lines for tracebacks."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def _run_task(task: dict[str, Any], own: tuple[Any, ...]) -> Any:
    kind = task["kind"]
    if kind == "source":
        return _source_namespace(task["source"], task["filename"]).get("result")
    if kind == "path":
        return runpy.run_path(task["path"], run_name="__main__").get("result")
    if kind == "function-source":
        namespace = _source_namespace(task["source"], task["filename"])
        function = namespace[task["name"]]
    elif kind == "function-ref":
        function = importlib.import_module(task["module"])
        for part in task["qualname"].split("."):
            function = getattr(function, part)
    else:
        raise ValueError(f"unknown task kind {kind!r}")
    return function(*task["args"], *own, **task["kwargs"])


def _gloo_on_loopback() -> None:
    """Make Gloo listen on 127.0.0.1 rather than on the address the host name resolves to.

    JAX binds its Gloo CPU collectives to the host name's address, which on many machines faces
    the network; a local cluster must not listen there. The replacement lives beside the example
    programs (``programs/_loopback.py``, which ``make test-launchers`` uses too); it is loaded by
    path because this worker runs as a script.
    """
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "programs" / "_loopback.py"
    spec = importlib.util.spec_from_file_location("_aurora_loopback", path)
    if spec is None or spec.loader is None:  # pragma: no cover - the file is package data
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.gloo_on_loopback()


def _wait_for_coordinator(port: int, limit: float) -> None:
    """Return once rank 0's coordinator accepts connections (or after ``limit`` seconds).

    A client that connects before the coordinator listens is refused, and JAX's client then
    backs off for about a second before it tries again: a second lost on every start, since all
    processes start together. Knocking first costs a few milliseconds.
    """
    import socket

    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.01)


def _start(spec: dict[str, Any], rank: int) -> None:
    """Devices and collectives, then join the cluster: all before JAX's backend starts."""
    import jax

    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_num_cpu_devices", spec["devices_per_process"])
    # Gloo over TCP is what lets CPU processes run collectives together. It is the default in
    # the supported JAX range; set it anyway so older defaults (no collectives) cannot bite.
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    _gloo_on_loopback()
    if spec["imitate"] is not None:
        # The launcher exported what a real launcher would (e.g. SLURM_*); the program calls
        # jax.distributed.initialize() itself and JAX's cluster detection reads them.
        return
    if spec.get("recoverable"):
        # Before initialize: the coordinator then lets the others live on when one dies.
        jax.config.update("jax_enable_recoverability", True)
    address = f"127.0.0.1:{spec['port']}"
    if rank != 0:
        _wait_for_coordinator(spec["port"], spec["init_timeout"])
    jax.distributed.initialize(
        coordinator_address=address,
        num_processes=spec["processes"],
        process_id=rank,
        coordinator_bind_address=address,  # loopback only, never all interfaces
        initialization_timeout=spec["init_timeout"],
        heartbeat_timeout_seconds=spec.get("heartbeat_timeout")
        or (RECOVERABLE_HEARTBEAT_TIMEOUT if spec.get("recoverable") else LOCAL_HEARTBEAT_TIMEOUT),
        shutdown_timeout_seconds=LOCAL_SHUTDOWN_TIMEOUT,
        cluster_detection_method="deactivate",  # the arguments above are the whole truth
    )
    # Build the backend now (every process takes part: they exchange their device lists), so
    # that "ready" means ready to compute and the first program does not pay for it.
    if jax.process_index() != rank:
        raise RuntimeError(f"joined as process {jax.process_index()}, expected {rank}")


def main(argv: list[str]) -> int:
    run_dir, rank = Path(argv[0]), int(argv[1])
    threading.Thread(target=_watch_parent, args=(os.getppid(), run_dir), daemon=True).start()
    # Commands arrive on stdin; move them to another descriptor so that a program reading
    # stdin (input(), sys.stdin) sees an empty file instead of eating the launcher's commands.
    commands = os.fdopen(os.dup(0), "r", encoding="utf-8")
    with open(os.devnull, "rb") as null:
        os.dup2(null.fileno(), 0)
    # Running as a script put this package's directory first on sys.path; its module names
    # (launcher, magic, ...) must not shadow a program's imports.
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(_THIS_FILE):
        del sys.path[0]
    spec = json.loads((run_dir / "spec.json").read_text())
    for entry in reversed(spec["sys_path"]):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    if spec["strict"]:
        warnings.filterwarnings("error", category=DeprecationWarning, module="__main__")
    try:
        _start(spec, rank)
    except BaseException as err:
        _write(run_dir / f"ready-{rank}.pkl", _failure(err))
        return 1
    import jax

    _write(run_dir / f"ready-{rank}.pkl", {"ok": True, "pid": os.getpid()})
    for line in commands:
        command = line.strip()
        if command == "exit":
            break
        if not command:
            continue
        task_id, _, own_text = command.partition(" ")
        if spec["imitate"] is not None and rank != 0 and task_id == "1":
            # The first program starts the coordinator itself; let rank 0 get there first.
            _wait_for_coordinator(spec["port"], 5.0)
        try:
            task = pickle.loads((run_dir / f"task-{task_id}.pkl").read_bytes())
            own = pickle.loads(base64.b64decode(own_text)) if own_text else ()
            del own_text, command, line  # only the call's own arguments stay reachable
            report = {"ok": True, "value": _to_host(_run_task(task, own))}
        except SystemExit as err:  # sys.exit() in a program: fine when it reports success
            report = {"ok": True, "value": None} if err.code in (None, 0) else _failure(err)
        except BaseException as err:
            report = _failure(err)
        sys.stdout.flush()
        sys.stderr.flush()
        _write(run_dir / f"result-{task_id}-{rank}.pkl", report)
    else:  # the command channel closed without "exit": the launcher died
        _orphaned(run_dir)
    if jax.distributed.is_initialized():
        jax.distributed.shutdown()  # waits for the other processes: they got "exit" too
    sys.stdout.flush()
    sys.stderr.flush()
    # Everything is reported and shut down; tearing down JAX's runtime at interpreter exit
    # takes about a second and achieves nothing here.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
