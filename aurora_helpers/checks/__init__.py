"""What exercises' check cells call: the check itself, the routes an answer must take, the
learner's answer read from the kernel and screened, and errors a cell expects.

- :mod:`.exercises`: :func:`check`, :class:`Case`, the verdicts and the check log;
- :mod:`.routes`: route checks (``ah.uses``, ``ah.computes_per_device``, ...) over one trace;
- :mod:`.budgets`: budgets over all an answer does (the largest array it made, anywhere);
- :mod:`.off_limits`: the check's own references, found when an answer reaches them;
- :mod:`.traced_numpy`: an answer that tries NumPy first and takes JAX only when traced;
- :mod:`._watch`: the profile hook those watches share;
- :mod:`.answer_cells`: the learner's answer, found in the kernel's history;
- :mod:`.answer_screen` and :mod:`._answer_rules`: what an answer may not do (read the check's
  reference, reach the checker's frames, change its environment);
- :mod:`.expected_errors`: :func:`expect_error`, for cells that show an error on purpose.

Imports the core and :mod:`aurora_helpers.compiled` (routes read compiled programs).
"""
