"""Programs the cluster tests run on every worker (imported there by reference, not collected).

This module must not import the test package's conftest: workers import it after JAX started.
"""

from __future__ import annotations

import contextlib
import time

import numpy as np


def rank_info(greeting: str = "hello") -> dict:
    import jax

    print(f"{greeting} from {jax.process_index()}")
    local = {d.id for d in jax.local_devices()}
    return {
        "rank": jax.process_index(),
        "size": jax.process_count(),
        "local": jax.local_device_count(),
        "global": jax.device_count(),
        "local_subset": local <= {d.id for d in jax.devices()},
        "initialized": jax.distributed.is_initialized(),
    }


def psum_of_ranks() -> float:
    """Every device contributes its process's rank + 1; a psum over all devices adds them up."""
    import jax
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((jax.device_count(),), ("x",))
    local = np.full((jax.local_device_count(),), jax.process_index() + 1.0, np.float32)
    x = jax.make_array_from_process_local_data(NamedSharding(mesh, P("x")), local)
    total = jax.jit(
        jax.shard_map(lambda b: jax.lax.psum(b, "x"), mesh=mesh, in_specs=P("x"), out_specs=P())
    )(x)
    return float(total[0])


def raise_on(rank: int, message: str = "bad shard") -> str:
    import jax

    if jax.process_index() == rank:
        raise ValueError(message)
    time.sleep(120)  # the others wait, as if for the failed rank in a collective
    return "unreachable"


def hang_on(rank: int) -> str:
    import jax

    print(f"rank {jax.process_index()} started", flush=True)
    if jax.process_index() == rank:
        time.sleep(120)
    return "done"


def die_on(rank: int, code: int) -> None:
    import os

    import jax

    if jax.process_index() == rank:
        os._exit(code)
    time.sleep(120)


def not_implemented() -> None:
    raise NotImplementedError("your answer here")


def global_array():
    """A sharded global array: not fully addressable, so it cannot be returned as is."""
    import jax
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((jax.device_count(),), ("x",))
    local = np.ones((jax.local_device_count(),), np.float32)
    return jax.make_array_from_process_local_data(NamedSharding(mesh, P("x")), local)


def pid_and_sleep(seconds: float) -> int:
    import os

    time.sleep(seconds)
    return os.getpid()


def what_this_rank_sees(shared: str, own: str) -> dict:
    """The arguments this rank got, and everything in the run directory it could read."""
    import inspect
    import pickle
    from pathlib import Path

    run_dir = Path(__import__("sys").argv[1])
    readable = []
    for path in sorted(run_dir.iterdir()):
        if path.name.startswith("result-"):
            continue  # what a rank that finished first gave back (here: its own frames)
        try:
            data = path.read_bytes()
        except OSError:
            continue
        readable.append(repr(data))
        if path.suffix == ".pkl":
            with contextlib.suppress(Exception):
                readable.append(repr(pickle.loads(data)))
    frames = []
    frame = inspect.currentframe()
    while frame is not None:
        frames.append(repr(frame.f_locals))
        frame = frame.f_back
    import hashlib

    # What a rank got goes back as a digest: a result written early must not itself be the leak.
    got = hashlib.sha256(repr((shared, own)).encode()).hexdigest()
    return {"args": got, "files": readable, "frames": frames}


def survive_a_death(dying_rank: int) -> dict:
    """Rank ``dying_rank`` kills itself after a first collective; the others wait until JAX's
    ``live_devices`` drops its devices, then sum across the survivors' processes."""
    import os
    import signal

    import jax
    import jax.numpy as jnp
    from jax.experimental.multihost_utils import live_devices, sync_global_devices
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    sync_global_devices("before")
    if jax.process_index() == dying_rank:
        os.kill(os.getpid(), signal.SIGKILL)
    survivors: list = []
    for _ in range(200):  # bounded: about 20 s at most
        try:
            with live_devices(jax.devices()) as devices:
                survivors = list(devices)
        except Exception:  # the first block after a death raises: the set changed under it
            survivors = []
        if survivors and len(survivors) < jax.device_count():
            break
        time.sleep(0.1)
    mesh = jax.sharding.Mesh(np.array(survivors), ("x",))
    local = [d for d in survivors if d.process_index == jax.process_index()]
    data = np.full((len(local),), jax.process_index() + 1.0, np.float32)
    x = jax.make_array_from_process_local_data(NamedSharding(mesh, P("x")), data)
    total = jax.jit(jnp.sum, out_shardings=NamedSharding(mesh, P()))(x)
    return {"live": len(survivors), "sum": float(total.addressable_data(0))}
