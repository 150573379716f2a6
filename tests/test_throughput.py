"""Throughput measurements: the driver (with fake suites and a fake timer), JAX on the CPU, the side-by-side
table, and `aurora bench`."""

import json
import sys

import numpy as np
import pytest
from matplotlib.figure import Figure

import aurora_helpers as ah
from aurora_course.bench import load_suite
from aurora_helpers.perf.throughput import (
    MachineThroughput,
    Measurement,
    caches,
    compare_throughputs,
)
from aurora_helpers.perf.throughput.caches import CacheLevel
from aurora_helpers.perf.throughput.driver import default_sizes, run_suite
from aurora_helpers.perf.throughput.jax_suite import JaxSuite
from aurora_helpers.perf.throughput.ops import Op


def _same(expected):
    def check(out):
        return None if np.array_equal(out, expected) else "wrong values"

    return check


class FakeSuite:
    """A library whose operations are NumPy calls, some of them broken on purpose."""

    platform = "cpu"
    device_kind = "fake device"
    batched = False
    notes = ()

    def __init__(self, library="fake 1.0", speed=1.0, bfloat16=True):
        self.library = library
        self.speed = speed
        self.bfloat16 = bfloat16

    def transfer_ops(self, direction, nbytes):
        src = np.arange(nbytes // 4, dtype=np.float32)

        def not_shared(out):
            return (
                "shares memory with the source" if np.shares_memory(out, src) else _same(src)(out)
            )

        def unsupported():
            raise RuntimeError("memory kind not supported here")

        return [
            Op("unsupported", unsupported, src.nbytes, lambda o: o, not_shared),
            Op("view (no copy)", lambda: src.view(), src.nbytes, lambda o: o, not_shared),
            Op("broken copy", lambda: src * 0, src.nbytes, lambda o: o, _same(src)),
            Op(f"{direction} copy", src.copy, src.nbytes, lambda o: o, not_shared),
        ]

    def copy_op(self, nbytes):
        x = np.arange(nbytes // 4, dtype=np.float32)
        return Op("x + 1", lambda: x + 1, 2.0 * x.nbytes, lambda o: o, _same(x + 1))

    def matmul_op(self, n, dtype):
        if dtype == "bfloat16" and not self.bfloat16:
            return None
        a = np.eye(n, dtype=np.float32)
        return Op("a @ a", lambda: a @ a, 2.0 * n**3, lambda o: o, _same(a))


def fake_timer(op, budget_s, batched):
    """Seconds per op from the op's own work: 1 GB/s or 1 TFLOP/s, scaled by the suite's speed."""
    return op.work / 1e9 if "a @ a" not in op.method else op.work / 1e12


SIZES = (4096, 65536)


def test_driver_skips_wrong_methods_and_says_why():
    bench = run_suite(
        FakeSuite(), sizes=SIZES, matmul_sizes=(8, 16), budget_s=0.001, timer=fake_timer
    )
    for direction in ("h2d", "d2h"):
        rows = bench.sweep(direction)
        assert [m.size for m in rows] == list(SIZES)
        assert {m.method for m in rows} == {f"{direction} copy"}
        assert rows[0].value == pytest.approx(1.0)
    notes = "\n".join(bench.notes)
    assert "view (no copy)" in notes and "shares memory" in notes
    assert "broken copy" in notes and "wrong values" in notes
    assert "unsupported" in notes and "RuntimeError: memory kind not supported" in notes
    assert bench.best("copy").value == pytest.approx(1.0)
    assert bench.best("matmul", "float32").value == pytest.approx(1.0)
    assert bench.peak is None and bench.fraction_of_peak("copy") is None
    assert "measured values only" in str(bench) and "unknown" in str(bench)


def test_unsupported_dtype_is_noted_not_faked():
    bench = run_suite(
        FakeSuite(bfloat16=False),
        sizes=SIZES,
        matmul_sizes=(8,),
        metrics=("matmul",),
        timer=fake_timer,
    )
    assert bench.best("matmul", "bfloat16") is None
    assert any("bfloat16: not supported" in n for n in bench.notes)
    assert bench.measured() == [("matmul", "float32")]


def test_driver_rejects_bad_requests():
    with pytest.raises(ValueError, match="unknown metric"):
        run_suite(FakeSuite(), sizes=SIZES, matmul_sizes=(8,), metrics=("latency",))
    with pytest.raises(ValueError, match="dtype"):
        run_suite(FakeSuite(), sizes=SIZES, matmul_sizes=(8,), dtypes=("float16",))
    with pytest.raises(ValueError, match="at least 1024 bytes"):
        run_suite(FakeSuite(), sizes=(16,), matmul_sizes=(8,))


def _bench(library, values, peak=None):
    """A MachineThroughput with one measurement per (probe, dtype) giving exactly ``values``."""
    units = {"matmul": 1e12}
    rows = []
    for (probe, dtype), value in values.items():
        rows.append(Measurement(probe, 1 << 20, dtype, 1.0, value * units.get(probe, 1e9), "m"))
    return MachineThroughput(library, "gpu", "NVIDIA H100 80GB HBM3", tuple(rows), peak)


def test_fraction_of_published_peak():
    peak = ah.peak_for("NVIDIA H100 80GB HBM3")
    bench = _bench(
        "jax 0",
        {("copy", "float32"): 3015.0, ("matmul", "bfloat16"): 494.75, ("h2d", "bytes"): 32.0},
        peak,
    )
    assert bench.fraction_of_peak("copy") == pytest.approx(0.9)
    assert bench.fraction_of_peak("matmul", "bfloat16") == pytest.approx(0.5)
    assert bench.fraction_of_peak("h2d") == pytest.approx(0.5)
    assert bench.fraction_of_peak("matmul", "float32") is None  # not measured
    text = str(bench)
    assert "90%" in text and "NVIDIA H100 datasheet" in text
    data = json.loads(json.dumps(bench.to_dict()))
    assert {row["metric"] for row in data["summary"]} == {"h2d", "copy", "matmul"}
    with pytest.raises(ValueError, match="unknown metric"):
        bench.best("latency")


def test_side_by_side_table():
    """The comparison `aurora bench --compare torch` prints, from injected measurements."""
    first = run_suite(
        FakeSuite("jax 9"), sizes=SIZES, matmul_sizes=(8,), timer=fake_timer, budget_s=0.001
    )

    def slower_timer(op, budget_s, batched):
        return fake_timer(op, budget_s, batched) * (2.0 if op.method == "x + 1" else 1.25)

    second = run_suite(
        FakeSuite("torch 9", bfloat16=False),
        sizes=SIZES,
        matmul_sizes=(8,),
        timer=slower_timer,
        budget_s=0.001,
    )
    table = compare_throughputs(first, second)
    assert table.ratio("copy") == pytest.approx(2.0)  # the first library is twice as fast
    assert table.ratio("matmul", "float32") == pytest.approx(1.25)
    assert table.ratio("matmul", "bfloat16") is None  # only one side measured it
    assert table.lowest_ratio == pytest.approx(1.25)
    rows = {row[0]: row for row in table.rows()}
    assert rows["on-device copy (y = x + 1)"][3] == "200%"
    assert rows["matmul bfloat16"][2] == "not measured"
    text = str(table)
    assert "jax 9" in text and "torch 9" in text and "jax / torch" in text
    assert "<table>" in table._repr_html_()
    with pytest.raises(TypeError):
        compare_throughputs(first, "torch")


def test_jax_on_this_cpu():
    bench = ah.measure_machine(sizes=(1 << 16, 1 << 20), matmul_sizes=(64, 128), budget_s=0.01)
    assert bench.platform == "cpu" and bench.peak is None  # no published peak for a CPU
    assert bench.library.startswith("jax ")
    for probe, dtype in (("h2d", "bytes"), ("d2h", "bytes"), ("copy", "float32")):
        assert bench.best(probe, dtype).value > 0
    for dtype in ("float32", "bfloat16"):
        assert bench.best("matmul", dtype).value > 0
    # Every probe that ran produced the right values (the checks would have said otherwise).
    assert not any("relative error" in n or "wrong values" in n for n in bench.notes)
    assert bench.bandwidth_roof > 0 and bench.compute_roof("float32") > 0
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = bench.draw()
    assert isinstance(fig, Figure) and fig not in map(plt.figure, plt.get_fignums())
    assert len(fig.axes[0].get_lines()) == 3


def test_jax_suite_checks_catch_aliasing_and_errors():
    suite = JaxSuite()
    d2h = {op.method: op for op in suite.transfer_ops("d2h", 1 << 16)}
    numpy_op = d2h["np.asarray(x)"]
    (fresh,) = numpy_op.setup()
    view = np.asarray(fresh)
    # On a CPU the "device" buffer is host memory, and NumPy may simply view it: no transfer.
    aliased = view.__array_interface__["data"][0] == fresh.unsafe_buffer_pointer()
    assert ("zero-copy" in (numpy_op.check(view) or "")) == aliased
    assert numpy_op.check(view.copy()) is None
    assert numpy_op.check(np.zeros(1 << 14, np.float32)) == "wrong values"
    mm = suite.matmul_op(32, "float32")
    assert mm.check(mm.run()) is None
    assert "relative error" in mm.check(mm.run() * 1.1)
    with pytest.raises(ValueError, match="direction"):
        suite.transfer_ops("sideways", 1024)


def test_load_suite_errors():
    with pytest.raises(ValueError, match="known libraries"):
        load_suite("numpy", "cpu")


def test_load_suite_without_torch_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # as if PyTorch were not installed
    with pytest.raises(ModuleNotFoundError, match="pip install torch"):
        load_suite("torch", "cpu")


def test_caches_are_read_and_label_each_size(tmp_path):
    for index, (level, kind, size) in enumerate(
        [
            (1, "Data", "48K"),
            (1, "Instruction", "32K"),
            (2, "Unified", "1024K"),
            (3, "Unified", "32768K"),
        ]
    ):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        (folder / "level").write_text(f"{level}\n")
        (folder / "type").write_text(f"{kind}\n")
        (folder / "size").write_text(f"{size}\n")
    found = caches.read_caches(tmp_path)
    assert found == (
        CacheLevel("L1", 48 << 10),
        CacheLevel("L2", 1 << 20),
        CacheLevel("L3", 32 << 20),
    )
    assert caches.memory_size(found) == 128 << 20  # well past the 32 MiB last level
    assert [caches.level_of(n, found) for n in (1 << 15, 1 << 20, 1 << 24, 1 << 26)] == [
        "L1",
        "L2",
        "L3",
        "memory",
    ]
    assert caches.level_of(1 << 20, ()) == "cache?" and caches.level_of(1 << 30, ()) == "memory"


@pytest.mark.parametrize("quick", [True, False])
def test_cpu_sweeps_go_past_the_last_cache_level(quick):
    l3 = (CacheLevel("L2", 1 << 20), CacheLevel("L3", 32 << 20))
    sizes, _ = default_sizes("cpu", quick, caches=l3)
    assert 2 * sizes[-1] >= 4 * (32 << 20) and sizes == tuple(sorted(sizes))
    assert caches.level_of(2 * sizes[-1], l3) == "memory"
    assert sizes[0] < 1 << 20  # and starts inside the caches


def test_headline_bandwidth_comes_from_memory_and_says_so():
    l3 = (CacheLevel("L3", 1 << 20),)
    bench = run_suite(
        FakeSuite(), sizes=(1 << 16, 1 << 22), matmul_sizes=(8,), timer=fake_timer, caches=l3
    )
    assert [m.level for m in bench.sweep("copy")] == ["L3", "memory"]
    assert bench.headline("copy").level == "memory"
    assert "4.0 MiB (memory)" in str(bench) and "64.0 KiB (L3)" in bench.details()


@pytest.mark.slow
def test_cli_bench_compare_missing_library(fresh_python):
    # As if PyTorch were not installed, whether or not it is.
    code = (
        "import sys; sys.modules['torch'] = None; "
        "from aurora_course.cli import main; raise SystemExit(main({args}))"
    )
    named = fresh_python(code.format(args="['bench', '--quick', '--compare', 'torch']"))
    assert named.returncode == 1
    assert "torch is not installed" in named.stderr and "pip install torch" in named.stderr
    assert named.stdout == ""  # nothing measured when the comparison cannot run
    auto = fresh_python(code.format(args="['bench', '--quick', '--compare', 'auto', '--json']"))
    assert auto.returncode == 0, auto.stderr
    assert "note: torch is not installed" in auto.stderr
    results = json.loads(auto.stdout)["results"]
    assert len(results) == 1 and results[0]["library"].startswith("jax ")
    assert {row["metric"] for row in results[0]["summary"]} == {"h2d", "d2h", "copy", "matmul"}


@pytest.mark.slow
def test_cli_bench_text(fresh_python):
    result = fresh_python(
        "from aurora_course.cli import main; raise SystemExit(main(['bench', '--quick', '--detail']))"
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "measured values only" in out and "matmul bfloat16" in out and "time per op" in out


def test_headline_is_largest_size_for_bandwidth_and_best_for_matmul():
    rows = (
        Measurement("copy", 1 << 16, "float32", 1.0, 50e9, "m"),  # from a cache: fast
        Measurement("copy", 1 << 24, "float32", 1.0, 20e9, "m"),
        Measurement("matmul", 256, "float32", 1.0, 2e12, "m"),
        Measurement("matmul", 512, "float32", 1.0, 1e12, "m"),
    )
    bench = MachineThroughput("jax 0", "cpu", "cpu", rows, None)
    assert bench.best("copy").value == pytest.approx(50)
    assert bench.headline("copy").value == pytest.approx(20)
    assert bench.bandwidth_roof == pytest.approx(20e9)
    assert bench.headline("matmul", "float32").size == 256
    assert bench.compute_roof("float32") == pytest.approx(2e12)
    assert bench.sweep("copy")[0].size_label == "64.0 KiB"
    assert bench.sweep("matmul")[0].size_label == "n=256"
