"""Keep Gloo's sockets on 127.0.0.1 when the course's tests launch the programs here.

JAX binds its Gloo CPU collectives to the address the host name resolves to, which on many
machines faces a network. `make test-launchers` sets ``AURORA_LOOPBACK=1`` so that the programs
call :func:`gloo_on_loopback` before JAX starts its backend; on a real cluster nothing imports
this module. It uses JAX internals present from 0.9 to 0.12; if they move, JAX's default stays.
``aurora_helpers.cluster._worker`` loads this file for the course's local clusters too.
"""

from __future__ import annotations

from typing import Any


def gloo_on_loopback() -> None:
    """Register a CPU backend whose Gloo collectives listen on 127.0.0.1."""
    try:
        from jax._src import distributed, xla_bridge
        from jax._src.lib import _jax

        make_collectives = _jax.make_gloo_tcp_collectives
        make_client = xla_bridge.make_cpu_client
        register = xla_bridge.register_backend_factory
    except (ImportError, AttributeError):
        return

    def cpu_backend() -> Any:
        collectives = make_collectives(
            distributed_client=distributed.global_state.client, hostname="127.0.0.1"
        )
        return make_client(collectives=collectives)

    register("cpu", cpu_backend, priority=0, fail_quietly=False)
