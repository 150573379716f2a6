"""One-device shardings, spelled the way the installed JAX wants them.

JAX 0.12.1 deprecated the class ``jax.sharding.SingleDeviceSharding`` in favour of two functions:
``jax.sharding.make_single_device_sharding`` (present since 0.10.0) and
``jax.sharding.is_single_device_sharding`` (new in 0.12.1, whose docstring says the one-device
default is to become a ``NamedSharding``). The course supports 0.9.x, which has neither, so
:func:`single_device_sharding` decides by what the running JAX has, never by its version number,
and touches the deprecated name only where the replacement is missing (so no release warns).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jax


def single_device_sharding(device: jax.Device, *, memory_kind: str | None = None) -> Any:
    """A sharding that puts a whole array on ``device`` (in ``memory_kind``, default: its own).

    ``jax.sharding.make_single_device_sharding(device, memory_kind=...)`` where it exists (JAX
    0.10.0 and newer), else ``jax.sharding.SingleDeviceSharding(device, memory_kind=...)``. To ask
    whether an array lives on one device, read ``len(sharding.device_set) == 1`` instead of testing
    the type: that answer stays right when the default becomes a ``NamedSharding``.
    """
    import jax

    make = getattr(jax.sharding, "make_single_device_sharding", None)
    if make is None:  # JAX 0.9.x: the class is the only spelling, and is not deprecated there
        make = jax.sharding.SingleDeviceSharding
    return make(device, memory_kind=memory_kind)
