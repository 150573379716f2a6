"""ah.single_device_sharding, and the deprecated class kept out of the course's own code."""

import re
import warnings

import jax
import jax.numpy as jnp
import nbformat
import numpy as np
import pytest

import aurora_helpers as ah

from .conftest import NOTEBOOKS, ROOT
from .test_notebooks import _code


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
    for kind in [m.kind for m in device.addressable_memories()]:
        placed = jax.device_put(jnp.ones(3), ah.single_device_sharding(device, memory_kind=kind))
        assert placed.sharding.memory_kind == kind
    assert ah.single_device_sharding(device).memory_kind == device.default_memory().kind


def test_it_calls_the_function_where_the_release_has_one(monkeypatch):
    made = []
    monkeypatch.setattr(
        jax.sharding,
        "make_single_device_sharding",
        lambda device, memory_kind=None: made.append((device, memory_kind)) or "made",
        raising=False,
    )
    assert ah.single_device_sharding(jax.devices()[1], memory_kind="pinned_host") == "made"
    assert made == [(jax.devices()[1], "pinned_host")]


def test_it_falls_back_to_the_class_without_the_function(monkeypatch):
    """JAX 0.9.x: no make_single_device_sharding; the class, not deprecated there, is used."""
    monkeypatch.delattr(jax.sharding, "make_single_device_sharding", raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 0.12.1 warns on the class's name
        cls = jax.sharding.SingleDeviceSharding
        sharding = ah.single_device_sharding(jax.devices()[2])
    assert type(sharding) is cls and sharding.device_set == {jax.devices()[2]}


def test_no_warning_on_this_release():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ah.single_device_sharding(jax.devices()[0], memory_kind="device")


@pytest.mark.parametrize(
    "path", sorted(NOTEBOOKS.glob("[0-9A-Z][0-9]_*.ipynb")), ids=lambda p: p.stem
)
def test_no_notebook_code_uses_the_deprecated_class(path):
    """Code cells may name SingleDeviceSharding only as a string (01 looks the name up to show that
    it warns); prose may name it, as the older spelling."""
    for source in (c.source for c in _code(nbformat.read(path, as_version=4))):
        bare = re.sub(r"\"[^\"\n]*\"|'[^'\n]*'", '""', source)  # strings removed
        assert "SingleDeviceSharding" not in bare, f"{path.name}: {source[:120]!r}"


def test_only_the_fallback_names_the_class_in_the_packages():
    named = sorted(
        str(p.relative_to(ROOT))
        for folder in ("aurora_helpers", "aurora_course")
        for p in (ROOT / folder).rglob("*.py")
        if "SingleDeviceSharding" in re.sub(r'"""[\s\S]*?"""|#.*', "", p.read_text())
    )
    assert named == ["aurora_helpers/single_device.py"]
