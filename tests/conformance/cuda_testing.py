"""`numba.cuda.testing` for the conformance runs: the same names, written here, asking the target module.

The runner copies this file beside the rewritten test files, with `_conformance_target.py` naming the target
(`numba_cuda_c` or `numba.cuda`); both runs use it, so they differ only in the target. numba-cuda's own
`numba.cuda.testing` asks numba-cuda's driver (device capability, contexts), which in our run would test numba-cuda
instead of us. What is a fact of the machine (the toolkit's files, nvjitlink, nvdisasm, the simulator switch) is still
asked of numba-cuda's helpers: those answer the same for both runs.
"""

import os
import platform
import unittest
from importlib import import_module
from io import StringIO
from pathlib import Path

import numpy as np
import pytest

from _conformance_target import MODULE
from numba.cuda import HAS_NUMBA, config
from numba.cuda.tests.support import TestCase

cuda = import_module(MODULE)

numba_cuda_dir = Path(import_module("numba.cuda").__file__).parent
test_data_dir = numba_cuda_dir / "tests" / "data"


@pytest.mark.usefixtures("initialize_from_pytest_config")
class CUDATestCase(TestCase):
    """For tests that use a CUDA device: turns off the low-occupancy and implicit-copy warnings while a test runs,
    as numba-cuda's does; the FileCheck assertions compare a kernel's PTX or LLVM IR with its docstring."""

    FLOAT16_RTOL = np.finfo(np.float16).eps
    _dump_failed_filechecks = False

    def setUp(self):
        self._low_occupancy_warnings = config.CUDA_LOW_OCCUPANCY_WARNINGS
        self._warn_on_implicit_copy = config.CUDA_WARN_ON_IMPLICIT_COPY
        config.CUDA_LOW_OCCUPANCY_WARNINGS = 0
        config.CUDA_WARN_ON_IMPLICIT_COPY = 0

    def tearDown(self):
        config.CUDA_LOW_OCCUPANCY_WARNINGS = self._low_occupancy_warnings
        config.CUDA_WARN_ON_IMPLICIT_COPY = self._warn_on_implicit_copy

    def _getIRContents(self, ir_result, signature=None):
        if isinstance(ir_result, str):
            assert signature is None, "Cannot use signature because the kernel was only compiled for one signature"
            return [ir_result]
        if signature is None:
            return list(ir_result.values())
        return [ir_result[signature]]

    def _assertFileCheckProducer(self, ir_result, ir_producer, signature, check_prefixes, options):
        contents = self._getIRContents(ir_result, signature)
        assert contents, "No output found for the given signature."
        assert ir_producer.__doc__ is not None, "Kernel docstring is required."
        for content in contents:
            assert content, "IR content is empty for the given signature."
            self.assertFileCheckMatches(content, ir_producer.__doc__, check_prefixes, **options)

    def assertFileCheckAsm(self, ir_producer, signature=None, check_prefixes=("ASM",), **options):
        self._assertFileCheckProducer(ir_producer.inspect_asm(), ir_producer, signature, check_prefixes, options)

    def assertFileCheckLLVM(self, ir_producer, signature=None, check_prefixes=("LLVM",), **options):
        self._assertFileCheckProducer(ir_producer.inspect_llvm(), ir_producer, signature, check_prefixes, options)

    def assertFileCheckMatches(self, ir_content, check_patterns, check_prefixes=("CHECK",), **options):
        from filecheck.finput import FInput
        from filecheck.matcher import Matcher
        from filecheck.options import Options
        from filecheck.parser import Parser, pattern_for_opts

        opts = Options(match_filename="-", check_prefixes=list(check_prefixes), **options)
        parser = Parser(opts, StringIO(check_patterns), *pattern_for_opts(opts))
        matcher = Matcher(opts, FInput(fname="-", content=ir_content), parser)
        matcher.stderr = StringIO()
        if matcher.run() != 0:
            self.fail("FileCheck failed:\n%s" % matcher.stderr.getvalue())


def skip_on_cudasim(reason):
    """Skip this test if running on the CUDA simulator"""
    assert isinstance(reason, str)
    return unittest.skipIf(config.ENABLE_CUDASIM, reason)


skip_on_standalone_numba_cuda = unittest.skipUnless(HAS_NUMBA, "requires base numba install")


def skip_unless_cudasim(reason):
    """Skip this test if running on CUDA hardware"""
    assert isinstance(reason, str)
    return unittest.skipUnless(config.ENABLE_CUDASIM, reason)


def skip_unless_conda_cudatoolkit(reason):
    """Skip test if the CUDA toolkit was not installed by Conda"""
    from numba.cuda.cuda_paths import get_conda_ctk_libdir

    assert isinstance(reason, str)
    return unittest.skipUnless(get_conda_ctk_libdir() is not None, reason)


