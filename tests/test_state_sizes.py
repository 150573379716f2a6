"""Bytes of a state per device (from the shards) and per file (from the folder)."""

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

import aurora_helpers as ah
from aurora_helpers.perf.state_sizes import bytes_per_device


@pytest.fixture(scope="module")
def mesh():
    return ah.make_mesh(("data", "model"), (4, 2))


def test_a_replicated_array_counts_whole_on_every_device(mesh):
    x = jax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P()))
    held = bytes_per_device(x)
    assert set(held) == set(mesh.devices.flat) and set(held.values()) == {8 * 4 * 4}


def test_a_split_array_counts_its_shard_on_each_device(mesh):
    x = jax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P("data", "model")))
    assert set(bytes_per_device(x).values()) == {2 * 2 * 4}
    rows = jax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P("data")))
    assert set(bytes_per_device(rows).values()) == {2 * 4 * 4}  # 2 copies of each row block


def test_leaves_add_up_per_device_and_non_arrays_are_skipped(mesh):
    tree = {
        "w": jax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P("data"))),
        "b": jax.device_put(np.ones(4, np.float16), NamedSharding(mesh, P())),
        "step": 3,
        "name": "adam",
        "nothing": None,
    }
    held = bytes_per_device(tree)
    assert set(held.values()) == {2 * 4 * 4 + 4 * 2}


def test_a_single_device_array_lives_on_its_device():
    x = jax.device_put(jnp.arange(10, dtype=jnp.int32), jax.devices()[3])
    assert bytes_per_device(x) == {jax.devices()[3]: 40}
    assert bytes_per_device({}) == {}


def test_a_numpy_leaf_is_an_error_that_names_it():
    with pytest.raises(TypeError, match=r"\['host'\].*NumPy.*device_put"):
        bytes_per_device({"host": np.ones(3)})


def test_state_bytes_by_part_largest_smallest_and_table(mesh):
    params = {"w": jax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P("data")))}
    moments = {
        "w": jax.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P(("data", "model"))))
    }
    uneven = jax.device_put(np.ones(4, np.float32), jax.devices()[0])
    held = ah.state_bytes(parameters=params, optimizer=moments, extra=uneven)
    assert held.largest("parameters") == held.smallest("parameters") == 32
    assert held.largest("optimizer") == 16
    assert held.largest("extra") == 16 and len(held.per_device("extra")) == 1
    assert held.largest() == 32 + 16 + 16 and held.smallest() == 32 + 16
    assert held.per_device()[jax.devices()[0]] == 64
    assert held.devices == sorted(mesh.devices.flat, key=lambda d: d.id)
    text = str(held)
    assert "parameters" in text and "all parts" in text and "48 B to 64 B" in text
    assert "<table>" in held._repr_html_()
    with pytest.raises(KeyError, match="no part named 'grads'"):
        held.largest("grads")
    with pytest.raises(ValueError, match="at least one part"):
        ah.state_bytes()


def test_an_empty_part_holds_nothing():
    held = ah.state_bytes(nothing={})
    assert held.largest("nothing") == held.smallest() == 0 and held.devices == []


def test_folder_bytes_lists_every_file_with_its_size(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "b").mkdir()
    (tmp_path / "top.txt").write_bytes(b"x" * 10)
    (tmp_path / "a" / "one").write_bytes(b"y" * 100)
    (tmp_path / "a" / "b" / "two").write_bytes(b"z" * 1000)
    listing = ah.folder_bytes(tmp_path)
    assert listing.files == (("a/b/two", 1000), ("a/one", 100), ("top.txt", 10))
    assert listing.total == 1110
    assert listing.by_folder() == {"a/": 1100, "top.txt": 10}
    assert listing.by_folder(2) == {"a/b/": 1000, "a/one": 100, "top.txt": 10}
    assert listing.matching("/b/") == (("a/b/two", 1000),)
    assert "3 file(s), 1,110 bytes" in str(listing) and "a/b/two" in str(listing)
    assert "<table>" in listing._repr_html_()
    with pytest.raises(ValueError, match="depth"):
        listing.by_folder(0)


def test_folder_bytes_never_follows_links(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "big").write_bytes(b"b" * 5000)
    inside = tmp_path / "inside"
    inside.mkdir()
    (inside / "small").write_bytes(b"s" * 5)
    os.symlink(outside, inside / "link-to-folder")
    os.symlink(outside / "big", inside / "link-to-file")
    listing = ah.folder_bytes(inside)
    paths = [p for p, _ in listing.files]
    assert paths == ["link-to-file", "link-to-folder", "small"]
    assert listing.total < 5000  # the links' own sizes, not what they point at


def test_folder_bytes_refuses_a_file_or_a_missing_folder(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(NotADirectoryError):
        ah.folder_bytes(tmp_path / "f")
    with pytest.raises(NotADirectoryError):
        ah.folder_bytes(tmp_path / "missing")
