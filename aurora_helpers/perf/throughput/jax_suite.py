"""The throughput suite of JAX: transfers, on-device copy and matmul on one device."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from ..._device_queries import memory_kinds
from ...single_device import single_device_sharding
from .ops import Op, host_data, matmul_error, pointer_of, same_values


class JaxSuite:
    """The operations of every metric with JAX, on one device."""

    def __init__(self, device: jax.Device | None = None) -> None:
        self._jax = jax
        self.device = device if device is not None else jax.devices()[0]
        self.platform = self.device.platform
        self.device_kind = self.device.device_kind
        self.library = f"jax {jax.__version__}"
        self.batched = self.platform != "cpu"
        self.notes: tuple[str, ...] = ()
        kinds = set(memory_kinds(self.device))
        self._on_device = single_device_sharding(self.device)
        self._pinned = (
            single_device_sharding(self.device, memory_kind="pinned_host")
            if "pinned_host" in kinds
            else None
        )
        self._copy = jax.jit(lambda x: x + 1)
        self._matmul = {
            "float32": jax.jit(
                lambda a, b: jax.numpy.matmul(a, b, precision=jax.lax.Precision.HIGHEST)
            ),
            "bfloat16": jax.jit(lambda a, b: jax.numpy.matmul(a, b)),
        }

    def _sync(self, out: Any) -> Any:
        return self._jax.block_until_ready(out)

    def transfer_ops(self, direction: str, nbytes: int) -> list[Op]:
        jax = self._jax
        host = host_data(nbytes)
        work = float(host.nbytes)

        def not_shared(
            source_pointer: int | None, expected: np.ndarray
        ) -> Callable[[Any], str | None]:
            def check(out: Any) -> str | None:
                if source_pointer is not None and pointer_of(out) == source_pointer:
                    return "zero-copy view of the source (no transfer happened)"
                return same_values(out, expected)

            return check

        ops: list[Op] = []
        if direction == "h2d":
            ops.append(
                Op(
                    "device_put(NumPy array)",
                    lambda: jax.device_put(host, self._on_device),
                    work,
                    self._sync,
                    not_shared(pointer_of(host), host),
                )
            )
            if self._pinned is not None:
                pinned = jax.device_put(host, self._pinned)
                ops.append(
                    Op(
                        "device_put(array in pinned_host memory)",
                        lambda: jax.device_put(pinned, self._on_device),
                        work,
                        self._sync,
                        not_shared(pointer_of(pinned), host),
                    )
                )
        elif direction == "d2h":
            source = jax.device_put(host, self._on_device)
            if self._pinned is not None:
                ops.append(
                    Op(
                        "device_put(x, pinned_host memory)",
                        lambda: jax.device_put(source, self._pinned),
                        work,
                        self._sync,
                        not_shared(pointer_of(source), host),
                    )
                )
            fresh: list[Any] = []

            def setup() -> tuple[Any]:
                # A new device array each time: NumPy conversion is cached on the array.
                x = jax.device_put(host, self._on_device).block_until_ready()
                fresh[:] = [x]
                return (x,)

            def check_numpy(out: Any) -> str | None:
                if fresh and pointer_of(out) == pointer_of(fresh[0]):
                    return "zero-copy view of the device buffer (no transfer: this device shares host memory)"
                return same_values(out, host)

            ops.append(
                Op(
                    "np.asarray(x)",
                    np.asarray,
                    work,
                    lambda out: out,
                    check_numpy,
                    setup=setup,
                    batchable=False,
                )
            )
        else:
            raise ValueError(f"direction must be 'h2d' or 'd2h', got {direction!r}")
        return ops

    def copy_op(self, nbytes: int) -> Op:
        host = host_data(nbytes)
        x = self._jax.device_put(host, self._on_device)
        expected = host + np.float32(1)
        return Op(
            "jit(x + 1)",
            lambda: self._copy(x),
            2.0 * host.nbytes,
            self._sync,
            lambda out: same_values(out, expected),
        )

    def matmul_op(self, n: int, dtype: str) -> Op | None:
        jnp = self._jax.numpy
        rng = np.random.default_rng(n)
        a_host = rng.standard_normal((n, n), dtype=np.float32)
        b_host = rng.standard_normal((n, n), dtype=np.float32)
        a = self._jax.device_put(jnp.asarray(a_host, dtype=dtype), self._on_device)
        b = self._jax.device_put(jnp.asarray(b_host, dtype=dtype), self._on_device)
        # The reference uses the inputs as the device holds them (rounded to bfloat16 if so).
        a_used, b_used = np.asarray(a.astype(jnp.float32)), np.asarray(b.astype(jnp.float32))
        fn = self._matmul[dtype]
        method = "jnp.matmul, precision=HIGHEST" if dtype == "float32" else "jnp.matmul"
        return Op(
            method,
            lambda: fn(a, b),
            2.0 * n**3,
            self._sync,
            lambda out: matmul_error(
                np.asarray(out[:8].astype(jnp.float32)), a_used, b_used, dtype
            ),
        )
