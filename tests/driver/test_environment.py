"""Environment variables that do not parse give a clear error or warning naming the variable and the form
expected (issue 10, item 21), never a bare "invalid literal for int()"."""

import pytest

import numba_cuda_c as cuda
from subproc import run_python


def kernel(a):
    a[0] = 1


@pytest.mark.parametrize("value", ["abc", "9.0.1", "7.", ".5", "7,5", "", "  "])
def test_a_malformed_default_ptx_cc_names_the_variable(monkeypatch, value):
    monkeypatch.setenv("NUMBA_CUDA_DEFAULT_PTX_CC", value)
    if not value:  # empty: unset, the default applies
        ptx, _ = cuda.compile_ptx(kernel, "void(int32[:])")
        assert ".target sm_" in ptx
        return
    with pytest.raises(ValueError) as caught:
        cuda.compile_ptx(kernel, "void(int32[:])")
    message = str(caught.value)
    assert "NUMBA_CUDA_DEFAULT_PTX_CC" in message and "major.minor" in message and repr(value) in message


@pytest.mark.parametrize("value, target", [("7.5", "sm_75"), (" 8.6 ", "sm_86"), ("8", "sm_80")])
def test_a_well_formed_default_ptx_cc_is_used(monkeypatch, value, target):
    monkeypatch.setenv("NUMBA_CUDA_DEFAULT_PTX_CC", value)
    ptx, _ = cuda.compile_ptx(kernel, "void(int32[:])")
    assert ".target " + target in ptx


IMPORT_WARNINGS = """
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import numba_cuda_c._cuda as core
for w in caught:
    print(w.category.__name__, str(w.message))
print("imported")
"""


@pytest.mark.parametrize(
    "variable, value, expected",
    [
        ("NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT", "ten", "a non-negative integer"),
        ("NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT", "-3", "a non-negative integer"),
        ("NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT", "99999999999999999999999", "a non-negative integer"),
        ("NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO", "0.2x", "a non-negative number"),
        ("NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO", "nan", "a non-negative number"),
        ("NUMBA_CUDA_C_STAGING_THRESHOLD", "4MiB", "a non-negative integer"),
        ("NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM", "yes", "a non-negative integer"),
    ],
)
def test_a_malformed_numeric_variable_warns_naming_it(variable, value, expected):
    out = run_python(IMPORT_WARNINGS, **{variable: value})
    assert out.rstrip().endswith("imported")  # the default is used: the import works
    warnings = [line for line in out.splitlines() if line.startswith("RuntimeWarning")]
    assert len(warnings) == 1, out
    assert "'%s'" % variable in warnings[0] and "'%s'" % value in warnings[0] and expected in warnings[0]


def test_well_formed_numeric_variables_do_not_warn():
    out = run_python(
        IMPORT_WARNINGS,
        NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT="25",
        NUMBA_CUDA_MAX_PENDING_DEALLOCS_RATIO="0.5",
        NUMBA_CUDA_C_STAGING_THRESHOLD="0",
        NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM="1",
    )
    assert out.strip() == "imported"


def test_a_malformed_variable_is_an_error_under_warnings_as_errors():
    out = run_python(
        """
import warnings
warnings.simplefilter("error")
try:
    import numba_cuda_c
except RuntimeWarning as error:
    print("refused:", error)
""",
        NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT="x",
    )
    assert out.startswith("refused:") and "NUMBA_CUDA_MAX_PENDING_DEALLOCS_COUNT" in out


def test_an_unknown_memory_manager_names_the_variable():
    out = run_python(
        """
try:
    import numba_cuda_c
except RuntimeError as error:
    print("refused:", error)
""",
        NUMBA_CUDA_MEMORY_MANAGER="no_such_module_for_numba_cuda_c",
    )
    assert out.startswith("refused:") and "NUMBA_CUDA_MEMORY_MANAGER" in out
    assert "no_such_module_for_numba_cuda_c" in out
