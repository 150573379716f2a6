"""The probe's guard against JAX silently computing on the CPU beside an NVIDIA GPU."""

import os
import stat

import jax
import pytest

import aurora_helpers as ah
from aurora_helpers.gpu_check import cpu_chosen


@pytest.fixture
def fake_nvidia_smi(tmp_path, monkeypatch):
    """Put an ``nvidia-smi`` on PATH that lists what the test writes into it."""

    def install(listing: str, status: int = 0) -> None:
        tool = tmp_path / "nvidia-smi"
        tool.write_text(
            f"#!/bin/sh\n[ \"$1\" = -L ] || exit 9\ncat <<'EOT'\n{listing}\nEOT\nexit {status}\n"
        )
        tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
        monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.delenv("JAX_PLATFORMS", raising=False)

    return install


H100 = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0b1c2d3e-0000-1111-2222-333344445555)"


def test_nvidia_gpus_reads_the_listing(fake_nvidia_smi):
    fake_nvidia_smi(f"{H100}\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-x)")
    assert ah.nvidia_gpus() == [H100, "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-x)"]


def test_nvidia_gpus_without_a_driver(fake_nvidia_smi):
    fake_nvidia_smi("NVIDIA-SMI has failed because it couldn't communicate with the driver", 9)
    assert ah.nvidia_gpus() == []


def test_probe_fails_loudly_on_a_gpu_machine_running_on_the_cpu(fake_nvidia_smi):
    assert jax.default_backend() == "cpu"
    fake_nvidia_smi(H100)
    with pytest.raises(ah.GpuUnusedError) as err:
        ah.probe()
    message = str(err.value)
    assert "nvidia-smi lists 1 GPU(s)" in message and "NVIDIA H100" in message
    assert f'pip install -U "jax[cuda13]=={jax.__version__}"' in message
    assert "restart the kernel" in message and "JAX_PLATFORMS=cpu" in message


def test_probe_passes_when_the_cpu_was_chosen(fake_nvidia_smi, monkeypatch):
    fake_nvidia_smi(H100)
    monkeypatch.setenv("JAX_PLATFORMS", "cpu")
    assert ah.probe().backend == "cpu"


def test_probe_passes_without_gpus(fake_nvidia_smi):
    fake_nvidia_smi("No devices found.")
    assert ah.probe().device_count == jax.device_count()


def test_check_gpu_backend_decides_by_backend_and_listing():
    ah.check_gpu_backend("gpu", "0.12.0", gpus=[H100])  # JAX uses the GPU: fine
    ah.check_gpu_backend("cpu", "0.12.0", gpus=[], platforms="")  # no GPU: fine
    with pytest.raises(ah.GpuUnusedError, match=r"jax\[cuda13\]==0\.12\.0"):
        ah.check_gpu_backend("cpu", "0.12.0", gpus=[H100], platforms="")
    with pytest.raises(ah.GpuUnusedError):
        ah.check_gpu_backend("cpu", "0.12.0", gpus=[H100], platforms="cuda,cpu")


@pytest.mark.parametrize(
    ("platforms", "chosen"), [("cpu", True), (" cpu ", True), ("cuda,cpu", False), ("", False)]
)
def test_cpu_chosen(platforms, chosen):
    assert cpu_chosen(platforms) is chosen


def test_the_fix_names_a_cuda12_release_that_exists(monkeypatch):
    from aurora_helpers import _tested
    from aurora_helpers.gpu_check import gpu_fix

    monkeypatch.setattr(_tested, "PLUGIN_RELEASES", {"cuda12": "0.12.0.1", "cuda13": "0.12.1"})
    trailing = gpu_fix("0.12.1")
    assert '"jax[cuda13]==0.12.1"' in trailing
    assert '"jax[cuda12]==0.12.0.1" "jaxlib==0.12.0.1"' in trailing
    assert "jax[cuda12]==0.12.1" not in trailing
    assert '"jax[cuda12]==0.11.2"' in gpu_fix("0.11.2")
