"""Our driver and NVRTC declarations (src/driver/api/*.h) against the CUDA toolkit's headers.

The build needs no toolkit, so src/driver/api/cuda_api.h and nvrtc_api.h restate the parts of cuda.h and nvrtc.h we use.
Here one generated C file includes the toolkit's headers first, then ours, and turns every entry of our X-macro
lists into a _Static_assert: enum values, type sizes, each entry point's prototype, and that the symbol the loader
resolves is the one cuda.h maps the plain name to. gcc compiles it (syntax only); a failure names the entry.
"""

import os
import re
import shutil
import subprocess

import pytest

API_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src", "driver", "api"
)
CUDA_ROOT = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
CUDA_INCLUDE = os.path.join(CUDA_ROOT, "include")
GCC = shutil.which("gcc")

pytestmark = [
    pytest.mark.skipif(GCC is None, reason="gcc is not on PATH"),
    pytest.mark.skipif(
        not os.path.isfile(os.path.join(CUDA_INCLUDE, "cuda.h")),
        reason="no CUDA toolkit headers in " + CUDA_INCLUDE,
    ),
]

CHECKS = r"""
#include <cuda.h>
#include <cudaProfiler.h>
#include <nvrtc.h>

enum { TOOLKIT_CU_IPC_HANDLE_SIZE = CU_IPC_HANDLE_SIZE };

#include "cuda_api.h"
#include "nvrtc_api.h"

#define STR(x) #x
#define XSTR(x) STR(x) /* the name after cuda.h's #defines: cuMemAlloc -> "cuMemAlloc_v2" */

#define CHECK_VALUE(name, value) \
    _Static_assert((name) == (value), #name ": ours is " #value ", the toolkit has another value");
#define CHECK_ATTRIBUTE(name, value) \
    _Static_assert(CU_DEVICE_ATTRIBUTE_##name == (value), "CU_DEVICE_ATTRIBUTE_" #name ": ours is " #value \
                   ", the toolkit has another value");
/* PFN_##field pastes before expansion; &symbol expands (as a call through cuda.h would). */
#define CHECK_FUNCTION(field, symbol) \
    _Static_assert(__builtin_types_compatible_p(PFN_##field, __typeof__(&symbol)), \
                   "PFN_" #field " differs from the toolkit prototype of " #symbol); \
    _Static_assert(sizeof(#symbol) == sizeof(XSTR(field)) && sizeof(#symbol) == sizeof(XSTR(symbol)), \
                   "X(" #field ", " #symbol "): cuda.h maps " #field " to " XSTR(field) ", so the loader " \
                   "would resolve the wrong entry point");

CU_RESULT_VALUES(CHECK_VALUE)
CU_DEVICE_ATTRIBUTE_VALUES(CHECK_ATTRIBUTE)
CU_FLAG_VALUES(CHECK_VALUE)
NVRTC_RESULT_VALUES(CHECK_VALUE)
CHECK_VALUE(CU_IPC_HANDLE_SIZE, TOOLKIT_CU_IPC_HANDLE_SIZE)

CU_REQUIRED_FUNCTIONS(CHECK_FUNCTION)
CU_OPTIONAL_FUNCTIONS(CHECK_FUNCTION)
NVRTC_FUNCTIONS(CHECK_FUNCTION)
"""

# The same sizes, in both compilations: with the toolkit's types, and with ours alone (as the build sees them).
SIZES = r"""
_Static_assert(sizeof(CUuuid) == 16, "sizeof(CUuuid) is not 16");
_Static_assert(sizeof(CUdeviceptr) == 8, "sizeof(CUdeviceptr) is not 8");
_Static_assert(CU_IPC_HANDLE_SIZE == 64, "CU_IPC_HANDLE_SIZE is not 64");
_Static_assert(sizeof(CUipcMemHandle) == CU_IPC_HANDLE_SIZE, "sizeof(CUipcMemHandle) is not CU_IPC_HANDLE_SIZE");
_Static_assert(sizeof(CUresult) == sizeof(int) && sizeof(nvrtcResult) == sizeof(int), "result enums are not int");
_Static_assert(sizeof(CUdevice) == sizeof(int), "sizeof(CUdevice) is not sizeof(int)");
"""

