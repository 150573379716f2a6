"""How fast this machine moves and multiplies: transfers, on-device bandwidth, matmul throughput.

One job per module, depending one way (``driver`` -> suites -> ``ops``; ``driver`` -> ``results``):

- :mod:`.results`: the result model (:class:`Measurement`, :class:`MachineThroughput`, tables,
  picture, figures to quote) and :class:`ThroughputComparison` of two libraries;
- :mod:`.ops`: what a suite offers the driver (:class:`~.ops.Op`, the suite protocol) and the
  output checks every suite shares;
- :mod:`.jax_suite`: the operations in JAX (PyTorch's, for ``aurora bench --compare torch``,
  are in the course's tools: ``aurora_course.torch_suite``);
- :mod:`.caches`: the CPU's cache sizes, which size the sweeps and label their results;
- :mod:`.driver`: checks, times and sweeps a suite; :func:`measure_machine` for JAX.

Used by notebook 05 (``ah.measure_machine``), :mod:`..roofline` and ``aurora bench``.
"""

from __future__ import annotations

from .driver import measure_machine
from .results import MachineThroughput, Measurement, ThroughputComparison, compare_throughputs

__all__ = [
    "MachineThroughput",
    "Measurement",
    "ThroughputComparison",
    "compare_throughputs",
    "measure_machine",
]
