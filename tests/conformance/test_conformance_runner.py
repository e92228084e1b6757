"""The conformance runner (tests/conformance/): its import rewrite on sample lines, its known-differences
matching and its comparison; with numba-cuda installed, the rewritten trees of its real test folders."""

import ast
import importlib.util
import json
import os
import subprocess
import sys

import pytest

CONFORMANCE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(CONFORMANCE))


def _load(name):
    spec = importlib.util.spec_from_file_location("conformance_" + name, os.path.join(CONFORMANCE, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, CONFORMANCE)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(CONFORMANCE)
    return module


rewrite = _load("rewrite")
runner = _load("run_numba_suite")


def ours(line, local=()):
    return rewrite.rewrite_source(line, "numba_cuda_c", local)


def theirs(line, local=()):
    return rewrite.rewrite_source(line, "numba.cuda", local)


@pytest.mark.parametrize(
    "line, expected_ours, expected_theirs",
    [
        ("from numba import cuda", "import numba_cuda_c as cuda", "import numba.cuda as cuda"),
        ("import numba.cuda as cuda", "import numba_cuda_c as cuda", "import numba.cuda as cuda"),
        ("from numba import cuda as c", "import numba_cuda_c as c", "import numba.cuda as c"),
        (
            "from numba.cuda import jit, float32",
            "from numba_cuda_c import jit, float32",
            "from numba.cuda import jit, float32",
        ),
        (
            "from numba.cuda.cudadrv import driver, devices",
            "from numba_cuda_c.cudadrv import driver, devices",
            "from numba.cuda.cudadrv import driver, devices",
        ),
        (
            "from numba.cuda.cudadrv.driver import driver as d",
            "from numba_cuda_c.cudadrv.driver import driver as d",
            "from numba.cuda.cudadrv.driver import driver as d",
        ),
        (
            "import numba.cuda.cudadrv.devicearray as da",
            "import numba_cuda_c.cudadrv.devicearray as da",
            "import numba.cuda.cudadrv.devicearray as da",
        ),
        (
            "from numba import float32, int32",
            "from numba_cuda_c import float32, int32",
            "from numba.cuda import float32, int32",
        ),
        ("from numba import types", "from numba_cuda_c import types", "from numba.cuda import types"),
        ("from numba.core import types", "from numba_cuda_c import types", "from numba.cuda import types"),
        (
            "from numba.cuda.types import CPointer",
            "from numba_cuda_c.types import CPointer",
            "from numba.cuda.types import CPointer",
        ),
        (
            "from numba.cuda.random import create_xoroshiro128p_states",
            "from numba_cuda_c.random import create_xoroshiro128p_states",
            "from numba.cuda.random import create_xoroshiro128p_states",
        ),
        (
            "from numba.cuda.testing import CUDATestCase, skip_on_cudasim",
            "from cuda_testing import CUDATestCase, skip_on_cudasim",
            "from cuda_testing import CUDATestCase, skip_on_cudasim",
        ),
        (
            "from numba.cuda.compiler import compile_ptx",
            "from numba_cuda_c import compile_ptx",
            "from numba.cuda import compile_ptx",
        ),
        (  # numba-cuda's FP8 bindings, which programs import from its _internal package
            "from numba.cuda._internal.cuda_fp8 import fp8_e4m3, cvt_float_to_fp8",
            "from numba_cuda_c._internal.cuda_fp8 import fp8_e4m3, cvt_float_to_fp8",
            "from numba.cuda._internal.cuda_fp8 import fp8_e4m3, cvt_float_to_fp8",
        ),
        (
            "import numba.cuda._internal.cuda_fp8 as fp8",
            "import numba_cuda_c._internal.cuda_fp8 as fp8",
            "import numba.cuda._internal.cuda_fp8 as fp8",
        ),
        (
            "from numba.cuda._internal import cuda_fp8, cuda_bf16",
            "from numba_cuda_c._internal import cuda_fp8; from numba.cuda._internal import cuda_bf16",
            "from numba.cuda._internal import cuda_fp8; from numba.cuda._internal import cuda_bf16",
        ),
        (
            "from numba.cuda.np import numpy_support",
            "from numba_cuda_c.np import numpy_support",
            "from numba.cuda.np import numpy_support",
        ),
        (
            "from numba.cuda.np.numpy_support import from_dtype, select_array_wrapper",
            "from numba_cuda_c.np.numpy_support import from_dtype; from numba.cuda.np.numpy_support import "
            "select_array_wrapper",
            "from numba.cuda.np.numpy_support import from_dtype; from numba.cuda.np.numpy_support import "
            "select_array_wrapper",
        ),
        (
            "from numba.cuda.np.numpy_support import carray, farray",
            "from numba_cuda_c.np.numpy_support import carray, farray",
            "from numba.cuda.np.numpy_support import carray, farray",
        ),
    ],
)
def test_user_facing_imports_move_to_the_target(line, expected_ours, expected_theirs):
    assert ours(line) == expected_ours
    assert theirs(line) == expected_theirs


def test_numbas_vectorize_moves_only_where_a_file_uses_it_for_cuda_alone():
    cuda_only = (
        "from numba import cuda, vectorize as v\n"
        "f = v(['f8(f8)'], target='cuda')(abs)\ng = partial(v, target='cuda')\n"
    )
    assert rewrite.rewrite_source(cuda_only, "numba_cuda_c").splitlines()[0] == (
        "import numba_cuda_c as cuda; from numba_cuda_c import vectorize as v"
    )
    assert rewrite.rewrite_source(cuda_only, "numba.cuda").splitlines()[0] == (
        "import numba.cuda as cuda; from numba.cuda import vectorize as v"
    )
    also_cpu = (
        "from numba import vectorize\n@vectorize\ndef f(x):\n    return x\nvectorize(['f8(f8)'], target='cuda')\n"
    )
    assert rewrite.rewrite_source(also_cpu, "numba_cuda_c").splitlines()[0] == "from numba import vectorize"


@pytest.mark.parametrize(
    "line",
    [
        "from numba.cuda import config",
        "from numba.cuda.core import config",
        "from numba.cuda.core.errors import TypingError",
        "from numba.core.errors import TypingError",
        "from numba.cuda.tests.support import captured_stdout, override_config",
        "from numba.cuda.compiler import run_frontend",
        "from numba.cuda._internal.cuda_bf16 import _type_unnamed1405307",
        "from numba import njit",
        "import numba",
        "import numba.cuda",
        "import numpy as np",
        "from .support import x",
    ],
)
def test_internal_imports_stay_numbas(line):
    assert ours(line) == line
    assert theirs(line) == line


def test_a_mixed_import_is_split_between_the_target_and_numba():
    assert ours("from numba import cuda, njit, float32") == (
        "import numba_cuda_c as cuda; from numba_cuda_c import float32; from numba import njit"
    )
    assert ours("from numba.cuda import config, types, HAS_NUMBA") == (
        "from numba_cuda_c import types; from numba.cuda import config, HAS_NUMBA"
    )
    assert ours("from numba.cuda.compiler import compile_ptx, run_frontend") == (
        "from numba_cuda_c import compile_ptx; from numba.cuda.compiler import run_frontend"
    )


def test_sibling_use_case_modules_are_the_rewritten_copies():
    line = "from numba.cuda.tests.cudapy.cache_usecases import CUDAUseCase"
    assert ours(line, ("cudapy",)) == "from cudapy.cache_usecases import CUDAUseCase"
    assert ours(line, ("cudadrv",)) == line


def test_nested_and_multiline_imports_keep_line_numbers():
    source = (
        "import unittest\n"
        "from numba.cuda import (\n"
        "    float32,\n"
        "    config,  # a comment\n"
        ")  # trailing\n"
        "class T(unittest.TestCase):\n"
        "    def test(self):\n"
        "        from numba import cuda\n"
        "        return cuda\n"
    )
    out = ours(source)
    ast.parse(out)
    lines = out.splitlines()
    assert len(lines) == len(source.splitlines())
    assert lines[1] == "from numba_cuda_c import float32; from numba.cuda import config"
    assert lines[4].strip() == "# trailing"
    assert lines[7] == "        import numba_cuda_c as cuda"
    assert lines[8] == "        return cuda"


def test_an_import_followed_by_code_on_its_line_still_parses():
    out = ours("from numba import (\n cuda); x = cuda\n")
    assert out == "import numba_cuda_c as cuda; x = cuda\n"


def test_unaliased_numba_cuda_imports_are_reported():
    assert rewrite.unredirected_imports("import numba.cuda\nimport numba.cuda.cudadrv.driver\nimport numba\n") == [
        (1, "import numba.cuda"),
        (2, "import numba.cuda.cudadrv.driver"),
    ]


def test_known_differences_match_files_classes_tests_and_patterns(tmp_path):
    path = tmp_path / "known.txt"
    path.write_text(
        "# comment\n\n"
        "cudadrv/test_a.py  file reason\n"
        "cudadrv/test_b.py::TestX  class reason\n"
        "cudadrv/test_c.py::T::test_one  test reason\n"
        "cudapy/test_*.py::*::test_ir_*  pattern reason\n"
    )
    known = runner.load_known(str(path))
    assert runner.known_reason("cudadrv/test_a.py::T::test", known) == "file reason"
    assert runner.known_reason("cudadrv/test_ab.py::T::test", known) is None
    assert runner.known_reason("cudadrv/test_b.py::TestX::test", known) == "class reason"
    assert runner.known_reason("cudadrv/test_b.py::TestXY::test", known) is None
    assert runner.known_reason("cudadrv/test_c.py::T::test_one", known) == "test reason"
    assert runner.known_reason("cudadrv/test_c.py::T::test_one_more", known) is None
    assert runner.known_reason("cudapy/test_q.py::K::test_ir_x", known) == "pattern reason"


def test_a_known_difference_needs_a_reason(tmp_path):
    path = tmp_path / "known.txt"
    path.write_text("cudadrv/test_a.py\n")
    with pytest.raises(SystemExit, match="needs a reason"):
        runner.load_known(str(path))


def test_the_shipped_known_differences_file_loads():
    known = runner.load_known(os.path.join(CONFORMANCE, "known_differences.txt"))
    assert known and all(reason for _, reason in known)


def test_comparison_counts_new_known_stale_and_collection_errors(tmp_path):
    results = tmp_path / "ours.jsonl"
    lines = [
        {"id": "d/test_a.py::T::test_pass", "when": "call", "outcome": "passed", "message": ""},
        {"id": "d/test_a.py::T::test_fail", "when": "call", "outcome": "failed", "message": "boom"},
        {"id": "d/test_a.py::T::test_fail", "when": "teardown", "outcome": "passed", "message": ""},
        {"id": "d/test_a.py::T::test_known", "when": "setup", "outcome": "failed", "message": "no"},
        {"id": "d/test_a.py::T::test_stale", "when": "call", "outcome": "passed", "message": ""},
        {"id": "d/test_a.py::T::test_skip", "when": "setup", "outcome": "skipped", "message": "why"},
        {"id": "d/test_c.py::T::test_internal", "when": "call", "outcome": "passed", "message": ""},
        {"id": "d/test_b.py", "when": "collect", "outcome": "failed", "message": "ImportError: x"},
    ]
    results.write_text("".join(json.dumps(r) + "\n" for r in lines))
    ours_outcomes, errors = runner.read_outcomes(str(results), ["d"])
    assert ours_outcomes["d/test_a.py::T::test_fail"] == ("failed", "boom")
    assert ours_outcomes["d/test_a.py::T::test_skip"] == ("skipped", "why")
    assert errors == {"d/test_b.py": "ImportError: x"}
    their = {
        i: ("passed", "") for i in ["d/test_a.py::T::test_" + n for n in ("pass", "fail", "known", "stale", "skip")]
    }
    their["d/test_b.py::T::test_one"] = ("passed", "")
    their["d/test_b.py::T::test_two"] = ("failed", "numba-cuda fails too")
    known = [
        ("d/test_a.py::T::test_known", "by design"),
        ("d/test_a.py::T::test_stale", "by design"),
        ("d/test_c.py", "a whole file of numba's internals"),
    ]
    rows = {r[0]: r for r in runner.compare(their, ours_outcomes, errors, known)}
    assert rows["d/test_c.py::T::test_internal"][4] == ""  # a listed file's passing test is not stale
    assert rows["d/test_a.py::T::test_pass"][4] == ""
    assert rows["d/test_a.py::T::test_fail"][4] == "new"
    assert rows["d/test_a.py::T::test_skip"][4] == "new"
    assert rows["d/test_a.py::T::test_known"][4] == "known"
    assert rows["d/test_a.py::T::test_stale"][4] == "stale"
    assert rows["d/test_b.py::T::test_one"][2:] == ("failed", "collection failed: ImportError: x", "new")
    assert rows["d/test_b.py::T::test_two"][4] == ""
    table = runner.table(list(rows.values()))
    assert table[-2].split("|")[1:] == [
        "                 6 ",
        "           3 ",
        "           4 ",
        "                 1 ",
        "            3",
    ]


def _numba_tests_dir():
    try:
        return runner.numba_tests_dir()
    except Exception:  # numba-cuda present but unimportable here
        return None


NUMBA_TESTS = _numba_tests_dir()
requires_numba_cuda = pytest.mark.skipif(NUMBA_TESTS is None, reason="numba-cuda is not installed")


@requires_numba_cuda
@pytest.mark.parametrize("target", ["numba_cuda_c", "numba.cuda"])
def test_real_folders_rewrite_completely(tmp_path, target):
    folders = ["cudadrv", "doc_examples", "cudapy"]
    root = tmp_path / "tree"
    runner.build_tree(str(root), NUMBA_TESTS, folders, target)
    checked = 0
    for dirpath, _, names in os.walk(root):
        for name in names:
            if not name.endswith(".py") or os.path.dirname(os.path.join(dirpath, name)) == str(root):
                continue
            tree = ast.parse((root / os.path.relpath(os.path.join(dirpath, name), root)).read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module:
                    assert node.module != "numba.cuda.testing"
                    if target == "numba_cuda_c":
                        assert not node.module.startswith("numba.cuda.cudadrv")
                        assert not (node.module == "numba" and any(a.name == "cuda" for a in node.names))
            checked += 1
    assert checked > 100
    assert (root / "_conformance_target.py").read_text() == "MODULE = %r\n" % target


@requires_numba_cuda
def test_collect_only_points_each_run_at_its_target():
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run(
        [sys.executable, os.path.join(CONFORMANCE, "run_numba_suite.py"), "cudadrv", "--collect-only"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    ).stdout
    assert ", 0 names pointing elsewhere than numba_cuda_c" in out
    assert ", 0 names pointing elsewhere than numba.cuda" in out


def test_a_module_defining_numba_extensions_keeps_numba_s_types():
    """numba's register_model takes numba's types only: in a file that imports the extension API, `types`
    is that API's vocabulary; `cuda` still moves."""
    source = (
        "from numba.cuda import types\nfrom numba import cuda, int32\n"
        "from numba.cuda.extending import register_model, models\n"
    )
    out = rewrite.rewrite_source(source, "numba_cuda_c")
    assert "from numba.cuda import types" in out and "from numba import cuda, int32" not in out
    assert "import numba_cuda_c as cuda" in out and "int32" in out
    plain = rewrite.rewrite_source("from numba.cuda import types\n", "numba_cuda_c")
    assert plain.strip() == "from numba_cuda_c import types"
