"""The tables behind :mod:`aurora_helpers.checks.answer_screen`: which imports, built-ins, attributes and
module members an answer cell may use. Kept apart so that the rules read as data, and so that
changing one is a one-line diff that the screen's tests then cover."""

from __future__ import annotations

import builtins

#: Packages any answer may import: JAX, NumPy and the standard library's modules that compute
#: (no files, processes, threads or interpreter state). The course notebook's own imports are
#: allowed too (their members are screened by :data:`MODULE_RULES`).
BASE_IMPORTS = frozenset(
    {
        "jax", "jaxlib", "numpy", "abc", "array", "base64", "bisect", "calendar", "cmath",
        "collections", "colorsys", "contextlib", "copy", "dataclasses", "datetime", "decimal",
        "difflib", "enum", "fractions", "functools", "graphlib", "hashlib", "heapq", "itertools",
        "json", "keyword", "math", "numbers", "operator", "pprint", "random", "re", "secrets",
        "shlex", "statistics", "string", "struct", "textwrap", "time", "timeit", "typing",
        "unicodedata", "uuid", "warnings", "zlib",
    }
)  # fmt: skip
#: Packages no answer may import, even where the notebook imports them: they run code from text,
#: patch or reach the interpreter and the checking code, or start threads that outlive a check.
NEVER_IMPORTS = frozenset(
    {
        "IPython", "_thread", "asyncio", "atexit", "aurora_course", "aurora_helpers", "builtins",
        "code", "codeop", "concurrent", "ctypes", "gc", "importlib", "ipykernel", "marshal",
        "multiprocessing", "pdb", "pickle", "runpy", "signal", "socket", "threading",
        "traceback", "types", "unittest", "weakref",
    }
)  # fmt: skip
#: Imports that reach the interpreter's internals: using one (where the notebook does not import
#: it itself) is tampering.
TAMPERING_IMPORTS = frozenset({"builtins", "ctypes", "gc", "importlib", "inspect", "sys"})
#: The course's packages: importing their modules from an answer reaches the checking code.
HELPER_PACKAGES = frozenset({"aurora_helpers", "aurora_course"})
#: Built-in functions that read or change namespaces, attributes or files by name.
BLOCKED_BUILTINS = frozenset(
    {
        "__import__", "breakpoint", "compile", "delattr", "eval", "exec", "getattr", "globals",
        "input", "locals", "memoryview", "open", "setattr", "vars", "exit", "quit", "get_ipython",
    }
)  # fmt: skip
#: Built-ins that change namespaces or attributes or run code from text: using one is tampering.
TAMPERING_BUILTINS = frozenset(
    {"__import__", "compile", "delattr", "eval", "exec", "globals", "locals", "setattr", "vars"}
)
#: Methods that change their object in place (lists, dicts, sets, NumPy arrays). Called on a
#: value one of the course's cells made (not an imported module), they could change what a check
#: compares.
MUTATING_METHODS = frozenset(
    {
        "append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault",
        "sort", "reverse", "add", "discard", "fill", "put", "resize", "setflags", "itemset",
        "partition", "byteswap",
    }
)  # fmt: skip
#: Public names of the helpers that do the checking; a solution has no use for them.
CHECKING_NAMES = frozenset(
    {
        "check", "checks", "exercises", "routes", "contract", "answer_screen", "answer_cells",
        "_answer_rules", "expected_errors", "CheckResult",
        "ExerciseFailed", "NotSolvedYet", "Case", "differences", "assert_matches", "expect_error",
        "student",
    }
)  # fmt: skip
#: Names the course's cells rely on whatever the notebook binds: the helpers, IPython's, and
#: every built-in (a learner's ``sum = ...`` would change what a check cell computes).
ALWAYS_PROTECTED = frozenset(
    {"ah", "aurora_helpers", "get_ipython", "display", "In", "Out", *dir(builtins)}
)
#: Attributes, on any object, that read or write files or run commands (NumPy's ``tofile``,
#: ``Path.write_text``). Not ``load`` or ``open`` alone: Pallas kernels use ``pl.load``.
FILE_ATTRIBUTES = frozenset(
    {
        "tofile", "fromfile", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt",
        "fromregex", "memmap", "DataSource", "system", "popen", "read_text", "write_text",
        "read_bytes", "write_bytes", "touch", "unlink", "mkdir", "rmdir", "iterdir", "rglob",
        "symlink_to", "hardlink_to",
    }
)  # fmt: skip
#: Methods that read an object's attributes by a name in a string (``get_field("0.__globals__")``),
#: past the screen's look at attribute names: tampering.
NAMED_ACCESS_ATTRIBUTES = frozenset({"get_field", "vformat", "format_field"})
#: Attributes that reach a running frame's variables (the checker's, a caller's): tampering.
FRAME_ATTRIBUTES = frozenset(
    {
        "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "gi_frame", "cr_frame",
        "ag_frame", "tb_frame", "tb_next",
    }
)  # fmt: skip
#: The names under which the helpers are imported in notebooks.
HELPER_ALIASES = frozenset({"ah", "aurora_helpers"})