STANDALONE = '#include "cuda_api.h"\n#include "nvrtc_api.h"\n'


def compile_checks(tmp_path, source, api_dir=API_DIR):
    """Compiles `source` against our headers and the toolkit's; returns (ok, the compiler's error lines)."""
    path = tmp_path / "checks.c"
    path.write_text(source)
    cmd = [GCC, "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only"]
    done = subprocess.run(
        cmd + ["-I", str(api_dir), "-I", CUDA_INCLUDE, str(path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    errors = [line for line in done.stderr.splitlines() if re.search(r"\berror\b", line)]
    return done.returncode == 0, "\n".join(errors) or done.stderr


def test_declarations_match_the_toolkit(tmp_path):
    ok, errors = compile_checks(tmp_path, CHECKS + SIZES)
    assert ok, "src/driver/api declarations disagree with " + CUDA_INCLUDE + ":\n" + errors


def test_declarations_compile_without_the_toolkit(tmp_path):
    ok, errors = compile_checks(tmp_path, STANDALONE + SIZES)
    assert ok, "src/driver/api headers alone:\n" + errors


@pytest.mark.parametrize(
    "wrong, named",
    [
        ("CHECK_VALUE(CUDA_ERROR_NO_DEVICE, 101)", "CUDA_ERROR_NO_DEVICE: ours is 101"),
        ("CHECK_ATTRIBUTE(WARP_SIZE, 11)", "CU_DEVICE_ATTRIBUTE_WARP_SIZE: ours is 11"),
        ("CHECK_VALUE(NVRTC_ERROR_COMPILATION, 7)", "NVRTC_ERROR_COMPILATION: ours is 7"),
        # cuInit with an int parameter (the name is as long as cuInit's, so that only the prototype differs)
        (
            "typedef CUresult (*PFN_cuinit)(int Flags);\nCHECK_FUNCTION(cuinit, cuInit)",
            "PFN_cuinit differs from the toolkit prototype of cuInit",
        ),
        # The right prototype under the unversioned name: cuMemAlloc is the 32-bit entry point of old drivers.
        ("CHECK_FUNCTION(cuMemAlloc, cuMemAlloc)", "cuda.h maps cuMemAlloc to cuMemAlloc_v2"),
    ],
)
def test_a_wrong_declaration_fails_the_check(tmp_path, wrong, named):
    ok, errors = compile_checks(tmp_path, CHECKS + wrong + "\n")
    assert not ok, "the check accepted a wrong declaration: " + wrong
    assert named in errors
    assert len(errors.splitlines()) == 1, "only the wrong entry should fail:\n" + errors


def test_a_wrong_entry_in_our_header_fails_the_check(tmp_path):
    api = tmp_path / "api"
    shutil.copytree(API_DIR, api)
    header = api / "cuda_api.h"
    text = header.read_text()
    assert "X(CUDA_ERROR_NO_DEVICE, 100)" in text and "X(cuMemFree, cuMemFree_v2)" in text
    header.write_text(text.replace("X(CUDA_ERROR_NO_DEVICE, 100)", "X(CUDA_ERROR_NO_DEVICE, 101)"))
    ok, errors = compile_checks(tmp_path, CHECKS, api)
    assert not ok and "CUDA_ERROR_NO_DEVICE: ours is 101" in errors
    header.write_text(text.replace("X(cuMemFree, cuMemFree_v2)", "X(cuMemFree, cuMemFree)"))
    ok, errors = compile_checks(tmp_path, CHECKS, api)
    assert not ok and "cuda.h maps cuMemFree to cuMemFree_v2" in errors
