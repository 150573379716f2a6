"""The PyTorch suite of ``aurora bench --compare torch``, run for real on the CPU.

Needs PyTorch: ``make test-torch`` builds ``.venv-torch`` with it and runs these tests. Without
PyTorch they are skipped and say so (the missing-library path is tested in test_throughput.py).
"""

import json

import numpy as np
import pytest

from aurora_course.bench import load_suite
from aurora_helpers.perf.throughput.driver import run_suite
from aurora_helpers.perf.throughput.ops import ComparisonUnavailable

torch = pytest.importorskip("torch", reason="PyTorch is not installed; run `make test-torch`")

pytestmark = pytest.mark.torch


def test_torch_suite_measures_the_cpu_with_correct_results():
    suite = load_suite("torch", "cpu")
    assert suite.library.startswith("torch ") and suite.platform == "cpu"
    bench = run_suite(suite, sizes=(1 << 16, 1 << 20), matmul_sizes=(64,), budget_s=0.01)
    for metric, dtype in (("h2d", "bytes"), ("d2h", "bytes"), ("copy", "float32")):
        assert bench.best(metric, dtype).value > 0
    for dtype in ("float32", "bfloat16"):
        assert bench.best("matmul", dtype).value > 0
    # Every operation passed its check: no note about wrong values or errors.
    assert not any(
        "wrong values" in n or "relative error" in n or "failed" in n for n in bench.notes
    )
    assert any("torch.get_num_threads()" in n for n in bench.notes)


def test_torch_checks_reject_wrong_results():
    suite = load_suite("torch", "cpu")
    copy = suite.copy_op(1 << 12)
    out = copy.run()
    assert copy.check(out) is None
    assert copy.check(torch.zeros_like(out)) == "wrong values"
    mm = suite.matmul_op(32, "float32")
    assert mm.check(mm.run()) is None
    assert "relative error" in mm.check(mm.run() * 1.1)
    (h2d,) = suite.transfer_ops("h2d", 1 << 12)
    assert h2d.check(h2d.run()) is None
    source = torch.from_numpy(np.arange(1 << 10, dtype=np.float32))
    assert "shares memory" in suite._check(source.numpy(), source)(source)


def test_torch_cannot_measure_a_gpu_without_cuda():
    if torch.cuda.is_available():
        pytest.skip("this PyTorch has CUDA")
    with pytest.raises(ComparisonUnavailable, match="CUDA"):
        load_suite("torch", "gpu")


@pytest.mark.slow
def test_cli_bench_compare_torch_side_by_side(fresh_python):
    result = fresh_python(
        "from aurora_course.cli import main; "
        "raise SystemExit(main(['bench', '--quick', '--compare', 'torch', '--json']))"
    )
    assert result.returncode == 0, result.stderr
    results = json.loads(result.stdout)["results"]
    assert [r["library"].split()[0] for r in results] == ["jax", "torch"]
    text = fresh_python(
        "from aurora_course.cli import main; raise SystemExit(main(['bench', '--quick', '--compare', 'torch']))"
    )
    assert text.returncode == 0, text.stderr
    assert "Side by side" in text.stdout and "jax / torch" in text.stdout
