import jax
import matplotlib
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

import aurora_helpers as ah
from aurora_helpers.pictures.sharding import block_color, block_label, device_color

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def mesh():
    return ah.make_mesh(("data", "model"), (4, 2))


def _put(data, mesh, spec):
    return jax.device_put(data, NamedSharding(mesh, spec))


def _shards_by_block(x):
    """{(start, stop) per dim: {device ids}} read from x.addressable_shards."""
    found = {}
    for shard in x.addressable_shards:
        bounds = tuple(s.indices(n)[:2] for s, n in zip(shard.index, x.shape, strict=True))
        found.setdefault(bounds, set()).add(shard.device.id)
        np.testing.assert_array_equal(np.asarray(shard.data), np.asarray(x)[shard.index])
    return found


def _drawn(ax):
    """{block bounds: {device ids}} read back from the boxes on ``ax``: one patch per block, whose
    position and size are the block's, whose label names its holders and copies, and whose colour
    is its one holder's (or, replicated, a greyed one): nothing else is drawn."""
    drawn = {}
    labels = [t.get_text() for t in ax.texts]
    assert len(labels) == len(ax.patches), "one label per box"
    for patch, label in zip(ax.patches, labels, strict=True):
        gid = patch.get_gid()
        assert gid.startswith("block "), gid
        where, _, holders = gid[len("block ") :].partition(" devices ")
        bounds = tuple(tuple(int(v) for v in part.split(":")) for part in where.split(",") if part)
        ids = tuple(int(i) for i in holders.split(","))
        (r0, r1), (c0, c1) = (((0, 1), (0, 1)), ((0, 1), *bounds), bounds)[len(bounds)]
        assert (patch.get_x(), patch.get_y(), patch.get_width(), patch.get_height()) == (
            pytest.approx(c0),
            pytest.approx(r0),
            pytest.approx(c1 - c0),
            pytest.approx(r1 - r0),
        ), gid
        assert label.replace("\n", " ") == block_label(ids), (label, ids)
        colour = patch.get_facecolor()
        if len(ids) == 1:
            assert colour == pytest.approx(device_color(ids[0]))
        else:
            assert colour == pytest.approx(block_color(ids))
            assert all(colour != pytest.approx(device_color(i)) for i in range(20))
        assert bounds not in drawn, f"block {bounds} drawn twice"
        drawn[bounds] = set(ids)
    return drawn


def _indices_map_blocks(sharding, shape):
    """{block bounds: {device ids}} straight from ``sharding.devices_indices_map(shape)``."""
    found = {}
    for device, index in sharding.devices_indices_map(tuple(shape)).items():
        bounds = tuple(s.indices(n)[:2] for s, n in zip(index, shape, strict=True))
        found.setdefault(bounds, set()).add(device.id)
    return found


SPECS = [
    P("data", "model"),
    P("data"),
    P(None, "model"),
    P(),
    P(("data", "model")),
    P("model", "data"),
]


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_2d_blocks_drawn_match_addressable_shards(mesh, spec):
    x = _put(np.arange(128, dtype=np.float32).reshape(16, 8), mesh, spec)
    fig = ah.draw_sharding(x)
    assert isinstance(fig, Figure)
    expected = _shards_by_block(x)
    assert _drawn(fig.axes[0]) == expected == _indices_map_blocks(x.sharding, x.shape)
    blocks = ah.sharding_blocks(x)
    assert {b.bounds: set(b.device_ids) for b in blocks} == expected
    for b in blocks:
        assert b.replicated == (len(b.device_ids) > 1)
        assert np.asarray(x)[b.index].shape == x.sharding.shard_shape(x.shape)


@pytest.mark.parametrize("spec", [P("data"), P(("data", "model")), P(), P("model")], ids=str)
def test_1d_arrays(mesh, spec):
    x = _put(np.arange(16, dtype=np.int32), mesh, spec)
    drawn = _drawn(ah.draw_sharding(x).axes[0])
    expected = _shards_by_block(x)
    assert {b: ids for b, ids in drawn.items()} == expected


def test_replicated_blocks_are_one_box_labelled_with_holders_and_copies(mesh):
    x = _put(np.ones((8, 4), np.float32), mesh, P("data"))
    ax = ah.draw_sharding(x).axes[0]
    assert [t.get_text().replace("\n", " ") for t in ax.texts] == [
        "devs 0,1 ×2",
        "devs 2,3 ×2",
        "devs 4,5 ×2",
        "devs 6,7 ×2",
    ]
    assert len(ax.patches) == 4  # one box per block: a copy is not drawn as a part
    full = ah.draw_sharding(_put(np.ones((8, 4), np.float32), mesh, P())).axes[0]
    assert [t.get_text() for t in full.texts] == ["devs 0–7 ×8"]
    assert len(full.patches) == 1
    cols = ah.draw_sharding(_put(np.ones((8, 4), np.float32), mesh, P(None, "model"))).axes[0]
    assert [t.get_text().replace("\n", " ") for t in cols.texts] == [
        "devs 0,2,4,6 ×4",
        "devs 1,3,5,7 ×4",
    ]


