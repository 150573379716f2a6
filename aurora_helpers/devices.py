"""Simulated CPU devices: ask JAX for N of them before its backend starts.

JAX fixes the number of CPU devices when its backend starts (on the first array, device query or
computation). A notebook therefore sets the count in its first code cell. Running that cell again
with the same count is harmless; asking for a different count afterwards cannot work inside the
same process, so it raises :class:`DeviceSetupError` saying so.
"""

from __future__ import annotations

import os

import jax

#: Environment variable that sets the number of simulated CPU devices for every notebook, whether
#: they run under nbval, papermill, ``aurora run`` or a user's JupyterLab.
DEVICES_ENV_VAR = "AURORA_DEVICES"
#: Device count used when neither an argument nor the environment variable gives one.
DEFAULT_SIMULATED_DEVICES = 8


class DeviceSetupError(RuntimeError):
    """The requested device count cannot be applied (bad value, or JAX has already started)."""


def requested_device_count(n: int | None = None) -> int:
    """The device count to simulate: ``n`` if given, else ``$AURORA_DEVICES``, else 8."""
    source = "argument"
    if n is None:
        raw = os.environ.get(DEVICES_ENV_VAR, "").strip()
        if not raw:
            return DEFAULT_SIMULATED_DEVICES
        source = f"${DEVICES_ENV_VAR}"
        try:
            n = int(raw)
        except ValueError:
            raise DeviceSetupError(
                f"{source}={raw!r} is not a whole number. Set it to a positive integer, "
                f"for example `export {DEVICES_ENV_VAR}=8`."
            ) from None
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise DeviceSetupError(
            f"the device count from the {source} must be a positive integer, got {n!r}."
        )
    return n


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
