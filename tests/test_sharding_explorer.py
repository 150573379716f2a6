"""The sharding explorer (aurora_helpers/pictures/explorer.py): its blocks and bytes against the
sharding's own map and the placed array's shards, its collectives and bytes against the compiled
program and hand-worked numbers, its errors' hints, and its panel driven through the widgets'
values as a learner's clicks would set them."""

from __future__ import annotations

import math
import re

import jax
import jax.numpy as jnp
import matplotlib
import numpy as np
import pytest
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as P

from aurora_helpers.compiled.collectives import count_collectives
from aurora_helpers.compiled.comm_costs import compiled_traffic
from aurora_helpers.pictures.explorer import (
    ExplorerConfig,
    ShardingExplorerPanel,
    build_mesh,
    explore_sharding,
    explorer_gallery_html,
    gallery_configs,
    mesh_shapes,
    specs_for,
)

matplotlib.use("Agg")

NAMES = ("data", "model")


def _indices_map_blocks(sharding, shape):
    """{block bounds: {device ids}} straight from ``sharding.devices_indices_map(shape)``."""
    found: dict[tuple[tuple[int, int], ...], set[int]] = {}
    for device, index in sharding.devices_indices_map(tuple(shape)).items():
        bounds = tuple(s.indices(n)[:2] for s, n in zip(index, shape, strict=True))
        found.setdefault(bounds, set()).add(device.id)
    return found


def _explored_blocks(blocks):
    return {b.bounds: set(b.device_ids) for b in blocks}


CASES = [
    ((4, 2), (16, 8), P("data", "model")),
    ((4, 2), (16, 8), P("data", None)),
    ((4, 2), (16, 8), P(None, "model")),
    ((4, 2), (16, 8), P(("data", "model"), None)),
    ((4, 2), (16, 8), P(("model", "data"), None)),
    ((4, 2), (16, 8), P()),
    ((2, 4), (8, 12), P("model", "data")),
    ((2, 2), (6, 4), P(None, ("model", "data"))),
    ((8,), (24,), P("data")),
    ((2, 1), (6,), P("model")),
]


@pytest.mark.parametrize(("mesh_shape", "shape", "spec"), CASES, ids=str)
def test_blocks_and_bytes_are_the_shardings_own(mesh_shape, shape, spec):
    names = NAMES[: len(mesh_shape)]
    if len(mesh_shape) == 1:
        names = ("data",) if spec == P("data") else ("model",)
    found = explore_sharding(mesh_shape, names, shape, spec)
    sharding = NamedSharding(found.mesh, spec)
    assert _explored_blocks(found.blocks) == _indices_map_blocks(sharding, shape)
    # Each device's bytes are those of the shard a placed array really gives it.
    x = jax.device_put(np.arange(math.prod(shape), dtype=np.float32).reshape(shape), sharding)
    held = {s.device.id: s.data.nbytes for s in x.addressable_shards}
    assert found.bytes_per_device == held
    assert found.copies * found.nbytes == sum(held.values())
    assert found.matmul is None


def test_the_mesh_uses_the_first_devices_and_auto_axes():
    found = explore_sharding((2, 2), NAMES, (4, 4), P("data", "model"), dtype="bfloat16")
    assert [d.id for d in found.mesh.devices.flat] == [0, 1, 2, 3]
    assert set(found.bytes_per_device) == {0, 1, 2, 3}
    assert set(found.bytes_per_device.values()) == {2 * 2 * 2}  # 2x2 bf16 elements
    assert all(t == jax.sharding.AxisType.Auto for t in found.mesh.axis_types)


