"""Simulated CPU devices: ask JAX for N of them before its backend starts.

JAX fixes the number of CPU devices when its backend starts (on the first array, device query or
computation). A notebook therefore sets the count in its first code cell. Running that cell again
with the same count is harmless; asking for a different count afterwards cannot work inside the
same process, so it raises :class:`DeviceSetupError` saying so.
"""

from __future__ import annotations

import jax

from .contract import DEVICES_ENV_VAR, DeviceSetupError, requested_device_count


def setup_devices(n: int | None = None) -> int:
    """Give JAX's CPU backend ``n`` simulated devices; returns the count it asked for.

    Call it right after ``import jax`` and before anything touches a device. With an accelerator
    present JAX still computes on the accelerator by default; the count only shapes the CPU backend.

    Raises:
        DeviceSetupError: ``n`` is not a positive integer, or JAX already started with another
            count (restart the kernel or interpreter to change it).
    """
    n = requested_device_count(n)
    try:
        jax.config.update("jax_num_cpu_devices", n)
    except RuntimeError as err:
        # The backend is already running. That is fine if it has the count we want (a notebook's
        # set-up cell run twice, or XLA_FLAGS that asked for the same number).
        have = len(jax.devices("cpu"))
        if have != n:
            raise DeviceSetupError(
                f"JAX has already started with {have} CPU device(s), so it cannot switch to {n} in "
                f"this process. Restart the kernel (Kernel > Restart in JupyterLab, Runtime > "
                f"Restart session in Colab) and run the set-up cell first, or start Python with "
                f"{DEVICES_ENV_VAR}={n} in the environment."
            ) from err
    return n
