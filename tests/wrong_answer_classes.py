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
    "07.1": {
        "hard-coded": "hard-coded means of x",
        "twin route": "the whole matrix gathered onto every device, then its mean",
        "tailored": "the shown matrix's row count, taken from outside",
        "default": "one device's mean, left to out_specs to replicate",
        "elsewhere": "psum over an all_gather of the whole matrix",
        "reference": "the check's expected values looked up by shape",
        "idle": "the global mean psummed inside shard_map",
    },
    "07.2": {
        "hard-coded": "hard-coded result for x",
        "twin route": "gathers everything, then slices",
        "tailored": "tailored: the shown matrix's answer hard-coded, shard_map elsewhere",
        "default": "jnp.roll on the split array: the compiler moves the blocks",
        "elsewhere": "jnp.roll on a replicated copy, no ppermute",
        "reference": "the check's NumPy answer, computed on the host",
        "idle": "a ppermute thrown away beside jnp.roll",
    },
    "07.3": {
        "hard-coded": "hard-coded product",
        "twin route": "gathers both operands instead of one all-reduce",
        "tailored": "tailored: the shown sizes hard-coded, shard_map elsewhere",
        "default": "global matmul, no shard_map",
        "elsewhere": "both operands copied whole to every device, multiplied there",
        "reference": "the check's expected products looked up by shape",
        "idle": "a global matmul, a zero times a used shard_map added",
    },
    # --- end 07 ---
    # --- 08 ---
    "08.1": {
        "hard-coded": "hard-coded ones (the spread the data is drawn with)",
        "twin route": "NumPy spread of rows gathered with process_allgather",
        "tailored": "tailored: the shown row count written in",
        "default": "this process's rows only",
        "elsewhere": "each host's moments in NumPy, only they made global",
        "reference": "the lesson's feature_means repeated (a mean, not a spread)",
        "idle": "rows shared through files behind an unwatched barrier",
    },
    "08.2": {
        "hard-coded": "hard-coded zeros",
        "twin route": "one broadcast_one_to_all per rank instead of the gather",
        "tailored": "tailored: every shard assumed as large as this one",
        "default": "this process's mean only",
        "elsewhere": "every process's rows padded and gathered, then NumPy",
        "reference": "n/a: the check's reference runs in the notebook's process, a"
        "nd the answer runs in the cluster's processes, which receive only the answer's source and their own inputs, so no reference is within its reach",
        "idle": "broadcasts per rank, a gather called beside them and unused",
    },
    "08.3": {
        "hard-coded": "hard-coded identity order",
        "twin route": "rank 0's seed broadcast, its permutation drawn again on every process",
        "tailored": "tailored: the draw of a seed all processes share",
        "default": "each process keeps its own draw",
        "elsewhere": "everyone's draws gathered, rank 0's row kept (no broadcast)",
        "reference": "n/a: the check's reference runs in the notebook's process, a"
        "nd the answer runs in the cluster's processes, which receive only the answer's source and their own inputs, so no reference is within its reach",
        "idle": "assert_equal on a constant",
    },
    # --- end 08 ---
    # --- 09 ---
    # --- end 09 ---
    # --- 10 ---
    "10.1": {
        "hard-coded": "hard-coded rules for the example's axes",
        "twin route": "n/a: the answer is a dictionary of mesh-axis names, with no computation "
        "in it; any road that builds the right dictionary is the skill itself",
        "tailored": "tailored to the case it was shown",
        "default": "nothing split: the default layout does the work",
        "elsewhere": "n/a: no array is computed, placed or moved by this answer, so there is "
        "nowhere else for the work to be done",
        "reference": "section 2's layouts looked up by which kinds are present",
        "idle": "rules under names the model does not use (they split nothing)",
    },
    "10.2": {
        "hard-coded": "the notebook's own mesh, not the devices given",
        "twin route": "n/a: the target is a tree of ShapeDtypeStructs with shardings; any road "
        "to the same shardings over the same devices is the skill, and the roads that place "
        "data instead are the elsewhere and reference answers",
        "tailored": "tailored: every device when they divide, else one",
        "default": "the abstract state as it is: the default placement does the work",
        "elsewhere": "the state in memory moved there, not restored",
        "reference": "the checkpoint restored in here, arrays returned as the target",
        "idle": "the target built, then its shardings dropped",
    },
    "10.3": {
        "hard-coded": "hard-coded bytes of the example",
        "twin route": "n/a: the answer is arithmetic on the sizes; the same arithmetic by "
        "another road (NumPy, a loop) is the skill, and the roads that build arrays are the "
        "elsewhere answer the route check rejects",
        "tailored": "the notebook's sizes and mesh, not the arguments",
        "default": "the layout ignored: every parameter whole, as by default",
        "elsewhere": "placed and measured, not predicted",
        "reference": "section 3's measurements looked up by layout",
        "idle": "n/a: the task names no API to call (it is arithmetic), so no call can sit idle "
        "beside the answer; calls that build or place arrays are refused by the route check",
    },
    # --- end 10 ---
    # --- A1 ---
    # --- end A1 ---
}
