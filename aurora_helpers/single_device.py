"""One-device shardings, spelled the way the installed JAX wants them.

JAX 0.12.1 deprecated the class ``jax.sharding.SingleDeviceSharding`` (its docstring says the
one-device default is to become a ``NamedSharding``) in favour of two functions:
``jax.sharding.make_single_device_sharding`` (present since 0.10.0) and
``jax.sharding.is_single_device_sharding`` (new in 0.12.1). The course supports 0.9.x, which has
neither, so these helpers decide by what the running JAX has, never by its version number, and
touch the deprecated name only where the replacement is missing (so no release warns).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jax


def single_device_sharding(device: jax.Device, *, memory_kind: str | None = None) -> Any:
    """A sharding that puts a whole array on ``device`` (in ``memory_kind``, default: its own).

    ``jax.sharding.make_single_device_sharding(device, memory_kind=...)`` where it exists (JAX
    0.10.0 and newer), else ``jax.sharding.SingleDeviceSharding(device, memory_kind=...)``.
    """
    import jax

    make = getattr(jax.sharding, "make_single_device_sharding", None)
    if make is None:  # JAX 0.9.x: the class is the only spelling, and is not deprecated there
        make = jax.sharding.SingleDeviceSharding
    return make(device, memory_kind=memory_kind)


def is_single_device_sharding(sharding: object) -> bool:
    """Whether ``sharding`` is JAX's one-device sharding type (not: whether it spans one device).

    ``jax.sharding.is_single_device_sharding`` where it exists (0.12.1 and newer), else an
    ``isinstance`` test against the class, which those older releases do not deprecate. For "does
    this array live on one device" ask ``len(sharding.device_set) == 1``: that answer does not change
    when JAX makes the one-device default a ``NamedSharding``.
    """
    import jax

    test = getattr(jax.sharding, "is_single_device_sharding", None)
    if test is not None:
        return bool(test(sharding))
    return isinstance(sharding, jax.sharding.SingleDeviceSharding)
