"""The FFI plumbing: compile a tiny handler with the system compiler, register it, call it."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import aurora_helpers as ah
from aurora_helpers.compiled import ffi_build
from aurora_helpers.compiled.ffi_build import FfiBuildError

HAVE_CXX = ah.find_compiler() is not None

# out = x * factor + offset, elementwise; `offset` is a second attribute of another type.
AFFINE_CC = r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

static ffi::Error AffineImpl(float factor, int64_t offset, ffi::Buffer<ffi::F32> x,
                             ffi::ResultBuffer<ffi::F32> y) {
  for (int64_t i = 0; i < x.element_count(); ++i) {
    y->typed_data()[i] = x.typed_data()[i] * factor + static_cast<float>(offset);
  }
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(Affine, AffineImpl,
                              ffi::Ffi::Bind()
                                  .Attr<float>("factor")
                                  .Attr<int64_t>("offset")
                                  .Arg<ffi::Buffer<ffi::F32>>()
                                  .Ret<ffi::Buffer<ffi::F32>>());
"""

# The fixture's own copy: builds are cached per process by source, so no other test may build
# this exact text first (the first build here must really compile, whatever the test order).
FIXTURE_CC = AFFINE_CC + "\n// built by the `affine` fixture\n"

needs_cxx = pytest.mark.skipif(not HAVE_CXX, reason="no C++ compiler on this machine")


@pytest.fixture(scope="module")
def affine():
    if not HAVE_CXX:
        pytest.skip("no C++ compiler on this machine")
    return ah.build_ffi_targets(FIXTURE_CC, {"Affine": "test_affine"})


def _call(build, x, factor, offset):
    return jax.ffi.ffi_call(
        build["Affine"], jax.ShapeDtypeStruct(x.shape, x.dtype), vmap_method="broadcast_all"
    )(x, factor=np.float32(factor), offset=np.int64(offset))


@needs_cxx
@pytest.mark.slow
def test_compile_register_and_call(affine):
    assert affine.targets == {"Affine": affine["Affine"]}
    assert affine["Affine"].startswith("test_affine_")
    assert affine.platform == "cpu" and not affine.cached and affine.compile_seconds > 0
    x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
    np.testing.assert_allclose(_call(affine, x, 2.5, 3), np.asarray(x) * 2.5 + 3)
    jitted = jax.jit(lambda v: _call(affine, v, -1.0, 7))
    np.testing.assert_allclose(jitted(x), 7 - np.asarray(x))
    np.testing.assert_allclose(jax.vmap(lambda v: _call(affine, v, 2.0, 0))(x), 2 * np.asarray(x))
    assert ah.ffi_calls(lambda v: _call(affine, v, 2.0, 1), x)[0].attributes == {
        "factor": np.float32(2.0),
        "offset": 1,
    }


@needs_cxx
@pytest.mark.slow
def test_building_again_reuses_the_registration(affine, monkeypatch):
    again = ah.build_ffi_targets(FIXTURE_CC, {"Affine": "test_affine"})
    assert again.cached and again.targets == affine.targets and again.compile_seconds == 0

    made = []
    real = tempfile.TemporaryDirectory

    def spy(*args, **kwargs):
        tmp = real(*args, **kwargs)
        made.append(Path(tmp.name))
        return tmp

    monkeypatch.setattr(ffi_build.tempfile, "TemporaryDirectory", spy)
    edited = ah.build_ffi_targets(FIXTURE_CC + "\n// edited\n", {"Affine": "test_affine"})
    assert not edited.cached and edited["Affine"] != affine["Affine"]
    assert made and not any(p.exists() for p in made), "the temporary folder was left behind"
    x = jnp.ones((2,), jnp.float32)
    np.testing.assert_allclose(_call(edited, x, 3.0, 1), [4.0, 4.0])


@needs_cxx
@pytest.mark.slow
def test_compile_errors_and_missing_symbols_are_reported(affine):
    with pytest.raises(FfiBuildError, match="failed"):
        ah.build_ffi_targets("this is not C++;", ["Nothing"])
    # A library that builds but lacks the handler (a small one: no XLA header to compile).
    with pytest.raises(FfiBuildError, match="XLA_FFI_DEFINE_HANDLER_SYMBOL"):
        ah.build_ffi_targets('extern "C" int not_a_handler() { return 0; }\n', ["NotThere"])
    with pytest.raises(KeyError, match="Affine"):
        affine["Other"]


def test_missing_compiler_gives_a_clear_message(monkeypatch):
    monkeypatch.setenv("CXX", "/nonexistent/bin/c++")
    assert ah.find_compiler() is None
    with pytest.raises(ah.CompilerNotFound) as err:
        ah.build_ffi_targets(AFFINE_CC + "\n// no compiler\n", ["Affine"])
    message = str(err.value)
    assert "/nonexistent/bin/c++" in message and "apt-get install" in message
    with pytest.raises(ah.CompilerNotFound, match="install a C"):
        ah.build_ffi_targets("// x\n", ["X"], cxx="no-such-compiler-anywhere")


def test_no_compiler_on_the_path(monkeypatch, tmp_path):
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert ah.find_compiler() is None
    with pytest.raises(ah.CompilerNotFound, match="c\\+\\+, g\\+\\+, clang\\+\\+"):
        ah.build_ffi_targets("// y\n", ["Y"])


def test_cxx_variable_is_honoured(monkeypatch):
    real = shutil.which("g++") or shutil.which("c++")
    if real is None:
        pytest.skip("no C++ compiler on this machine")
    monkeypatch.setenv("CXX", os.path.basename(real))
    assert ah.find_compiler() == real
    assert ah.find_compiler(cxx="definitely-not-a-compiler") is None


def test_no_handlers_is_an_error():
    with pytest.raises(ValueError, match="at least one handler"):
        ah.build_ffi_targets("// z\n", [])
