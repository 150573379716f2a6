"""slurm_gpu_probe.py: which GPU JAX's SLURM detection gives each task (run by `make test-launchers`).

Run under ``srun`` on a node without GPUs: SLURM sets the task's variables (``SLURM_PROCID``,
``SLURM_LOCALID``, ...), and this program adds the ``CUDA_VISIBLE_DEVICES`` that SLURM would set
on a GPU node under ``AURORA_GPU_BINDING`` (``per-node``: every task sees the node's
``AURORA_GPUS_PER_NODE`` GPUs; ``per-task``: ``--gpus-per-task=1``, each task sees its own GPU
only). It then calls ``jax.distributed.initialize()`` with no arguments, as a training script
does, and reports what JAX derived: the device ids it will open (``jax_cuda_visible_devices``,
set from ``local_device_ids``), and whether each is a device the task can see. Prints one line
``AURORA-RESULT {json}``. Nothing here touches a GPU (``JAX_PLATFORMS=cpu``).
"""

from __future__ import annotations

import json
import os

if __name__ == "__main__":
    gpus = int(os.environ["AURORA_GPUS_PER_NODE"])
    local_id = int(os.environ["SLURM_LOCALID"])
    binding = os.environ["AURORA_GPU_BINDING"]
    visible = str(local_id) if binding == "per-task" else ",".join(map(str, range(gpus)))
    os.environ["CUDA_VISIBLE_DEVICES"] = visible  # as SLURM sets it on a GPU node

    import jax

    jax.distributed.initialize()  # SLURM auto-detection: coordinator, size, rank, local ids
    # Set by initialize() from local_device_ids; "all" unless they were given or detected.
    derived = jax.config.read("jax_cuda_visible_devices")
    ids = list(range(len(visible.split(",")))) if derived == "all" else derived.split(",")
    # CUDA numbers the devices a task can see 0 .. n-1, whatever their physical indices.
    result = {
        "rank": jax.process_index(),
        "size": jax.process_count(),
        "local_id": local_id,
        "visible": visible,
        "jax_device_ids": [int(i) for i in ids],
        "valid": all(0 <= int(i) < len(visible.split(",")) for i in ids),
    }
    print("AURORA-RESULT " + json.dumps(result), flush=True)
    jax.distributed.shutdown()
