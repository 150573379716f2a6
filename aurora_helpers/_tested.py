"""The release set the course was last tested with (written by ``make pin``; do not edit by hand).

``ci/tested.txt`` pins every package ``make test`` installs; this module carries the part that the
installed package itself needs, where that file is not present (Colab installs the course from
git): the JAX stack's versions, and which release each accelerator plugin family has.
``tests/test_tested_pins.py`` keeps the two in step.
"""

#: ``{distribution: version}`` of JAX and the training stack in ``ci/tested.txt``.
TESTED = {
    "jax": "0.12.1",
    "jaxlib": "0.12.1",
    "flax": "0.12.12",
    "optax": "0.2.8",
    "orbax-checkpoint": "0.12.8",
}
#: For each GPU plugin family, the newest JAX release no newer than ``TESTED["jax"]`` for which
#: jax, jaxlib, ``jax-<family>-plugin`` and ``jax-<family>-pjrt`` were all on the package index
#: when ``make pin`` ran: plugin wheels can trail a JAX release (0.12.1 has no CUDA 12 plugin).
PLUGIN_RELEASES = {
    "cuda12": "0.12.0.1",
    "cuda13": "0.12.1",
}
