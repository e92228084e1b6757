"""@cuda.jit(cache=True) without a GPU: the translation is kept on disk, keyed as numba keys its
cache (the kernel's file, name, bytecode, types, options), so that a new process neither imports the
translator nor translates; without cache=True nothing is written. The GPU half (the image loaded
from disk and launched in a new process) is in test_jit.py."""

import os

import pytest

from subproc import run_python

KERNEL_MODULE = """
import numba_cuda_c as cuda

@cuda.jit(cache={cache})
def axpy(out, x, a):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + {constant}
"""

TRANSLATE = """
import sys
sys.path.insert(0, {directory!r})
import cached_kernel
from numba_cuda_c import types
name, source = cached_kernel.axpy._source((types.float32[:], types.float32[:], types.float32))
assert name in source
print("translator imported:", "numba_cuda_c.pyjit.translate" in sys.modules)
"""


def write_module(directory, cache=True, constant="1.0"):
    path = os.path.join(directory, "cached_kernel.py")
    with open(path, "w") as f:
        f.write(KERNEL_MODULE.format(cache=cache, constant=constant))
    return path


def translate_in_new_process(directory, cache_dir):
    out = run_python(TRANSLATE.format(directory=str(directory)), NUMBA_CUDA_C_CACHE_DIR=str(cache_dir))
    return "translator imported: True" in out


def test_a_new_process_reads_the_translation_from_disk(tmp_path):
    cache_dir = tmp_path / "cache"
    write_module(tmp_path)
    assert translate_in_new_process(tmp_path, cache_dir)  # first: translated, written
    assert len(list(cache_dir.glob("*.jit"))) == 1
    assert not translate_in_new_process(tmp_path, cache_dir)  # then: read, translator never imported


def test_changing_the_kernels_file_translates_again(tmp_path):
    cache_dir = tmp_path / "cache"
    path = write_module(tmp_path)
    translate_in_new_process(tmp_path, cache_dir)
    write_module(tmp_path, constant="2.0")
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 10**9))
    assert translate_in_new_process(tmp_path, cache_dir)
    assert len(list(cache_dir.glob("*.jit"))) == 2


def test_a_corrupt_entry_is_translated_again(tmp_path):
    cache_dir = tmp_path / "cache"
    write_module(tmp_path)
    translate_in_new_process(tmp_path, cache_dir)
    (entry,) = cache_dir.glob("*.jit")
    entry.write_bytes(entry.read_bytes()[:-10] + b"0123456789")
    assert translate_in_new_process(tmp_path, cache_dir)


@pytest.mark.parametrize("environment", [{}, {"NUMBA_CUDA_C_CACHE": "0"}])
def test_nothing_is_written_without_cache_true_or_with_the_cache_off(tmp_path, environment):
    cache_dir = tmp_path / "cache"
    write_module(tmp_path, cache=bool(environment))  # {}: no cache=True; else cache=True, cache off
    code = TRANSLATE.format(directory=str(tmp_path))
    run_python(code, NUMBA_CUDA_C_CACHE_DIR=str(cache_dir), **environment)
    run_python(code, NUMBA_CUDA_C_CACHE_DIR=str(cache_dir), **environment)
    assert not cache_dir.exists() or list(cache_dir.iterdir()) == []


CLOSURES = """
import numba_cuda_c as cuda

def make_closure(x):
    @cuda.jit(cache=True)
    def closure(r, y):
        r[()] = x + y[()]
    return closure

three, five, three_again = make_closure(3), make_closure(5), make_closure(3)
"""

CLOSURE_SOURCES = """
import sys
sys.path.insert(0, {directory!r})
import closures
from numba_cuda_c import types
zero_d = types.Array(types.int64, 0, "C")
for kernel in (closures.three, closures.five, closures.three_again):
    name, source = kernel._source((zero_d, zero_d))
    print("3LL" in source, "5LL" in source)
stats = closures.three_again.stats  # numba's counters: three_again found three's translation on disk
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), stats.cache_path == {cache!r})
"""


def test_closures_with_other_values_do_not_share_a_cache_entry(tmp_path):
    # numba's index keys a closure's captured values: make_closure(5) must not get make_closure(3)'s kernel
    (tmp_path / "closures.py").write_text(CLOSURES)
    env = {"NUMBA_CUDA_C_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):  # the second process reads every translation from the disk cache
        out = run_python(CLOSURE_SOURCES.format(directory=str(tmp_path), cache=str(tmp_path / "cache")), **env)
        assert out.split() == ["True", "False", "False", "True", "True", "False", "1", "0", "True"], out


RECOMPILE = """
import numba_cuda_c as cuda

Z = 1

@cuda.jit(cache=True)
def add(r, x):
    r[0] = x[0] + Z
"""


def test_recompile_reads_globals_again_and_rewrites_the_disk_cache(tmp_path):
    from mock_driver import require_mock, run_mock

    require_mock()
    (tmp_path / "recompiled.py").write_text(RECOMPILE)
    code = """
        import sys
        sys.path.insert(0, %r)
        import recompiled
        from numba_cuda_c import types
        sig = (types.float64[:], types.float64[:])
        recompiled.add[1, 1](np.zeros(1), np.zeros(1))
        print("(1LL)))" in recompiled.add._source(sig)[1], end=" ")
        recompiled.Z = 10
        recompiled.add[1, 1](np.zeros(1), np.zeros(1))
        print("(1LL)))" in recompiled.add._source(sig)[1], end=" ")  # numba: a global is read once, when compiling
        recompiled.add.recompile()
        print("(10LL)))" in recompiled.add._source(sig)[1], recompiled.add.signatures == [sig])
    """ % str(tmp_path)
    env = {"NUMBA_CUDA_C_CACHE_DIR": str(tmp_path / "cache")}
    assert run_mock(code, **env).split() == ["True", "True", "True", "True"]
    again = """
        import sys
        sys.path.insert(0, %r)
        import recompiled
        from numba_cuda_c import types
        print("(10LL)))" in recompiled.add._source((types.float64[:], types.float64[:]))[1])  # the rewritten entry
    """ % str(tmp_path)
    assert run_mock(again, **env).split() == ["True"]
