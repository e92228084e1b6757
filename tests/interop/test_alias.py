"""numba_cuda_c.alias: programs and libraries written against numba.cuda run on numba_cuda_c unchanged
(`install()`, or `python -m numba_cuda_c program.py`), with numba installed (numba.cuda's own modules
are never mixed in) or not (a small `numba` stands in). In fresh interpreters."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from gpu import requires_gpu
from subproc import run_python

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = {"PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}

LIBRARY = '''
"""A library written against numba.cuda, unchanged."""
import numpy as np
from numba import cuda


@cuda.jit
def axpy(out, a, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def run(n):
    x = cuda.to_device(np.arange(n, dtype=np.float32))
    y = cuda.to_device(np.ones(n, dtype=np.float32))
    out = cuda.device_array(n, dtype=np.float32)
    axpy[(n + 127) // 128, 128](out, np.float32(2), x, y)
    return out.copy_to_host()
'''

PROGRAM = """
import sys
import numba_cuda_c
from numba import cuda, float32
import numba.cuda.cudadrv.driver as driver
from numba.cuda.cudadrv.devicearray import DeviceNDArray
assert cuda is numba_cuda_c, cuda
assert driver is numba_cuda_c.cudadrv.driver and DeviceNDArray is numba_cuda_c.DeviceNDArray
assert numba_cuda_c.float32 == float32   # ours, or numba's where numba is installed
import numba
assert numba.cuda is numba_cuda_c
try:
    import numba.cuda.no_such_module
except ModuleNotFoundError as e:
    assert "numba.cuda.no_such_module" in str(e)
else:
    raise AssertionError("a module numba_cuda_c lacks was found")
