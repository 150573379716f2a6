import jax
import numpy as np
import pytest

import aurora_helpers as ah
from aurora_helpers.perf.roofline import Roofline, RooflinePoint, roofline_ops
from aurora_helpers.perf.throughput import MachineThroughput, Measurement


def _bench(copy_gbps, matmul_tflops, kind="cpu", peak=None):
    rows = (
        Measurement("copy", 1 << 20, "float32", 1.0, copy_gbps * 1e9, "m"),
        Measurement("matmul", 256, "float32", 1.0, matmul_tflops * 1e12, "m"),
    )
    return MachineThroughput("jax 0", "cpu", kind, rows, peak)


def _roofline():
    points = (
        RooflinePoint("stream", flops=1e9, bytes=1e10, seconds=1.0),  # I = 0.1, 1 GFLOP/s
        RooflinePoint("dense", flops=5e10, bytes=1e8, seconds=1.0),  # I = 500, 50 GFLOP/s
    )
    return Roofline(points, bandwidth=20e9, compute=100e9, dtype="float32", device_kind="cpu")


def test_roofs_ridge_and_bounds():
    r = _roofline()
    assert r.ridge == pytest.approx(5.0)
    assert r.roof(0.1) == pytest.approx(2e9) and r.roof(1000) == pytest.approx(100e9)
    assert r.bound("stream") == "memory" and r.bound("dense") == "compute"
    assert r.bound(4.9) == "memory" and r.bound(5.0) == "compute"
    assert r.efficiency("stream") == pytest.approx(0.5)
    assert r.efficiency("dense") == pytest.approx(0.5)
    assert "ridge 5 FLOP/byte" in str(r) and "<table>" in r._repr_html_()
    with pytest.raises(KeyError, match="no point"):
        r.point("nope")


def test_plot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = _roofline().draw()
    assert not plt.get_fignums()  # closed: a notebook shows it once, where it is returned
    (ax,) = fig.axes
    assert len(ax.collections) == 2  # one marker per point
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"


def test_hand_counts_match_the_compiler():
    """The FLOPs counted by hand for a matmul are the ones XLA's cost analysis reports."""
    op = next(o for o in roofline_ops(n=1024, matmul_sizes=(64,)) if o.name == "matmul 64")
    cost = jax.jit(op.fn).lower(*op.args).compile().cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost  # older JAX returned a list
    assert cost["flops"] == op.flops == 2 * 64**3
    assert op.intensity == pytest.approx(64 / 6)


def test_measure_places_ops_and_raises_roofs_it_sees_beaten():
    ops = roofline_ops(n=1 << 16, matmul_sizes=(128,))
    generous = ah.measure_roofline(_bench(1e6, 1e6), ops, budget_s=0.01)
    # Roofs set absurdly high stay; every point sits under them.
    assert generous.bandwidth == 1e15 and generous.compute == 1e18
    assert all(generous.efficiency(p.name) <= 1 for p in generous.points)
    assert generous.bound("x + y") == "memory"
    tiny = ah.measure_roofline(_bench(1e-6, 1e-9), ops, budget_s=0.01)
    # A roof that something beat is raised to what was seen, and the note says so.
    assert any("compute roof raised" in n for n in tiny.notes)
    assert any("memory roof raised" in n for n in tiny.notes)
    assert max(p.flops_per_s for p in tiny.points) == pytest.approx(tiny.compute)
    assert all(tiny.efficiency(p.name) <= 1 + 1e-9 for p in tiny.points)


def test_published_peaks_are_carried():
    peak = ah.peak_for("NVIDIA H100 80GB HBM3")
    r = ah.measure_roofline(
        _bench(1e6, 1e6, kind="NVIDIA H100 80GB HBM3", peak=peak),
        roofline_ops(n=1024, matmul_sizes=()),
        budget_s=0.005,
    )
    assert r.peak_bandwidth == 3350e9 and r.peak_compute == 67e12


def test_bad_input():
    with pytest.raises(ValueError, match="positive"):
        roofline_ops(n=0)
    empty = MachineThroughput("jax 0", "cpu", "cpu", (), None)
    with pytest.raises(ValueError, match="no copy"):
        ah.measure_roofline(empty, roofline_ops(n=8, matmul_sizes=()))
    with pytest.raises(ValueError, match="no operations"):
        ah.measure_roofline(_bench(1, 1), [])
    assert np.isfinite(_roofline().ridge)