def test_block_labels():
    assert block_label((3,)) == "dev 3"
    assert block_label((0, 2, 4, 6)) == "devs 0,2,4,6 ×4"
    assert block_label((0, 2, 4, 6), wrap=True) == "devs 0,2,4,6\n×4"
    assert block_label(tuple(range(8, 16))) == "devs 8–15 ×8"
    assert block_label(tuple(range(0, 16, 2))) == "devs 0,2,4,…,14 ×8"


@pytest.mark.parametrize(
    ("axes", "spec", "shape"),
    [
        ((4, 2), P("data"), (8, 6)),
        ((4, 2), P(None, "data"), (6, 8)),
        ((2, 4), P("model", None), (8, 8)),
        ((2, 2, 2), P(("a", "c")), (8,)),
        ((2, 2, 2), P("b", "c"), (4, 4)),
    ],
    ids=str,
)
def test_boxes_are_the_blocks_of_devices_indices_map(axes, spec, shape):
    names = ("data", "model") if len(axes) == 2 else ("a", "b", "c")
    sharding = NamedSharding(ah.make_mesh(names, axes), spec)
    assert _drawn(ah.draw_sharding(sharding, shape=shape).axes[0]) == _indices_map_blocks(
        sharding, shape
    )


def test_subset_of_devices_keeps_device_colours():
    devices = jax.devices()[4:7]
    sub = ah.make_mesh("x", devices=devices)
    x = _put(np.arange(12.0, dtype=np.float32), sub, P("x"))
    ax = ah.draw_sharding(x).axes[0]
    drawn = _drawn(ax)
    assert drawn == _shards_by_block(x)
    assert set().union(*drawn.values()) == {d.id for d in devices}


def test_a_sharding_with_a_shape_and_a_scalar(mesh):
    s = NamedSharding(mesh, P("model", "data"))
    assert (
        _drawn(ah.draw_sharding(s, shape=(4, 8)).axes[0])
        == {b.bounds: set(b.device_ids) for b in ah.sharding_blocks(s, (4, 8))}
        == _indices_map_blocks(s, (4, 8))
    )
    scalar = _put(np.float32(3), mesh, P())
    (block,) = ah.sharding_blocks(scalar)
    assert block.bounds == () and len(block.device_ids) == 8
    assert _drawn(ah.draw_sharding(scalar).axes[0]) == {(): set(range(8))}


def test_side_by_side(mesh):
    data = np.arange(32, dtype=np.float32).reshape(8, 4)
    arrays = {str(s): _put(data, mesh, s) for s in SPECS[:3]}
    fig = ah.draw_shardings(arrays)
    assert len(fig.axes) == 3
    assert [ax.get_title() for ax in fig.axes] == list(arrays)
    for ax, x in zip(fig.axes, arrays.values(), strict=True):
        assert _drawn(ax) == _shards_by_block(x)
    assert len(ah.draw_shardings(list(arrays.values()), ncols=2).axes) == 3


def test_mesh_picture(mesh):
    fig = ah.draw_mesh(mesh)
    ax = fig.axes[0]
    cells = {p.get_gid(): (p.get_x(), p.get_y()) for p in ax.patches}
    for (r, c), device in np.ndenumerate(mesh.devices):
        assert cells[f"device {device.id}"] == (c, r)
    assert "data" in ax.get_ylabel() and "model" in ax.get_xlabel() and "Explicit" in ax.get_title()
    line = ah.draw_mesh(ah.make_mesh("x")).axes[0]
    assert len(line.patches) == 8 and line.get_xlabel() == "x (8)"
    cube = ah.draw_mesh(ah.make_mesh(("a", "b", "c"))).axes[0]
    assert len(cube.patches) == 8 and "b (2) × c (2)" in cube.get_xlabel()


def test_device_colours_are_distinct_for_the_first_twenty():
    colours = {to_rgba(device_color(i)) for i in range(20)}
    assert len(colours) == 20


def test_bad_inputs(mesh):
    with pytest.raises(TypeError, match=r"jax\.Array or a jax\.sharding\.Sharding"):
        ah.draw_sharding(np.ones(3))
    with pytest.raises(ValueError, match="pass shape="):
        ah.draw_sharding(NamedSharding(mesh, P()))
    with pytest.raises(ValueError, match="0-, 1- and 2-D"):
        ah.draw_sharding(_put(np.ones((4, 2, 2)), mesh, P()))
    with pytest.raises(ValueError, match="differs from the array's shape"):
        ah.draw_sharding(_put(np.ones((4, 2)), mesh, P()), shape=(2, 4))
    with pytest.raises(ValueError, match="at least one array"):
        ah.draw_shardings({})
    with pytest.raises(ValueError, match="ncols"):
        ah.draw_shardings([_put(np.ones(4), mesh, P())], ncols=0)
    with pytest.raises(TypeError, match=r"jax\.sharding\.Mesh"):
        ah.draw_mesh("mesh")