def test_the_figure_draws_one_box_per_distinct_block():
    found = explore_sharding((4, 2), NAMES, (16, 8), P("data", None))
    (ax,) = found.draw().axes
    drawn = {}
    for patch in ax.patches:
        where, _, holders = patch.get_gid()[len("block ") :].partition(" devices ")
        bounds = tuple(tuple(int(v) for v in part.split(":")) for part in where.split(","))
        drawn[bounds] = {int(i) for i in holders.split(",")}
    assert drawn == _explored_blocks(found.blocks) and len(drawn) == 4


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: explore_sharding((4, 4), NAMES, (16, 8), P()), ["needs 16 devices", "has 8"]),
        (
            lambda: explore_sharding((4, 2), NAMES, (16, 8), P(), devices=jax.devices()[:4]),
            ["needs 8 devices", "has 4", "setup_devices(8)"],
        ),
        (lambda: explore_sharding((4, 2), ("data",), (16, 8), P()), ["one name per axis"]),
        (lambda: explore_sharding((4, 2), ("d", "d"), (16, 8), P()), ["distinct"]),
        (
            lambda: explore_sharding((4, 2), NAMES, (10, 8), P("data", None)),
            ["dimension 0", "size 10", "4 blocks", "multiple of 4", "8 or 12"],
        ),
        (
            lambda: explore_sharding((4, 2), NAMES, (16, 6), P(None, ("data", "model"))),
            ["dimension 1", "8 blocks", "multiple of 8 (e.g. 8)"],
        ),
        (
            lambda: explore_sharding((4, 2), NAMES, (16, 8), P("batch", None)),
            ["'batch'", "('data', 'model')"],
        ),
        (lambda: explore_sharding((4, 2), NAMES, (16, 8), P("data", "data")), ["twice"]),
        (lambda: explore_sharding((4, 2), NAMES, (16,), P("data", None)), ["2 entries", "1 dim"]),
        (lambda: explore_sharding((4, 2), NAMES, (4, 4, 4), P()), ["1-D and 2-D", "2-D view"]),
        (
            lambda: explore_sharding((4, 2), NAMES, (16,), P(), other_spec=P()),
            ["needs a 2-D x"],
        ),
        (
            lambda: explore_sharding(
                (4, 2), NAMES, (16, 8), P(), other_spec=P(), other_shape=(4, 8)
            ),
            ["8 rows", "other_shape=(8, 8)"],
        ),
        (
            lambda: explore_sharding(
                (4, 2), NAMES, (16, 8), P(), other_spec=P("model", "data"), other_shape=(8, 6)
            ),
            ["w", "size 6", "multiple of 4"],
        ),
        (lambda: explore_sharding((4, 2), NAMES, (16, 8), P(), out_spec=P()), ["other_spec"]),
    ],
)
def test_errors_say_what_is_wrong_and_what_fits(call, words):
    with pytest.raises(ValueError) as info:
        call()
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_menus_offer_only_valid_choices():
    assert mesh_shapes(8) == [(8,), (2, 4), (4, 2), (2, 2, 2), (4,), (2, 2), (2,), (1,)]
    assert mesh_shapes(1) == [(1,)]
    assert all(8 % math.prod(s) == 0 for s in mesh_shapes(8))
    specs = specs_for(NAMES, 2)
    assert specs[0] == P(None, None) and P("data", "model") in specs
    assert P(("model", "data"), None) in specs and P("data", "data") not in specs
    for spec in specs:
        axes = [a for e in spec for a in ((e,) if isinstance(e, str) else e or ())]
        assert len(axes) == len(set(axes)), spec
    # Every offered spec lays out a (16, 8) array on the (4, 2) mesh.
    mesh = build_mesh((4, 2), NAMES)
    for spec in specs:
        explore_sharding((4, 2), NAMES, (16, 8), spec, devices=list(mesh.devices.flat))


def _compiled_independently(mesh, x_spec, w_spec, x_shape, w_shape):
    """``x @ w`` compiled for real placed arrays, the way a learner would write it."""
    x = jax.device_put(
        jnp.arange(math.prod(x_shape), dtype=jnp.float32).reshape(x_shape),
        NamedSharding(mesh, x_spec),
    )
    w = jax.device_put(
        jnp.arange(math.prod(w_shape), dtype=jnp.float32).reshape(w_shape) / 7,
        NamedSharding(mesh, w_spec),
    )
    step = jax.jit(jnp.matmul)
    return x, w, step


