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
    "02.1": {
        "hard-coded": "hard-coded three vmaps",
        "twin route": "lax.map over the examples",
        "tailored": "jnp.vectorize with cosine's signature",
        "default": "f unchanged: broadcasting left to do the batching",
        "elsewhere": "each example computed through NumPy on the host",
        "reference": "the check's reference called back from the mapped function",
        "idle": "vmaps built and thrown away beside a loop",
    },
    "02.2": {
        "hard-coded": "hard-coded padding of 3",
        "twin route": "NumPy, not compiled",
        "tailored": "assumes a non-empty x",
        "default": "zeros in the default dtype",
        "elsewhere": "padded on the host in a callback",
        "reference": "the check's reference called back",
        "idle": "a jitted version built and not used",
    },
    "02.3": {
        "hard-coded": "hard-coded output",
        "twin route": "stride 1, then every other output",
        "tailored": "SAME padding cropped to the 16x16 example's output",
        "default": "default dimension numbers",
        "elsewhere": "correlated on the host in a callback",
        "reference": "the check's reference called back",
        "idle": "an idle strided convolution beside windows sliced by hand",
    },
    "02.4": {
        "hard-coded": "hard-coded results",
        "twin route": "inputs deleted by hand, memory not reused",
        "tailored": "learning rate fixed at the example's 0.1",
        "default": "no donation",
        "elsewhere": "computed on the host in a callback, with donation",
        "reference": "the check's reference called with a guessed seed",
        "idle": "a donating step built and not used",
    },
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
    # --- end 09 ---
    # --- 10 ---
    # --- end 10 ---
    # --- A1 ---
    # --- end A1 ---
}