_FILES = "reads or writes files"
_PROCESSES = "reaches files, processes or the environment"


class ModuleRule:
    """Which members of one module an answer may use: those in ``allowed`` (``None``: all but
    ``blocked``); ``tampering`` members reach the interpreter or the checking code."""

    def __init__(
        self,
        why: str,
        *,
        allowed: frozenset[str] | None = None,
        blocked: frozenset[str] = frozenset(),
        tampering: frozenset[str] = frozenset(),
        all_tampering: bool = False,
    ) -> None:
        self.why, self.allowed, self.blocked, self.tampering = why, allowed, blocked, tampering
        self.all_tampering = all_tampering

    def problem(self, member: str) -> tuple[str, bool] | None:
        """Why ``member`` may not be used (and whether that is tampering), or ``None``."""
        if member in self.tampering or self.all_tampering:
            return "reaches the interpreter or the checking code", True
        if member in self.blocked or (self.allowed is not None and member not in self.allowed):
            return self.why, False
        return None


_NUMPY_FILES = frozenset(
    {
        "save", "load", "savez", "savez_compressed", "savetxt", "loadtxt", "genfromtxt",
        "fromfile", "fromregex", "memmap", "DataSource", "open_memmap",
    }
)  # fmt: skip
_NOTHING = frozenset[str]()
#: Modules whose every member patches or reaches the interpreter or the checking code.
_TAMPERING_MODULES = frozenset(
    {
        "IPython", "aurora_course", "aurora_helpers", "builtins", "code", "codeop", "ctypes", "gc",
        "importlib", "ipykernel", "marshal", "runpy", "types", "unittest",
    }
)  # fmt: skip
_OS_ALLOWED = frozenset(
    {
        "environ", "getenv", "path", "sep", "pathsep", "linesep", "name", "cpu_count",
        "process_cpu_count", "getpid", "fspath", "curdir", "pardir", "extsep", "devnull",
    }
)  # fmt: skip
_OS_PATH_ALLOWED = frozenset(
    {"join", "basename", "dirname", "split", "splitext", "normpath", "sep", "extsep"}
)
_SYS_ALLOWED = frozenset(
    {
        "executable", "version", "version_info", "platform", "maxsize", "float_info", "int_info",
        "byteorder", "implementation", "hexversion",
    }
)  # fmt: skip
_SYS_TAMPERING = frozenset(
    {
        "modules", "settrace", "setprofile", "meta_path", "path_hooks", "path_importer_cache",
        "addaudithook", "excepthook", "displayhook", "audit", "breakpointhook",
        "setrecursionlimit",
    }
)  # fmt: skip
_INSPECT_TAMPERING = frozenset(
    {
        "currentframe", "stack", "trace", "getouterframes", "getinnerframes", "getframeinfo",
        "getmembers", "getmembers_static", "getattr_static", "getclosurevars",
    }
)  # fmt: skip
_OPERATOR_BLOCKED = frozenset(
    {
        "setitem", "delitem", "attrgetter", "methodcaller", "iadd", "iand", "iconcat",
        "ifloordiv", "ilshift", "imod", "imul", "imatmul", "ior", "ipow", "irshift", "isub",
        "itruediv", "ixor", "__setitem__", "__delitem__",
    }
)  # fmt: skip
#: Modules whose every member reads or writes files.
_FILE_MODULES = frozenset(
    {
        "tempfile", "shutil", "io", "pathlib", "gzip", "bz2", "lzma", "zipfile", "tarfile", "glob",
        "fileinput", "shelve", "dbm", "sqlite3", "mmap", "logging", "linecache",
    }
)  # fmt: skip
_INTERPRETER = "reaches the interpreter, threads or the checking code"
ENVIRONMENT = (
    "changes the check's environment (its transfer guards, configuration, mesh, defaults): "
    "the check sets those, and an answer works inside them"
)
#: JAX's members that change the environment a check runs an answer in, refused under any
#: ``jax.*`` path (``jax.transfer_guard``, ``jax.sharding.use_mesh``, ``jax.experimental.enable_x64``,
#: and the modules that re-export JAX's configuration, such as ``jax.experimental.sparse.bcoo.config``):
#: with one, an answer could switch off the check's transfer guard, turn on 64-bit mode or change
#: the mesh in force, and pass by a route the check exists to refuse.
ENVIRONMENT_PARTS = frozenset(
    {
        "config", "api", "dispatch", "sharding_impls", "transfer_guard",
        "transfer_guard_host_to_device", "transfer_guard_device_to_host",
        "transfer_guard_device_to_device", "set_mesh", "use_mesh", "use_abstract_mesh",
        "default_device", "default_matmul_precision", "enable_x64", "disable_x64",
        "numpy_dtype_promotion", "numpy_rank_promotion", "debug_nans", "debug_infs",
        "disable_jit", "enable_checks", "check_tracer_leaks", "checking_leaks", "log_compiles",
        "explain_cache_misses", "no_collectives", "no_tracing", "no_execution", "thread_guard",
        "debug_key_reuse", "default_prng_impl", "threefry_partitionable", "legacy_prng_key",
        "enable_custom_prng", "make_user_context", "softmax_custom_jvp",
        "allow_f16_reductions", "array_garbage_collection_guard",
    }
)  # fmt: skip
_SUBPROCESS_MEMBERS = frozenset(
    {
        "run", "Popen", "PIPE", "STDOUT", "DEVNULL", "CompletedProcess", "CalledProcessError",
        "TimeoutExpired", "SubprocessError", "check_output", "check_call", "call",
    }
)  # fmt: skip
#: Another program computes where no check can watch it (the check's own reference, NumPy, a
#: compiler's counts), so only an exercise about starting processes may start one.
_OTHER_PROGRAM = (
    "starts another program, where the check cannot see what it computes: compute in this "
    "kernel (only an exercise about starting processes starts one)"
)
#: The exercises whose lesson is one of those members (or starts processes): label -> the dotted
#: names its answer may use (01.4 computes a mean in 64-bit mode switched on inside the answer, and
#: off again; 03.3 starts a fresh Python with a device count).
TAUGHT_ENVIRONMENT: dict[str, frozenset[str]] = {
    "01.4": frozenset({"jax.enable_x64"}),
    "03.3": frozenset(f"subprocess.{name}" for name in _SUBPROCESS_MEMBERS),
}
#: Members of modules (by their full dotted name) that an answer may not use, wherever the module
#: came from: the answer's own import or the notebook's (``os`` is imported by every notebook).
MODULE_RULES: dict[str, ModuleRule] = {
    "string": ModuleRule("reads attributes by name", blocked=frozenset({"Formatter"})),
    # Whether a value is being traced: with it an answer computes one way when a learner calls it
    # and another when the check traces it (issue 38's second class).
    "jax.core": ModuleRule(
        "tells your function whether JAX is tracing it; compute the same way either way",
        blocked=frozenset({"Tracer", "is_concrete", "concrete_or_error", "trace_ctx"}),
    ),
    "numpy": ModuleRule(_FILES, blocked=_NUMPY_FILES),
    "numpy.lib.format": ModuleRule(_FILES, blocked=_NUMPY_FILES),
    "jax.numpy": ModuleRule(_FILES, blocked=_NUMPY_FILES),
    "os": ModuleRule(_PROCESSES, allowed=_OS_ALLOWED),
    "subprocess": ModuleRule(_OTHER_PROGRAM, allowed=_NOTHING),
    "os.path": ModuleRule(_FILES, allowed=_OS_PATH_ALLOWED),
    "sys": ModuleRule(
        "is not something an answer needs from `sys`",
        allowed=_SYS_ALLOWED,
        tampering=_SYS_TAMPERING,
    ),
    "inspect": ModuleRule(
        "is not something an answer needs from `inspect`",
        allowed=frozenset({"signature", "Parameter", "Signature", "isfunction", "getdoc"}),
        tampering=_INSPECT_TAMPERING,
    ),
    "operator": ModuleRule(
        "changes a value in place or reads attributes by name", blocked=_OPERATOR_BLOCKED
    ),
    **{name: ModuleRule(_FILES, allowed=_NOTHING) for name in _FILE_MODULES},
    **{
        name: ModuleRule(_INTERPRETER, allowed=_NOTHING, all_tampering=name in _TAMPERING_MODULES)
        for name in sorted(NEVER_IMPORTS - HELPER_ALIASES)
    },
}
