"""Which wrong answer stands for each kind of lazy answer, exercise by exercise.

The course promises that only doing the skill passes an exercise's check, and names seven kinds of
answer that try to pass without it (``CLASSES``). For every exercise, ``COVERAGE["NN.k"]`` maps each
kind to the description (the key) of a wrong answer in ``wrong_answers.py`` that is of that kind,
which the notebook runs then require the check to reject, or to ``"n/a: "`` followed by why no
answer of that kind exists for this exercise (say why in a sentence a reviewer can check).
``tests/test_wrong_answers.py`` holds every exercise to all seven.
"""

from __future__ import annotations

CLASSES: dict[str, str] = {
    "hard-coded": "a value written in, not computed (for the inputs shown, or any)",
    "twin route": "the same result by another road: NumPy, another jnp function, a loop",
    "tailored": "an answer shaped to the inputs, sizes, meshes or ranks the check tries",
    "default": "the default (of JAX, the compiler, the layout) doing the work the skill should do",
    "elsewhere": "the work done on one device or the host, then placed, resharded or copied",
    "reference": "the check's own reference (or a function or measurement its cell defines) "
    "called, wrapped or cached",
    "idle": "the skill's API present but doing no work, or its result unused",
}

NOT_APPLICABLE = "n/a: "

COVERAGE: dict[str, dict[str, str]] = {
    # --- 00 --- (only notebook 00's engineer edits between these markers)
    # --- end 00 ---
    # --- 01 ---
    # --- end 01 ---
    # --- 02 ---
    # --- end 02 ---
    # --- 03 ---
    # --- end 03 ---
    # --- 04 ---
    # --- end 04 ---
    # --- 05 ---
    # --- end 05 ---
    # --- 06 ---
    # --- end 06 ---
    # --- 07 ---
    # --- end 07 ---
    # --- 08 ---
    # --- end 08 ---
    # --- 09 ---
    "09.1": {
        "hard-coded": "hard-coded choice",
        "twin route": "compiled and measured, not sized",
        "tailored": "the notebook's sizes, not the arguments",
        "default": "the peak taken as what the arrays hold between steps",
        "elsewhere": "measured on one device, divided by the device count",
        "reference": "the check's own measurement, cached",
        "idle": "peaks worked out, then the budget compared with the shards only",
    },
    "09.2": {
        "hard-coded": "hard-coded bytes (the explicit FSDP x TP step of section 4)",
        "twin route": "compiled and read, not predicted",
        "tailored": "the mesh's sizes taken from the notebook, not the arguments",
        "default": "section 4's DP x TP prediction with the sizes as parameters",
        "elsewhere": "the step compiled on one device, its gradient sum priced over all devices",
        "reference": "the check's own measurement, cached",
        "idle": "the weight gathers priced, then left out of the sum",
    },
    "09.3": {
        "hard-coded": "hard-coded parameters instead of a gather",
        "twin route": "a gather by summing zero-padded blocks (all-reduce)",
        "tailored": "gathered along one mesh axis only",
        "default": "no scatter: the whole gradient left as autodiff returns it",
        "elsewhere": "all-reduce then slice instead of a reduce-scatter",
        "reference": "n/a: the check cell defines only the harness (fsdp_with trains with the "
        "learner's two functions, by_kind formats bytes) and the expected values, none of which "
        "gathers or scatters anything a learner could call in their place",
        "idle": "psum_scatter called, its result thrown away",
    },
    # --- end 09 ---
    # --- 10 ---
    # --- end 10 ---
    # --- A1 ---
    # --- end A1 ---
}
