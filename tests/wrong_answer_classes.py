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
    "05.1": {
        "hard-coded": "hard-coded figure",
        "twin route": "np.asarray as the wait",
        "tailored": "tailored: a warm-up only when repeats is small",
        "default": "timeit's defaults: no warm-up, no wait",
        "elsewhere": "timed on a host copy of x",
        "reference": "ah.benchmark instead of a timer of one's own",
        "idle": "block_until_ready on the input, the output unused",
    },
    "05.2": {
        "hard-coded": "hard-coded figures of the example",
        "twin route": "XLA's cost analysis instead of counting",
        "tailored": "this machine's ridge, not the one given",
        "default": "the ridge ignored (elementwise always memory-bound)",
        "elsewhere": "n/a: the answer is two numbers worked out from an operation's name and "
        "size; no array is made, so no work can be done on one device or the host and placed",
        "reference": "the check's xla_answer called",
        "idle": "bytes counted, then unused: FLOPs per value",
    },
    "05.3": {
        "hard-coded": "hard-coded result of the example",
        "twin route": "jnp.sqrt, no iteration",
        "tailored": "unrolled 40 times, masked by steps (no loop in the program)",
        "default": "a default step count, steps ignored",
        "elsewhere": "the iteration in NumPy on the host, through a callback",
        "reference": "the check's newton_numpy called through a callback",
        "idle": "an idle fori_loop beside a fixed unrolled loop",
    },
    # --- end 05 ---
    # --- 06 ---
    "06.1": {
        "hard-coded": "hard-coded axis names",
        "twin route": "axis names sorted, not in the mesh's order",
        "tailored": "tailored: right for two-axis meshes only",
        "default": "nothing split (the default layout)",
        "elsewhere": "n/a: the answer is a PartitionSpec and the check places the data itself, "
        "so no answer can compute on one device or the host and place the result",
        "reference": "n/a: the check's helpers return block bounds and device ids, never a "
        "PartitionSpec, so nothing of the check's can be returned in place of the answer",
        "idle": "the mesh's names read, then a fixed spec returned",
    },
    "06.2": {
        "hard-coded": "hard-coded spec of the example",
        "twin route": "the output's spec copied onto the weight",
        "tailored": "the contracted split ignored (right while it is never split)",
        "default": "weight replicated",
        "elsewhere": "n/a: the answer is a PartitionSpec; the check places both operands and "
        "compiles the product itself, so no answer can compute it elsewhere and place it",
        "reference": "n/a: the check holds no spec of its own; it compares measured collectives "
        "and the weight's block shape with counts, so it has no answer an answer could call",
        "idle": "the lined-up spec worked out, then not returned",
    },
    "06.3": {
        "hard-coded": "hard-coded product",
        "twin route": "reshard both operands first (gathers)",
        "tailored": "the right call only for the shapes shown",
        "default": "summed into whole rows (the fix shown above, not the layout asked for)",
        "elsewhere": "NumPy product placed afterwards",
        "reference": "the check's project_inputs product returned",
        "idle": "the partial-sum product computed and dropped, gathers used",
    },
    "06.4": {
        "hard-coded": "hard-coded array of the example",
        "twin route": "the whole built with jnp on the devices, no callback",
        "tailored": "start and stop read directly (an unsplit axis has none)",
        "default": "device_put of the whole array",
        "elsewhere": "NumPy-built coordinates, a .copy() of each slice",
        "reference": "the check's coordinates_reference, its blocks copied out",
        "idle": "make_array_from_callback called, its result unused",
    },
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