def skip_if_external_memmgr(reason):
    """Skip test if an EMM Plugin is in use"""
    assert isinstance(reason, str)
    return unittest.skipIf(config.CUDA_MEMORY_MANAGER != "default", reason)


def skip_under_cuda_memcheck(reason):
    assert isinstance(reason, str)
    return unittest.skipIf(os.environ.get("CUDA_MEMCHECK") is not None, reason)


def _nvdisasm_path():
    from cuda import pathfinder

    return pathfinder.find_nvidia_binary_utility("nvdisasm")


def skip_without_nvdisasm(reason):
    assert isinstance(reason, str)
    return unittest.skipIf(_nvdisasm_path() is None, reason)


def skip_with_nvdisasm(reason):
    assert isinstance(reason, str)
    return unittest.skipIf(_nvdisasm_path() is not None, reason)


def skip_on_arm(reason):
    assert isinstance(reason, str)
    cpu = platform.processor()
    return unittest.skipIf(cpu.startswith("arm") or cpu.startswith("aarch"), reason)


def skip_on_wsl2(reason):
    """Skip test when running under WSL2 (the kernel release names it)."""
    assert isinstance(reason, str)
    release = platform.release().lower()
    return unittest.skipIf("microsoft-standard-wsl2" in release or "wsl2" in release, reason)


def _skip_unless_include(fn, header, reason):
    from numba.cuda.cudadrv import libs

    try:
        include_dir = libs.get_cuda_include_dir()
    except FileNotFoundError:
        return unittest.skip(reason)(fn)
    return unittest.skipUnless(os.path.isfile(os.path.join(include_dir, header)), reason)(fn)


def skip_if_cuda_includes_missing(fn):
    return _skip_unless_include(fn, "cuda.h", "CUDA include dir not available on this system")


def skip_if_curand_kernel_missing(fn):
    return _skip_unless_include(fn, "curand_kernel.h", "curand_kernel.h not available on this system")


def _compute_capability():
    """The current device's compute capability, from the target module; None with no usable GPU."""
    try:
        return tuple(cuda.get_current_device().compute_capability)
    except Exception:
        if cuda.is_available():
            raise
        return None


def cc_X_or_above(major, minor):
    if config.ENABLE_CUDASIM:
        return True
    cc = _compute_capability()
    return cc is not None and cc >= (major, minor)


def skip_unless_cc_50(fn):
    return unittest.skipUnless(cc_X_or_above(5, 0), "requires cc >= 5.0")(fn)


def skip_unless_cc_53(fn):
    return unittest.skipUnless(cc_X_or_above(5, 3), "requires cc >= 5.3")(fn)


def skip_unless_cc_60(fn):
    return unittest.skipUnless(cc_X_or_above(6, 0), "requires cc >= 6.0")(fn)


def skip_unless_cc_75(fn):
    return unittest.skipUnless(cc_X_or_above(7, 5), "requires cc >= 7.5")(fn)


def skip_unless_cc_90(fn):
    return unittest.skipUnless(cc_X_or_above(9, 0), "requires cc >= 9.0")(fn)


def xfail_unless_cudasim(fn):
    return fn if config.ENABLE_CUDASIM else unittest.expectedFailure(fn)


def cudadevrt_missing():
    if config.ENABLE_CUDASIM:
        return False
    from numba.cuda.cudadrv import libs

    try:
        libs.check_static_lib(libs.get_cudalib("cudadevrt", static=True))
    except FileNotFoundError:
        return True
    return False


def skip_if_cudadevrt_missing(fn):
    return unittest.skipIf(cudadevrt_missing(), "cudadevrt missing")(fn)


def skip_if_nvjitlink_missing(reason):
    from numba.cuda.cudadrv.driver import _have_nvjitlink

    assert isinstance(reason, str)
    return unittest.skipIf(not _have_nvjitlink(), reason)


def _is_nvjitlink_13_1_and_sm_120():
    if config.ENABLE_CUDASIM:
        return False
    try:
        from cuda.bindings import nvjitlink

        version = nvjitlink.version()
    except (ImportError, AttributeError, RuntimeError):
        return False
    return tuple(version[:2]) == (13, 1) and _compute_capability() == (12, 0)


def skip_on_nvjitlink_13_1_sm_120(reason):
    """Skip where nvjitlink 13.1 fails to link on sm_120 (numba-cuda's own skip)."""
    assert isinstance(reason, str)
    return unittest.skipIf(_is_nvjitlink_13_1_and_sm_120(), reason)


class ForeignArray:
    """An array from another library, seen through the CUDA Array Interface only: it hides a device array so
    that it does not look like one."""

    def __init__(self, arr):
        self._arr = arr
        self.__cuda_array_interface__ = arr.__cuda_array_interface__