print("program ok", sys.argv[1:], __name__)
"""


def test_install_aliases_numba_cuda():
    out = run_python(
        """
        import sys
        import numba_cuda_c.alias as alias
        alias.install()
        alias.install()   # twice: still first on the path, once
        assert sys.meta_path.count(alias._finder) == 1 and sys.meta_path[0] is alias._finder
        exec(compile(%r, "program", "exec"))
        alias.uninstall()
        assert not alias.installed() and "numba.cuda" not in sys.modules
        print("uninstalled")
        """
        % PROGRAM,
        **ENV,
    )
    assert "program ok" in out and "uninstalled" in out


def test_runner_runs_a_program_and_a_module(tmp_path):
    (tmp_path / "program.py").write_text(PROGRAM)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "main.py").write_text(PROGRAM)
    env = dict(os.environ, PYTHONPATH=ENV["PYTHONPATH"] + os.pathsep + str(tmp_path))
    for args, expect in (
        ([str(tmp_path / "program.py"), "a", "b"], "['a', 'b'] __main__"),
        (["-m", "pkg.main", "c"], "['c'] __main__"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "numba_cuda_c", *args], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "program ok " + expect in done.stdout, done.stdout
    from_stdin = subprocess.run(  # no program named: read from standard input, as python does
        [sys.executable, "-m", "numba_cuda_c"], env=env, input=PROGRAM, capture_output=True, text=True, timeout=120
    )
    assert from_stdin.returncode == 0, from_stdin.stdout + from_stdin.stderr
    assert "program ok [] __main__" in from_stdin.stdout


def test_install_refuses_after_numba_cuda_was_imported():
    if importlib.util.find_spec("numba") is None:
        pytest.skip("numba is not installed")
    out = run_python(
        """
        from numba import cuda
        import numba_cuda_c.alias as alias
        try:
            alias.install()
        except RuntimeError as e:
            assert "imported already" in str(e)
            print("refused")
        """,
        **ENV,
    )
    assert "refused" in out


@requires_gpu
def test_a_numba_cuda_library_runs_unchanged(tmp_path):
    (tmp_path / "numba_library.py").write_text(LIBRARY)
    out = run_python(
        """
        import numpy as np
        import numba_cuda_c.alias
        numba_cuda_c.alias.install()
        import numba_library
        got = numba_library.run(1000)
        np.testing.assert_array_equal(got, 2 * np.arange(1000, dtype=np.float32) + 1)
        import numba_cuda_c
        assert type(numba_library.axpy).__module__.startswith("numba_cuda_c")
        print("library ok")
        """,
        PYTHONPATH=ENV["PYTHONPATH"] + os.pathsep + str(tmp_path),
    )
    assert "library ok" in out


PTH = os.path.join(ROOT, "numba_cuda_c_alias.pth")


def run_with_pth(tmp_path, code, **env):
    """`code` in a fresh interpreter whose start read numba_cuda_c_alias.pth as the installed copy's (site's own
    processing of a site directory, twice: some interpreters read one twice), with `env` set."""
    site_dir = tmp_path / "site"
    site_dir.mkdir(exist_ok=True)
    (site_dir / "numba_cuda_c_alias.pth").write_text(open(PTH).read())
    prelude = "import site, sys\nsite.addsitedir(%r)\nsite.addsitedir(%r)\n" % (str(site_dir), str(site_dir))
    return run_python(prelude + textwrap.dedent(code), **{**ENV, "NUMBA_CUDA_C_AS_NUMBA_CUDA": "0", **env})


HOOKS = "[type(f).__name__ for f in sys.meta_path if type(f).__name__ == 'NumbaCudaCAliasHook']"


def test_pth_file_imports_nothing_until_numba_is_imported(tmp_path):
    (tmp_path / "numba").mkdir()  # a numba of its own (numba installed): the hook must let it be found
    (tmp_path / "numba" / "__init__.py").write_text("REAL = True\n")
    out = run_with_pth(
        tmp_path,
        """
        assert %s == ['NumbaCudaCAliasHook'], sys.meta_path   # put in once
        import json, email.utils   # other imports: nothing of ours is loaded
        assert not [m for m in sys.modules if m.startswith("numba")], sorted(sys.modules)
        import numba
        assert numba.REAL   # the installed numba, found past the hook
        from numba import cuda
        import numba_cuda_c, numba_cuda_c.alias as alias
        assert cuda is numba_cuda_c and alias.installed() and not alias.pending() and %s == []
        print("hooked")
        """
        % (HOOKS, HOOKS),
        NUMBA_CUDA_C_AS_NUMBA_CUDA="1",
        PYTHONPATH=ENV["PYTHONPATH"] + os.pathsep + str(tmp_path),
    )
    assert "hooked" in out


def test_pth_file_after_numba_cuda_c_was_imported(tmp_path):
    out = run_with_pth(
        tmp_path,
        """
        import numba_cuda_c, numba_cuda_c.alias as alias
        assert alias.pending() and not alias.installed()
        exec(compile(%r, "program", "exec"))   # no numba installed: the stand-in, and numba.cuda
        assert alias.installed() and not alias.pending()
        """
        % PROGRAM,
        NUMBA_CUDA_C_AS_NUMBA_CUDA="1",
    )
    assert "program ok" in out


def test_pth_file_without_the_variable(tmp_path):
    out = run_with_pth(tmp_path, "print(%s, 'numba_cuda_c' in sys.modules)" % HOOKS)
    assert out == "[] False\n"


def test_what_the_numba_stand_in_lacks_says_numba_is_not_installed():
    if importlib.util.find_spec("numba") is not None:
        pytest.skip("numba is installed: no stand-in")
    done = subprocess.run(
        [sys.executable, "-m", "numba_cuda_c", "-c", "from numba import njit"],
        env=ENV, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        "ImportError: cannot import name 'njit' from 'numba' (numba is not installed: numba_cuda_c stands in for "
        "numba.cuda and numba's types only)"
    ), done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "numba_cuda_c", "-c", "import numba; print(hasattr(numba, 'njit')); numba.njit"],
        env=ENV, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.stdout == "False\n" and "numba has no attribute 'njit' here (numba is not installed" in done.stderr
