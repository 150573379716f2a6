"""``aurora bench``: this machine's transfers, bandwidth and matmul throughput, optionally beside
another library's (``--compare torch``).

The measuring is the helpers' (:mod:`aurora_helpers.perf.throughput`, which notebook 05 uses too); the
other libraries' suites are tooling, here, because no notebook imports them.
"""

from __future__ import annotations

import json
import sys

from aurora_helpers.perf.throughput.ops import ComparisonUnavailable, ThroughputSuite

#: Libraries ``aurora bench --compare`` knows, with the pip package that provides each.
COMPARE_LIBRARIES: dict[str, str] = {"torch": "torch"}


def load_suite(library: str, platform: str) -> ThroughputSuite:
    """The throughput suite of another library for ``platform``.

    Raises:
        ValueError: the library is not one the course knows.
        ModuleNotFoundError: it is not installed.
        ComparisonUnavailable: it cannot measure that platform.
    """
    if library not in COMPARE_LIBRARIES:
        raise ValueError(
            f"cannot compare with {library!r}; known libraries: {', '.join(COMPARE_LIBRARIES)}"
        )
    try:
        from .torch_suite import TorchSuite

        return TorchSuite(platform)
    except ImportError as err:
        raise ModuleNotFoundError(
            f"{library} is not installed in this Python ({err}). Install it with "
            f"`pip install {COMPARE_LIBRARIES[library]}` to compare."
        ) from err


def bench(
    *,
    devices: int | None = 1,
    quick: bool = False,
    budget_s: float | None = None,
    compare: str | None = None,
    detail: bool = False,
    as_json: bool = False,
) -> int:
    """Measure with JAX (and with ``compare``: a library name, or ``"auto"`` for every installed
    one) and print the results; the exit status (1: a comparison asked for by name cannot run)."""
    from aurora_helpers.devices import setup_devices

    setup_devices(devices)
    from aurora_helpers.perf.throughput.driver import measure_with
    from aurora_helpers.perf.throughput.jax_suite import JaxSuite
    from aurora_helpers.perf.throughput.results import MachineThroughput, compare_throughputs

    suite = JaxSuite()

    def measure(s: ThroughputSuite) -> MachineThroughput:
        return measure_with(s, quick=quick, budget_s=budget_s)

    status = 0
    others: list[ThroughputSuite] = []
    wanted = list(COMPARE_LIBRARIES) if compare == "auto" else ([compare] if compare else [])
    for library in wanted:
        try:
            others.append(load_suite(library, suite.platform))
        except (ModuleNotFoundError, ComparisonUnavailable) as err:
            explicit = compare != "auto"
            print(f"aurora bench: {'error' if explicit else 'note'}: {err}", file=sys.stderr)
            if explicit:
                status = 1
    if status:
        return status  # the comparison asked for cannot run: say so before spending time

    results = [measure(suite)] + [measure(other) for other in others]
    if as_json:
        print(json.dumps({"results": [r.to_dict() for r in results]}, indent=2, default=str))
        return status
    for result in results:
        print(result)
        if detail:
            print(result.details())
        print()
    for other in results[1:]:
        print(compare_throughputs(results[0], other))
        print()
    return status
