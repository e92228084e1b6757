"""What the tests of cuda.compile_ptx share (test_compile_ptx.py, test_ptx_*.py, test_translator_errors.py): a
compile cache of each test module's own, and the PTX, the CUDA C or the folded constant of a kernel or a
device function."""

import inspect
import re
import struct

import pytest

import numba_cuda_c as cuda
from numba_cuda_c import types
from numba_cuda_c.pyjit.names import c_symbol
from numba_cuda_c.pyjit.prelude import PRELUDE

SIG = "void(float32[:], int64)"


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory):
    """Compiled PTX goes to a cache of this module's own, not the user's."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NUMBA_CUDA_C_CACHE_DIR", str(tmp_path_factory.mktemp("ptx_cache")))
        mp.delenv("NUMBA_CUDA_DEFAULT_PTX_CC", raising=False)
        yield


def ptx_of(func, sig=SIG, **options):
    ptx, resty = cuda.compile_ptx(func, sig, **options)
    assert resty == types.void
    assert ".visible .entry %s(" % c_symbol(func.__name__) in ptx  # ncc_py_<name>: no name collides
    return ptx


def body_of(ptx, name):
    """The PTX of one entry or function (its Python name; compiled by compile_ptx), from its name to the end."""
    match = re.search(r"\.(entry|func)\s[^\n]*\b%s\(" % re.escape(c_symbol(name)), ptx)
    assert match, ptx
    return ptx[match.start() :]


def returned_constant(func, sig="()"):
    """The value a device function without inputs returns, once NVRTC has folded it."""
    ptx, resty = cuda.compile_ptx(func, sig, device=True)
    body = body_of(ptx, func.__name__)
    store = re.search(r"st\.param\.(\w+)\s+\[func_retval0(?:\+0)?\],\s*([^;]+);", body)
    assert store, body
    operand = store.group(2).strip()
    if operand.startswith("%"):  # a register: the constant was moved into it
        move = re.search(r"mov\.\w+\s+%s,\s*([^;]+);" % re.escape(operand), body)
        assert move, "not folded to a constant:\n" + body
        operand = move.group(1).strip()
    if operand.startswith("0d"):
        value = struct.unpack(">d", bytes.fromhex(operand[2:]))[0]
    elif operand.startswith("0f"):
        value = struct.unpack(">f", bytes.fromhex(operand[2:]))[0]
    else:
        value = int(operand, 0)
    return value, resty


def translated(func, sig=SIG):
    """The CUDA C written for func's kernel and its device functions, without the prelude."""
    source = cuda.jit(func).inspect_source(sig)
    assert source.startswith(PRELUDE)  # no header: these kernels use no float16
    return source[len(PRELUDE) :]


def line_of(func, needle):
    """The line number, in this file, of the first line of func's source containing needle."""
    lines, first = inspect.getsourcelines(func)
    for offset, line in enumerate(lines):
        if needle in line:
            return first + offset
    raise AssertionError("%r not in %s" % (needle, func.__name__))