@pytest.mark.slow
def test_a_split_contraction_meets_in_one_all_reduce_of_the_result_block():
    found = explore_sharding((4, 2), NAMES, (16, 8), P("data", "model"), other_spec=P("model"))
    m = found.matmul
    assert m is not None
    # Worked by hand: each device multiplies a 4x4 block of x by a 4x8 block of w, a partial
    # 4x8 result (128 B of float32) that the two 'model' devices add: sent 2 * (1/2) * 128 B.
    assert m.counts.as_dict(nonzero=True) == {"all-reduce": 1}
    assert m.mesh_axes == (("model",),)
    assert m.rows() == [("all-reduce", "model", 2, m.counts.ops[0].result, 128, 128.0)]
    assert m.traffic.sent == 128
    x, w, step = _compiled_independently(
        found.mesh, P("data", "model"), P("model"), (16, 8), (8, 8)
    )
    counts = count_collectives(step, x, w)
    assert counts.as_dict() == m.counts.as_dict()
    assert compiled_traffic(counts).by_group() == m.traffic.by_group()
    result = step(x, w)
    np.testing.assert_allclose(np.asarray(result), np.asarray(x) @ np.asarray(w), rtol=1e-6)
    assert _explored_blocks(m.out_blocks) == _indices_map_blocks(result.sharding, (16, 8))
    assert "all-reduce" in found.html() and "<script" not in found.html()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("x_spec", "w_spec", "out_spec", "w_shape"),
    [
        (P("data", None), P(None, "model"), None, (8, 6)),
        (P("data", None), P("model", None), None, (8, 8)),
        (P(None, "model"), P(), None, (8, 4)),
        (P("data", None), P(None, "model"), P(), (8, 8)),
    ],
    ids=str,
)
def test_collectives_and_bytes_are_the_compiled_programs(x_spec, w_spec, out_spec, w_shape):
    found = explore_sharding(
        (4, 2), NAMES, (16, 8), x_spec, other_spec=w_spec, other_shape=w_shape, out_spec=out_spec
    )
    m = found.matmul
    assert m is not None
    x, w, _ = _compiled_independently(found.mesh, x_spec, w_spec, (16, 8), w_shape)
    out = None if out_spec is None else NamedSharding(found.mesh, out_spec)
    step = jax.jit(jnp.matmul, out_shardings=out)
    counts = count_collectives(step, x, w)
    assert counts.as_dict() == m.counts.as_dict()
    assert [op.mesh_axes(found.mesh) for op in counts.ops] == list(m.mesh_axes)
    priced = compiled_traffic(counts)
    assert priced.sent == m.traffic.sent and priced.by_group() == m.traffic.by_group()
    # Each row's array bytes are the collective's own result, read from its HLO type.
    for kind, _, n, result, nbytes, _ in m.rows():
        size = math.prod(int(d) for d in re.findall(r"\d+", result.split("[")[1].split("]")[0]))
        assert nbytes == 4 * size * (n if kind == "reduce-scatter" else 1)
    result = step(x, w)
    np.testing.assert_allclose(np.asarray(result), np.asarray(x) @ np.asarray(w), rtol=1e-6)
    assert _explored_blocks(m.out_blocks) == _indices_map_blocks(result.sharding, m.out_shape)
    if out_spec == P():
        assert m.counts["all-gather"] >= 1 and set(found.matmul.out_blocks[0].device_ids) == set(
            range(8)
        )
    if x_spec == P("data", None) and w_spec == P(None, "model") and out_spec is None:
        assert m.counts.total == 0 and m.traffic.sent == 0  # each device's block is its own


def test_the_panel_shows_what_explore_sharding_finds():
    panel = ShardingExplorerPanel()
    c = panel.controls
    assert c["mesh"].value == (2, 4) and panel._names() == NAMES
    assert panel.result is not None and panel.error == ""
    assert c["shape"].value == "16, 16"  # a shape the starting mesh divides (2 x 8, 4 x 4)
    assert panel.result.blocks == explore_sharding((2, 4), NAMES, (16, 16), c["spec"].value).blocks
    assert "data:image/png;base64," in panel.picture.value
    assert c["other_spec"].index == 0 and c["other_spec"].label == "no matmul"
    c["shape"].value = "16, 8"
    c["mesh"].value = (4, 2)
    c["spec"].value = P("data", None)
    expected = explore_sharding((4, 2), NAMES, (16, 8), P("data", None))
    assert panel.result.blocks == expected.blocks
    assert panel.result.bytes_per_device == expected.bytes_per_device
    assert panel.tables.value == expected.tables_html()
    assert "P(&#x27;data&#x27;, None)" in panel.message.value
    assert "<script" not in panel.snapshot()


