import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec

import aurora_helpers as ah


def test_the_sharding_puts_the_whole_array_on_that_device():
    device = jax.devices()[3]
    sharding = ah.single_device_sharding(device)
    placed = jax.device_put(jnp.arange(6.0), sharding)
    assert sharding.device_set == {device}
    assert placed.devices() == {device}
    assert placed.sharding.is_fully_replicated
    np.testing.assert_array_equal(placed, np.arange(6.0))


def test_the_memory_kind_is_honoured():
    device = jax.devices()[0]
    kinds = [m.kind for m in device.addressable_memories()]
    for kind in kinds:
        placed = jax.device_put(jnp.ones(3), ah.single_device_sharding(device, memory_kind=kind))
        assert placed.sharding.memory_kind == kind
    assert ah.single_device_sharding(device).memory_kind == device.default_memory().kind


def test_no_release_in_range_warns():
    device = jax.devices()[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sharding = ah.single_device_sharding(device, memory_kind=device.default_memory().kind)
        assert ah.is_single_device_sharding(sharding) in (True, False)


def test_is_single_device_sharding_tells_the_type_not_the_span():
    mesh = jax.make_mesh((8,), ("d",), devices=jax.devices()[:8])
    assert not ah.is_single_device_sharding(NamedSharding(mesh, PartitionSpec("d")))
    made = ah.single_device_sharding(jax.devices()[0])
    builtin = getattr(jax.sharding, "is_single_device_sharding", None)
    if builtin is not None:  # the release's own answer, whatever type it makes
        assert ah.is_single_device_sharding(made) == builtin(made)
    else:  # older releases: the class is the one-device sharding
        assert ah.is_single_device_sharding(made)
