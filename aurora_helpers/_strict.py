"""Strict mode: ``$AURORA_STRICT`` turns deprecation warnings into errors.

Read by the notebook set-up (:mod:`aurora_helpers.notebook`) and passed on to the processes of a
local cluster (:mod:`aurora_helpers.cluster`), so both live below them, here.
"""

from __future__ import annotations

import os

#: When set to 1 (the tests set it), deprecation warnings raised by the notebook's own code or by
#: the helpers become errors, so the course cannot silently teach a deprecated API.
STRICT_ENV_VAR = "AURORA_STRICT"


def strict_mode() -> bool:
    """Whether ``$AURORA_STRICT`` asks for strict mode (set, and not ``0`` or ``false``)."""
    return os.environ.get(STRICT_ENV_VAR, "").strip() not in ("", "0", "false", "False")
