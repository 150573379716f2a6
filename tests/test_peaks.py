import inspect
import re

import pytest

import aurora_helpers as ah
from aurora_helpers.perf import peaks


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        ("NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM"),
        ("NVIDIA H100 PCIe", "NVIDIA H100 PCIe"),
        ("NVIDIA H100 NVL", "NVIDIA H100 NVL"),
        ("NVIDIA H200", "NVIDIA H200 SXM"),
        ("NVIDIA H200 NVL", "NVIDIA H200 NVL"),
        ("NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB SXM"),
        ("NVIDIA A100 80GB PCIe", "NVIDIA A100 80GB PCIe"),
        ("NVIDIA A100-SXM4-40GB", "NVIDIA A100 40GB"),
        ("NVIDIA A100-PCIE-40GB", "NVIDIA A100 40GB"),
        ("NVIDIA L4", "NVIDIA L4"),
        ("Tesla T4", "NVIDIA T4"),
        ("TPU v4", "TPU v4"),
        ("TPU v5 lite", "TPU v5e"),
        ("TPU v5e", "TPU v5e"),
        ("TPU v5", "TPU v5p"),
        ("TPU v5p", "TPU v5p"),
        ("TPU v6 lite", "TPU v6e"),
    ],
)
def test_known_devices(kind, name):
    peak = ah.peak_for(kind)
    assert peak is not None and peak.name == name


@pytest.mark.parametrize(
    "kind", ["cpu", "NVIDIA L40S", "NVIDIA GH200 480GB", "NVIDIA GeForce RTX 4090", "TPU v3", ""]
)
def test_unknown_devices_have_no_peak(kind):
    assert ah.peak_for(kind) is None


def test_figures_from_the_datasheets():
    h100 = ah.peak_for("NVIDIA H100 80GB HBM3")
    assert (h100.memory_gbps, h100.float32_tflops, h100.bfloat16_tflops) == (3350, 67, 989.5)
    h200 = ah.peak_for("NVIDIA H200")
    assert (h200.memory_gbps, h200.bfloat16_tflops, h200.host_link_gbps) == (4800, 989.5, 64)
    assert ah.peak_for("NVIDIA A100-SXM4-80GB").memory_gbps == 2039
    assert ah.peak_for("Tesla T4").bfloat16_tflops is None  # Turing has no bfloat16 units
    assert ah.peak_for("TPU v5 lite").float32_tflops is None  # not published


def test_every_entry_is_sourced_and_sane():
    names = [p.name for p in ah.PEAKS]
    assert len(names) == len(set(names))
    for p in ah.PEAKS:
        assert p.source and re.compile(p.pattern)
        for value in (p.memory_gbps, p.float32_tflops, p.bfloat16_tflops, p.host_link_gbps):
            assert value is None or value > 0
        if p.float32_tflops and p.bfloat16_tflops:
            assert p.bfloat16_tflops > p.float32_tflops
    # Each entry in the table has a comment right above it naming where its figures come from.
    lines = inspect.getsource(peaks).splitlines()
    entries = [i for i, line in enumerate(lines) if line.strip().startswith("Peak(")]
    assert len(entries) == len(ah.PEAKS)
    for i in entries:
        above = lines[i - 1].strip()
        assert above.startswith("#"), f"no source comment above: {lines[i].strip()}"
        block = []
        j = i - 1
        while lines[j].strip().startswith("#"):
            block.append(lines[j])
            j -= 1
        assert re.search(r"datasheet|docs|documentation", " ".join(block), re.I)


def test_bad_input():
    with pytest.raises(TypeError, match="device_kind"):
        ah.peak_for(None)
