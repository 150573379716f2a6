"""Measuring honestly: timings, profiles, rooflines, peak figures, state sizes, throughput, plans.

- :mod:`.timing`: :func:`benchmark`, the dispatch timeline and the usual timing mistakes;
- :mod:`.profiles`: reading and drawing a profiler trace;
- :mod:`.memory_profile`: which functions hold device memory, from JAX's memory profile;
- :mod:`.memory_report`: a compiled step's bytes in the parts of XLA's out-of-memory report;
- :mod:`.roofline` and :mod:`.peaks`: measured points against published peaks;
- :mod:`.state_sizes`: bytes per device of a training state, and of a checkpoint folder;
- :mod:`.throughput`: transfers, bandwidth and matmul throughput of this machine;
- :mod:`.planner`: a transformer training step's memory, traffic and time per layout, and the
  search over layouts; :mod:`.planned_step`: the same step compiled, predicted beside measured;
  :mod:`.plan_panel`: the planner behind ipywidgets controls; :mod:`.plan_gallery`: its answers
  for published runs as plain HTML, the site's stand-in for the panel.

Imports the core and :mod:`aurora_helpers.compiled` (profiles match a trace to its schedule).
"""
