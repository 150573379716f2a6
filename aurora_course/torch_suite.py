"""The throughput suite of PyTorch, for ``aurora bench --compare torch``: the same operations as
:class:`~aurora_helpers.perf.throughput.jax_suite.JaxSuite` on the kind of device JAX uses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from aurora_helpers.perf.throughput.ops import (
    ComparisonUnavailable,
    Op,
    host_data,
    matmul_error,
    same_values,
)


class TorchSuite:
    """The same operations with PyTorch, on the kind of device JAX uses (``cpu`` or ``gpu``)."""

    def __init__(self, platform: str) -> None:
        import torch

        self._torch = torch
        self.library = f"torch {torch.__version__}"
        self.platform = platform
        self.notes: tuple[str, ...] = ()
        if platform == "gpu":
            if not torch.cuda.is_available():
                raise ComparisonUnavailable(
                    "PyTorch is installed without CUDA (or sees no GPU), so it cannot measure the "
                    "GPU JAX uses. Install a CUDA build of PyTorch."
                )
            self.device = torch.device("cuda")
            self.device_kind = torch.cuda.get_device_name(0)
            self.batched = True
        elif platform == "cpu":
            self.device = torch.device("cpu")
            self.device_kind = "cpu"
            self.batched = False
            self.notes = (
                f"PyTorch uses {torch.get_num_threads()} CPU threads (torch.get_num_threads()); "
                "on a machine busy with other work, multi-threaded CPU figures vary a lot",
            )
        else:
            raise ComparisonUnavailable(f"PyTorch cannot run on JAX's {platform!r} devices")

    def _sync(self, out: Any) -> Any:
        if self.device.type == "cuda":
            self._torch.cuda.synchronize()
        return out

    def _check(self, expected: np.ndarray, source: Any = None) -> Callable[[Any], str | None]:
        def check(out: Any) -> str | None:
            if source is not None and out.data_ptr() == source.data_ptr():
                return "shares memory with the source (no transfer happened)"
            return same_values(out.cpu().numpy(), expected)

        return check

    def transfer_ops(self, direction: str, nbytes: int) -> list[Op]:
        torch = self._torch
        host = host_data(nbytes)
        work = float(host.nbytes)
        cpu_tensor = torch.from_numpy(host)
        if self.device.type == "cpu":
            # Host and "device" are the same memory: the transfer is a copy into another buffer, as
            # JAX's CPU device_put does. Into a buffer allocated once: a fresh large allocation
            # costs page faults that would swamp the copy.
            target = torch.empty_like(cpu_tensor)
            return [
                Op(
                    "copy_ into a preallocated tensor",
                    lambda: target.copy_(cpu_tensor),
                    work,
                    self._sync,
                    self._check(host, cpu_tensor),
                )
            ]
        ops: list[Op] = []
        if direction == "h2d":
            pinned = cpu_tensor.pin_memory()
            ops.append(
                Op(
                    "pinned tensor .to(cuda, non_blocking=True)",
                    lambda: pinned.to(self.device, non_blocking=True),
                    work,
                    self._sync,
                    self._check(host),
                )
            )
            ops.append(
                Op(
                    "pageable tensor .to(cuda)",
                    lambda: cpu_tensor.to(self.device),
                    work,
                    self._sync,
                    self._check(host),
                )
            )
        elif direction == "d2h":
            source = cpu_tensor.to(self.device)
            target = torch.empty_like(cpu_tensor).pin_memory()
            ops.append(
                Op(
                    "copy_ into pinned tensor (non_blocking)",
                    lambda: target.copy_(source, non_blocking=True),
                    work,
                    self._sync,
                    self._check(host),
                )
            )
            ops.append(Op(".cpu()", source.cpu, work, self._sync, self._check(host)))
        else:
            raise ValueError(f"direction must be 'h2d' or 'd2h', got {direction!r}")
        return ops

    def copy_op(self, nbytes: int) -> Op:
        host = host_data(nbytes)
        x = self._torch.from_numpy(host).to(self.device)
        y = self._torch.empty_like(x)  # written in place: no allocation inside the timed call
        return Op(
            "torch.add(x, 1, out=y)",
            lambda: self._torch.add(x, 1, out=y),
            2.0 * host.nbytes,
            self._sync,
            self._check(host + np.float32(1)),
        )

    def matmul_op(self, n: int, dtype: str) -> Op | None:
        torch = self._torch
        rng = np.random.default_rng(n)
        a_host = rng.standard_normal((n, n), dtype=np.float32)
        b_host = rng.standard_normal((n, n), dtype=np.float32)
        torch_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[dtype]
        a = torch.from_numpy(a_host).to(self.device, torch_dtype)
        b = torch.from_numpy(b_host).to(self.device, torch_dtype)
        a_used, b_used = a.float().cpu().numpy(), b.float().cpu().numpy()
        if dtype == "float32":
            # Full float32, as JAX's precision=HIGHEST: no TF32 shortcut. (These are PyTorch's
            # defaults; set them anyway in case the environment changed them.)
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.set_float32_matmul_precision("highest")
        return Op(
            "torch.matmul" + (" (TF32 off)" if dtype == "float32" else ""),
            lambda: torch.matmul(a, b),
            2.0 * n**3,
            self._sync,
            lambda out: matmul_error(out[:8].float().cpu().numpy(), a_used, b_used, dtype),
        )
