"""Compile a C++ XLA FFI kernel, load it, and register its handlers with ``jax.ffi``.

A notebook that teaches ``jax.ffi`` should show the kernel and the ``jax.ffi.ffi_call``, not the
compiler flags. :func:`build_ffi_targets` does the plumbing: it writes the source into a temporary
folder, compiles it with the system C++ compiler against ``jax.ffi.include_dir()``, loads the
shared library with :mod:`ctypes`, wraps each exported handler symbol with
``jax.ffi.pycapsule`` and registers it with ``jax.ffi.register_ffi_target``. The temporary
folder is removed as soon as the library is loaded (a loaded library stays mapped).

Running the same notebook cell twice (Run All without a restart) must not fail: XLA keeps one
handler per target name for the life of the process. Registered names therefore carry a short
hash of the source, and a build with the same source, flags and platform is reused from a cache
instead of being compiled and registered again. An edited kernel gets new names.

Where no compiler can be found, :class:`CompilerNotFound` says what is missing and how to
install it; :func:`find_compiler` answers the question without raising.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import jax

#: Flags for a position-independent shared library in the C++ dialect the XLA FFI headers need.
DEFAULT_FLAGS: tuple[str, ...] = ("-std=c++17", "-O2", "-fPIC", "-shared")

_INSTALL_HINT = (
    "install a C++ compiler: `sudo apt-get install -y g++` (Debian, Ubuntu, Colab), "
    "`conda install -c conda-forge cxx-compiler`, or Xcode's command line tools on macOS "
    "(`xcode-select --install`); or point the CXX environment variable at one"
)


class FfiBuildError(RuntimeError):
    """The kernel could not be built or registered; the message says what to do."""


class CompilerNotFound(FfiBuildError):
    """No C++ compiler is available; the message names what was looked for and how to install one."""


@dataclass(frozen=True)
class FfiBuild:
    """A compiled, loaded and registered FFI library."""

    targets: Mapping[str, str]
    """Handler symbol (as in ``XLA_FFI_DEFINE_HANDLER_SYMBOL``) -> registered target name."""
    platform: str
    compiler: str
    compile_seconds: float
    """Wall time of the compile (0 when the build came from the cache)."""
    cached: bool = False
    library: ctypes.CDLL | None = field(default=None, repr=False, compare=False)

    def __getitem__(self, symbol: str) -> str:
        """The registered target name of handler ``symbol``, for ``jax.ffi.ffi_call``."""
        try:
            return self.targets[symbol]
        except KeyError:
            raise KeyError(
                f"no handler {symbol!r} in this build; it has {sorted(self.targets)}"
            ) from None


_CACHE: dict[str, FfiBuild] = {}


def find_compiler(cxx: str | None = None) -> str | None:
    """The path of the C++ compiler to use, or ``None`` when there is none.

    ``cxx`` wins, then the ``CXX`` environment variable, then ``c++``, ``g++`` and ``clang++`` on
    the ``PATH``. A named compiler that does not exist gives ``None`` (no fallback: a user who
    named one wants that one).
    """
    named = cxx if cxx is not None else os.environ.get("CXX")
    if named:
        return shutil.which(named)
    for candidate in ("c++", "g++", "clang++"):
        found = shutil.which(candidate)
        if found:
            return found
    return None


def _require_compiler(cxx: str | None) -> str:
    compiler = find_compiler(cxx)
    if compiler is None:
        named = cxx if cxx is not None else os.environ.get("CXX")
        looked_for = (
            f"{named!r} (from {'cxx=' if cxx else 'CXX'})" if named else "c++, g++, clang++"
        )
        raise CompilerNotFound(f"no C++ compiler found (looked for {looked_for}); {_INSTALL_HINT}")
    return compiler


def compile_shared_library(
    source: str,
    out_dir: Path,
    *,
    name: str = "kernel",
    cxx: str | None = None,
    flags: Sequence[str] = DEFAULT_FLAGS,
    timeout: float = 300,
) -> Path:
    """Compile C++ ``source`` into ``out_dir/lib<name>.so`` against the XLA FFI headers.

    Raises:
        CompilerNotFound: no compiler (see :func:`find_compiler`).
        FfiBuildError: the compiler failed; the message holds its error output.
    """
    compiler = _require_compiler(cxx)
    src = out_dir / f"{name}.cc"
    src.write_text(source)
    lib = out_dir / f"lib{name}.so"
    suffix = ".dylib" if sys.platform == "darwin" else ".so"
    lib = lib.with_suffix(suffix)
    command = [compiler, *flags, f"-I{jax.ffi.include_dir()}", str(src), "-o", str(lib)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except OSError as err:  # e.g. the compiler exists but cannot be executed
        raise CompilerNotFound(f"cannot run {compiler}: {err}; {_INSTALL_HINT}") from err
    if done.returncode != 0:
        errors = (done.stderr or done.stdout).strip()
        if len(errors) > 4000:
            errors = errors[:4000] + "\n..."
        raise FfiBuildError(f"{Path(compiler).name} failed (exit {done.returncode}):\n{errors}")
    return lib


def build_ffi_targets(
    source: str,
    handlers: Mapping[str, str] | Sequence[str],
    *,
    platform: str = "cpu",
    cxx: str | None = None,
    flags: Sequence[str] = DEFAULT_FLAGS,
) -> FfiBuild:
    """Compile ``source``, load it and register each handler symbol as an FFI target.

    Args:
        source: C++ that defines handlers with ``XLA_FFI_DEFINE_HANDLER_SYMBOL``.
        handlers: handler symbols to register; a mapping gives each a base target name
            (``{"RmsNorm": "rms_norm"}``), a sequence uses the symbol as the base name. The
            registered name is ``<base>_<hash of the source>``; read it back from the result.
        platform: ``"cpu"``, or ``"CUDA"``/``"ROCM"`` for GPU handlers.
        cxx: the compiler (default: ``$CXX``, then ``c++``, ``g++``, ``clang++``).

    Returns:
        An :class:`FfiBuild`; ``build["RmsNorm"]`` is the name to pass to ``jax.ffi.ffi_call``.

    Raises:
        CompilerNotFound: no C++ compiler; the message says how to install one.
        FfiBuildError: compiling failed, or a symbol is missing from the library.
    """
    names = dict(handlers) if isinstance(handlers, Mapping) else {h: h for h in handlers}
    if not names:
        raise ValueError("name at least one handler symbol to register")
    key_text = "\0".join([source, platform, *flags, *sorted(f"{k}={v}" for k, v in names.items())])
    digest = hashlib.sha256(key_text.encode()).hexdigest()[:10]
    if digest in _CACHE:
        cached = _CACHE[digest]
        return FfiBuild(cached.targets, cached.platform, cached.compiler, 0.0, True, cached.library)
    compiler = _require_compiler(cxx)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="aurora-ffi-") as tmp:
        lib_path = compile_shared_library(
            source, Path(tmp), name=f"aurora_{digest}", cxx=compiler, flags=flags
        )
        library = ctypes.cdll.LoadLibrary(str(lib_path))
    seconds = time.perf_counter() - start
    targets: dict[str, str] = {}
    for symbol, base in names.items():
        try:
            handler = getattr(library, symbol)
        except AttributeError:
            raise FfiBuildError(
                f"the library exports no handler {symbol!r}: define it with "
                f"XLA_FFI_DEFINE_HANDLER_SYMBOL({symbol}, ...) outside any namespace"
            ) from None
        target = f"{base}_{digest}"
        jax.ffi.register_ffi_target(target, jax.ffi.pycapsule(handler), platform=platform)
        targets[symbol] = target
    build = FfiBuild(targets, platform, compiler, seconds, False, library)
    _CACHE[digest] = build
    return build
