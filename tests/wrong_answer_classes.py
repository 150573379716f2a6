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
    "00.1": {
        "hard-coded": "hard-coded dictionary",
        "twin route": "platform counted, not device_kind",
        "tailored": "tailored to the visible made-up machine",
        "default": "counts this machine's devices, not the list given",
        "elsewhere": "n/a: the answer counts attributes of device objects in Python; no array is "
        "computed, so there is no work that could run on another device or the host and be moved",
        "reference": "n/a: the check cell computes each expected count inline inside its call and "
        "keeps none in a name; the made-up machine it keeps can only be counted, which is the skill",
        "idle": "device_kind read, then ignored",
    },
    "00.2": {
        "hard-coded": "hard-coded squares for n = 16",
        "twin route": "a Python list moved into JAX",
        "tailored": "tailored: jnp.arange for the size shown, NumPy for the hidden sizes",
        "default": "n/a: leaving dtype= out of jnp.arange gives int32 because 64-bit mode is off in "
        "this course, so the default is the dtype the task asks for: a right answer, not a shortcut",
        "elsewhere": "computed in NumPy, moved into JAX",
        "reference": "n/a: the check cell keeps no reference to call; its expected arrays are NumPy "
        "expressions written inline, and computing them in NumPy is 'computed in NumPy, moved into JAX'",
        "idle": "jnp.arange called, its result unused",
    },
    "00.3": {
        "hard-coded": "hard-coded first device",
        "twin route": "assumes one device per array",
        "tailored": "tailored: a 2-D array means every device",
        "default": "the default device's id",
        "elsewhere": "the array moved to the default device, then asked",
        "reference": "the check cell's own cases looked up",
        "idle": "x.devices() asked, its answer unused",
    },
    # --- end 00 ---
    # --- 01 ---
    "01.1": {
        "hard-coded": "hard-coded sums (tailored to the shown input)",
        "twin route": "jnp.bincount of the values masked by hand",
        "tailored": "tailored: indices shifted by two for the -1 and -2 of the shown values",
        "default": "the default scatter: -1 wraps to the last bin",
        "elsewhere": "the sums made on the host and added to an empty scatter",
        "reference": "the check's own case builder called",
        "idle": "an idle .at update beside a comparison sum",
    },
    "01.2": {
        "hard-coded": "hard-coded lookup",
        "twin route": "compares the indices with jnp.where",
        "tailored": "tailored: only ids 10 and 15 are past the end",
        "default": "the default read (clamped)",
        "elsewhere": "NumPy detour",
        "reference": "the check's own reference called",
        "idle": "an idle fill-mode read beside a comparison",
    },
    "01.3": {
        "hard-coded": "hard-coded table",
        "twin route": "a one-hot matmul, no scatter",
        "tailored": "tailored: the last two entries taken for the padding",
        "default": "not compiled with jax.jit",
        "elsewhere": "the update made on the host (pure_callback)",
        "reference": "the check's own reference called",
        "idle": "an idle scatter beside a one-hot matmul",
    },
    "01.4": {
        "hard-coded": "hard-coded mean",
        "twin route": "NumPy float64 detour",
        "tailored": "tailored: a float32 mean shifted by the first sample (the shown values are close)",
        "default": "float32 input not converted: the mean is float32",
        "elsewhere": "a host callback inside the 64-bit block",
        "reference": "the check's own case builder called",
        "idle": "an idle float64 mean, the host's returned",
    },
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
    "03.1": {
        "hard-coded": "hard-coded rows of this machine",
        "twin route": "copied from the helpers' probe",
        "tailored": "platform and memories tailored to this machine",
        "default": "the default memory only",
        "elsewhere": "n/a: the answer reads attributes of device objects in Python; no array is "
        "computed, so there is no work that could run on another device or the host and be moved",
        "reference": "rows rebuilt from ah.probe() for the ids given",
        "idle": "addressable_memories() called, its result unused",
    },
    "03.2": {
        "hard-coded": "hard-coded ids",
        "twin route": "jax.local_devices(process_index=...), not the list given",
        "tailored": "tailored to the visible pretend cluster",
        "default": "this process's local devices, not the ones given",
        "elsewhere": "n/a: the answer reads attributes of device objects in Python; no array is "
        "computed, so there is no work that could run on another device or the host and be moved",
        "reference": "the check's pretend_cluster called for its table",
        "idle": "process_index read, then ignored",
    },
    "03.3": {
        "hard-coded": "hard-coded count",
        "twin route": "the count set with jax.config, not the environment",
        "tailored": "tailored: the child reads the count the check slips into XLA_FLAGS",
        "default": "counted by the child's default backend without JAX_PLATFORMS",
        "elsewhere": "this kernel's devices",
        "reference": "the lesson's own measurement returned",
        "idle": "the child's answer thrown away",
    },
    # --- end 03 ---
    # --- 04 ---
    "04.1": {
        "hard-coded": "hard-coded: the one-device-to-split figure",
        "twin route": "all or nothing by comparing shardings",
        "tailored": "four bytes per element assumed",
        "default": "memory kinds ignored",
        "elsewhere": "n/a: the answer is arithmetic on shard metadata (slices, devices, memory "
        "kinds) in Python; no array is computed, so no work could run elsewhere and be moved",
        "reference": "the check's cases looked up by identity",
        "idle": "shards read, then ignored",
    },
    "04.2": {
        "hard-coded": "hard-coded: the state of the notebook",
        "twin route": "a detour through NumPy",
        "tailored": "tailored: only the two keys of the example",
        "default": "the default does the work: still in device memory",
        "elsewhere": "the layout is lost: every leaf on one device",
        "reference": "the check's own reference",
        "idle": "the API called and its result thrown away",
    },
    "04.3": {
        "hard-coded": "hard-coded: the sum of the notebook's inputs",
        "twin route": "a twin route: jnp.add on device 0 under jit, moved",
        "tailored": "tailored: both moved to the shown target, the middle device",
        "default": "no explicit move: plain a + b",
        "elsewhere": "added on b's device, the result moved",
        "reference": "the check's own reference",
        "idle": "a move to device made and dropped; the sum made on a's device and moved",
    },
    "04.4": {
        "hard-coded": "hard-coded: rows of the notebook's vector",
        "twin route": "the whole stack broadcast under jit from a replicated copy",
        "tailored": "tailored: the whole stack built flat on v's device, split, then reshaped",
        "default": "stacked on the default device",
        "elsewhere": "the whole stack built on v's device, then resharded",
        "reference": "the check's own reference",
        "idle": "per-device copies made and dropped; the whole stack built eagerly and resharded",
    },
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
    "A1.1": {
        "hard-coded": "hard-coded result of the example",
        "twin route": "plain jax.numpy, no kernel",
        "tailored": "tailored: a kernel written for 2-D blocks only",
        "default": "n/a: pallas_call's defaults (one program, the whole array as its block) are "
        "what the task asks for, and no default computes the squared difference for the learner",
        "elsewhere": "difference taken outside, a one-input kernel squares it",
        "reference": "the check's own reference called back from inside the kernel",
        "idle": "an idle kernel beside plain jax.numpy",
    },
    "A1.2": {
        "hard-coded": "hard-coded result of the example",
        "twin route": "the lesson's row kernel applied to the transpose",
        "tailored": "tailored: an index_map in elements, right when a block is one column",
        "default": "no BlockSpecs: every program normalises the whole array",
        "elsewhere": "NumPy detour",
        "reference": "the check's own reference called back from inside a column-tiled kernel",
        "idle": "an idle column kernel beside plain jax.numpy",
    },
    "A1.3": {
        "hard-coded": "hard-coded result of the example",
        "twin route": "plain jax.numpy, no FFI call",
        "tailored": "a fixed power",
        "default": "no vmap_method",
        "elsewhere": "the sums made on the host by a callback, the FFI result multiplied by zero",
        "reference": "the FFI result handed to the check's own reference in a callback",
        "idle": "an FFI call made and thrown away beside plain jax.numpy",
    },
    # --- end A1 ---
}