def test_the_panels_menus_follow_the_names_and_the_rank():
    panel = ShardingExplorerPanel()
    c = panel.controls
    c["names"].value = "rows, cols"
    assert all(
        a in ("rows", "cols")
        for s in c["spec"].options
        for e in s[1]
        for a in ((e,) if isinstance(e, str) else e or ())
    )
    assert panel.result is not None and tuple(panel.result.mesh.axis_names) == ("rows", "cols")
    c["spec"].value = P("rows", "cols")
    c["mesh"].value = (2, 2, 2)  # three axes: three default names, specs over them
    assert c["names"].value == "data, model, stage" and panel.error == ""
    assert P("data", ("model", "stage")) in [value for _, value in c["spec"].options]
    assert panel.result is not None and panel.result.mesh.shape == {
        "data": 2,
        "model": 2,
        "stage": 2,
    }
    c["mesh"].value = (4, 2)
    c["names"].value = "rows, cols"
    c["spec"].value = P("rows", "cols")
    c["shape"].value = "32"
    assert all(len(value) == 1 for _, value in c["spec"].options)
    assert panel.result is not None and panel.result.shape == (32,)


def test_the_panel_says_why_a_layout_cannot_be_made():
    panel = ShardingExplorerPanel()
    c = panel.controls
    c["mesh"].value = (4, 2)
    c["spec"].value = P("data", None)
    c["shape"].value = "10, 8"
    assert panel.result is None and "multiple of 4" in panel.error
    assert "Cannot lay this out" in panel.message.value and panel.picture.value == ""
    c["shape"].value = "ten, 8"
    assert panel.result is None and "16, 8" in panel.error
    c["shape"].value = "12, 8"
    assert panel.result is not None and panel.error == ""
    small = ShardingExplorerPanel(devices=jax.devices()[:1])
    assert small.controls["mesh"].options == (("1", (1,)),)


@pytest.mark.slow
def test_the_panel_compiles_the_matmul_it_is_asked_for():
    panel = ShardingExplorerPanel()
    c = panel.controls
    c["mesh"].value = (4, 2)
    c["spec"].value = P("data", "model")
    c["other_spec"].value = P("model", None)
    c["columns"].value = 4
    expected = explore_sharding(
        (4, 2),
        NAMES,
        (16, 8),
        P("data", "model"),
        other_spec=P("model", None),
        other_shape=(8, 4),
    )
    assert panel.result is not None and panel.result.matmul is not None
    assert panel.result.matmul.rows() == expected.matmul.rows()  # type: ignore[union-attr]
    assert "all-reduce" in panel.tables.value
    c["other_spec"].value = "no matmul"
    assert panel.result is not None and panel.result.matmul is None
    assert "all-reduce" not in panel.tables.value


@pytest.mark.slow
def test_the_gallery_is_plain_html_of_every_configuration():
    page = explorer_gallery_html()
    configs = gallery_configs(8)
    assert configs[0].mesh_shape == (4, 2) and configs[0].shape == (16, 8)
    assert page.count("<section>") == len(configs) == page.count("data:image/png;base64,")
    assert "<script" not in page and page._repr_html_() == page
    for config in configs:
        found = config.explore()
        assert found.tables_html() in page
        assert config.caption.replace("'", "&#x27;") in page


@pytest.mark.parametrize("devices", [1, 2, 3, 5, 6, 8])
def test_the_gallery_fits_every_device_count(devices):
    pool = jax.devices()[:devices]
    for config in gallery_configs(devices):
        assert math.prod(config.mesh_shape) == devices
        mesh = build_mesh(config.mesh_shape, config.axis_names, devices=pool)
        for spec, shape in (
            (config.spec, config.shape),
            (config.other_spec, (config.shape[1],) * 2),
        ):
            if spec is not None:
                sharding = NamedSharding(mesh, spec)
                assert _explored_blocks(
                    explore_sharding(
                        config.mesh_shape, config.axis_names, shape, spec, devices=pool
                    ).blocks
                ) == _indices_map_blocks(sharding, shape)


def test_a_gallery_configuration_that_does_not_fit_says_so():
    with pytest.raises(ValueError, match="needs 8 devices but this machine has 2"):
        explorer_gallery_html(
            [ExplorerConfig((4, 2), NAMES, (16, 8), P())], devices=jax.devices()[:2]
        )
