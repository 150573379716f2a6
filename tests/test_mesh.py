import jax
import pytest
from jax.sharding import AxisType

import aurora_helpers as ah


@pytest.mark.parametrize(
    ("n", "axes", "shape"),
    [
        (8, 1, (8,)),
        (8, 2, (4, 2)),
        (8, 3, (2, 2, 2)),
        (6, 2, (3, 2)),
        (7, 2, (7, 1)),
        (1, 2, (1, 1)),
        (12, 2, (4, 3)),
        (16, 2, (4, 4)),
    ],
)
def test_balanced_shape(n, axes, shape):
    assert ah.balanced_shape(n, axes) == shape


@pytest.mark.parametrize(("n", "axes"), [(0, 1), (4, 0)])
def test_balanced_shape_rejects_nonsense(n, axes):
    with pytest.raises(ValueError):
        ah.balanced_shape(n, axes)


def test_default_mesh_uses_every_device_with_explicit_axes():
    mesh = ah.make_mesh(("data", "model"))
    assert dict(mesh.shape) == {"data": 4, "model": 2}
    assert mesh.axis_types == (AxisType.Explicit, AxisType.Explicit)
    assert sorted(d.id for d in mesh.devices.flat) == [d.id for d in jax.devices()]


def test_single_name_shape_and_auto_types():
    mesh = ah.make_mesh("x", (8,), axis_types=AxisType.Auto)
    assert dict(mesh.shape) == {"x": 8} and mesh.axis_types == (AxisType.Auto,)
    mixed = ah.make_mesh(("a", "b"), (2, 4), axis_types=(AxisType.Explicit, AxisType.Auto))
    assert mixed.axis_types == (AxisType.Explicit, AxisType.Auto)


def test_subset_of_devices():
    mesh = ah.make_mesh(("x", "y"), devices=jax.devices()[:4])
    assert dict(mesh.shape) == {"x": 2, "y": 2}


@pytest.mark.parametrize(
    ("names", "shape", "match"),
    [
        (
            ("x", "y"),
            (4, 4),
            r"needs 16 devices but only 8 device\(s\) available; for example shape=\(4, 2\)",
        ),
        (
            ("x", "y"),
            (2, 2),
            r"uses 4 of the 8 device\(s\) available.*devices=jax.devices\(\)\[:4\]",
        ),
        (("x", "y"), (8, 0), "positive integer"),
        (("x", "y"), (-2, -4), "positive integer"),
        (("x", "x"), (4, 2), "distinct; repeated: x"),
        (("x", ""), (4, 2), "non-empty strings"),
        ((), None, "at least one axis name"),
        (("x", "y"), (8,), "1 entries but there are 2 axis names"),
    ],
)
def test_bad_meshes_say_what_is_available(names, shape, match):
    with pytest.raises(ValueError, match=match):
        ah.make_mesh(names, shape)


def test_wrong_number_of_axis_types():
    with pytest.raises(ValueError, match="2 axis types given for 1 axes"):
        ah.make_mesh("x", axis_types=(AxisType.Auto, AxisType.Auto))
