"""Every Python example of the documentation (docs/**/*.rst) and of README.rst runs, in the mode it is marked with;
a broken example fails this test.

The mark is an RST comment on the line before the block's `.. code-block:: python` (invisible in the built pages):

    .. example: simulator        runs under the CUDA simulator (NUMBA_ENABLE_CUDASIM=1), asserts and all
    .. example: nvrtc            needs compiling (CUDA C, graphs, linking, what the simulator has not): runs against
                                 the mock driver (tests/support/mockcuda), so every kernel is translated and compiled
                                 by NVRTC, loaded and launched, but computes nothing; run with `python -O`, which
                                 drops the `assert`s that check what kernels computed
    .. example: gpu              needs a GPU for anything to happen (Dask clusters, other libraries' GPU arrays):
                                 compiled (syntax) only, without one
    .. example: <mode>, needs dask_cuda cupy    skipped where one of these modules cannot be imported

Where a GPU is present, every block also runs for real (no simulator, no mock), asserts included: the GPU check
(.ci/gpu-check) runs this file with the rest of the suite. Each block runs alone, as a script, in a fresh interpreter
and an empty directory, so an example is whole: it imports what it uses. README.rst's blocks (which carry no marks:
another page's format) get their modes from README_MODES below; a new README block without one fails here.
docs/writing_docs.rst tells authors the same."""

import importlib.util
import os
import re
import subprocess
import sys
import textwrap

import pytest

import numba_cuda_c
from gpu import needs_nvrtc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")
# where the numba_cuda_c this test imports lives (the checkout built in place, or site-packages): the examples'
# interpreters import the same one
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(numba_cuda_c.__file__)))
MODES = ("simulator", "nvrtc", "gpu")
GPU = numba_cuda_c.is_available()

# README.rst's Python blocks by the title of their section: (mode, a module the block imports written beside it,
# code run first). "covered" names the test that already runs the block.
README_MODES = {
    "Quick start": ("nvrtc", None, ""),
    "Code written against ``numba.cuda``, unchanged": (
        "nvrtc",
        # the library the block imports: written for numba-cuda, it gets numba_cuda_c through the alias
        (
            "some_library_written_for_numba_cuda",
            "from numba import cuda\nimport numba_cuda_c\nassert cuda is numba_cuda_c, cuda\n",
        ),
        "",
    ),
    "CUDA graphs": (
        "nvrtc",
        None,
        # the names the fragment leaves to the reader
        textwrap.dedent(
            """\
            import numpy as np
            import numba_cuda_c as cuda

            @cuda.jit
            def step(a, b):
                i = cuda.grid(1)
                if i < a.size:
                    b[i] = a[i] + 1

            blocks, threads = 4, 256
            d_a, d_b, d_c = (cuda.to_device(np.zeros(1024, np.float32)) for _ in range(3))
            pinned_out = cuda.pinned_array(1024, np.float32)
            """
        ),
    ),
    "Scaling out with Dask": ("covered", "tests/interop/test_dask.py::test_the_readme_example_runs", ""),
    "Dask on several machines": (
        "covered",
        "tests/interop/test_dask_cli.py::test_a_cluster_started_from_the_command_line",
        "",
    ),
}

_MARK = re.compile(r"^\.\. example:\s*(\w+)\s*(?:,\s*needs\s+(.+?))?\s*$")
_DIRECTIVE = re.compile(r"^(\s*)\.\. code-block::\s*python3?\s*$")


class Example:
    def __init__(self, source, line, code, mode, needs=(), prelude="", helper=None):
        self.source, self.line, self.code, self.mode = source, line, code, mode
        self.needs, self.prelude, self.helper = tuple(needs), prelude, helper

    @property
    def id(self):
        return "%s:%d" % (self.source, self.line)


def python_blocks(text):
    """(line number of the directive, code, the mark's line or None, the section title) of each Python code
    block of an RST text."""
    lines = text.splitlines()
    blocks, title = [], None
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and line.strip() and re.fullmatch(r"([-=~^\"'`#*+])\1{2,}", lines[i + 1].strip()):
            title = line.strip()
        found = _DIRECTIVE.match(line)
        if not found:
            continue
        indent = len(found.group(1))
        j = i + 1
        while j < len(lines) and re.match(r"^\s+:[\w-]+:", lines[j]):  # the directive's options
            j += 1
        body = []
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            body.append(lines[j])
            j += 1
        previous = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), None)
        mark = previous.strip() if previous is not None and previous.strip().startswith(".. example:") else None
        blocks.append((i + 1, textwrap.dedent("\n".join(body)).strip() + "\n", mark, title))
    return blocks


def doc_pages():
    pages = []
    for folder, dirs, files in os.walk(DOCS):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        pages += [os.path.join(folder, f) for f in files if f.endswith(".rst")]
    return sorted(pages)


def collect():
    """Every Python example: (examples, problems), problems being blocks without a valid mark."""
    examples, problems = [], []
    for page in doc_pages():
        name = os.path.relpath(page, ROOT)
        for line, code, mark, _ in python_blocks(open(page, encoding="utf8").read()):
            parsed = _MARK.match(mark) if mark else None
            if parsed is None or parsed.group(1) not in MODES:
                problems.append(
                    "%s:%d: a Python block needs a mark: '.. example: %s' on the line before it"
                    % (name, line, " | ".join(MODES))
                )
                continue
            needs = parsed.group(2).replace(",", " ").split() if parsed.group(2) else ()
            examples.append(Example(name, line, code, parsed.group(1), needs))
    for line, code, _, title in python_blocks(open(os.path.join(ROOT, "README.rst"), encoding="utf8").read()):
        if title not in README_MODES:
            problems.append(
                "README.rst:%d: a Python block in section %r has no mode in README_MODES of %s"
                % (line, title, os.path.relpath(__file__, ROOT))
            )
            continue
        mode, helper, prelude = README_MODES[title]
        if mode != "covered":
            examples.append(Example("README.rst", line, code, mode, prelude=prelude, helper=helper))
    return examples, problems


EXAMPLES, PROBLEMS = collect()


def _mock_library():
    sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
    from mock_driver import require_mock

    return require_mock()


def run_example(example, tmp_path, how):
    """Runs the example as a script in tmp_path: how is 'simulator', 'mock' or 'gpu'."""
    missing = [m for m in example.needs if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip("the example needs %s" % ", ".join(missing))
    script = tmp_path / "example.py"
    script.write_text(example.prelude + example.code)
    if example.helper is not None:
        (tmp_path / (example.helper[0] + ".py")).write_text(example.helper[1])
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_ENABLE_CUDASIM", "NUMBA_CUDA_C_AS_NUMBA_CUDA")}
    env["PYTHONPATH"] = os.pathsep.join([PACKAGE_PARENT] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    env["NUMBA_CUDA_C_CACHE_DIR"] = str(tmp_path / "cache")
    command = [sys.executable, "-X", "faulthandler"]
    if how == "simulator":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    elif how == "mock":
        env["NUMBA_CUDA_DRIVER"] = _mock_library()
        command.append("-O")  # the kernels computed nothing: the asserts about their results are dropped
    command.append(str(script))
    try:
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired as hung:
        pytest.fail("%s (%s) hung:\n%s%s" % (example.id, how, hung.stdout or "", hung.stderr or ""))
    assert done.returncode == 0, "%s (%s) failed:\n%s\n--- output ---\n%s%s" % (
        example.id,
        how,
        example.code,
        done.stdout,
        done.stderr,
    )
    return done.stdout


def test_every_python_block_is_marked():
    assert not PROBLEMS, "\n".join(PROBLEMS)


def test_the_pages_have_examples_of_each_mode():
    """The collection itself works: a change to the pages' format that hid their blocks would pass everything."""
    modes = {e.mode for e in EXAMPLES if e.source.startswith("docs")}
    assert set(MODES) <= modes, modes
    readme = open(os.path.join(ROOT, "README.rst"), encoding="utf8").read()
    titles = {title for _, _, _, title in python_blocks(readme)}
    assert set(README_MODES) <= titles, "README_MODES names sections with no Python block: %s" % (
        set(README_MODES) - titles
    )


def _params(mode):
    return [pytest.param(e, id=e.id) for e in EXAMPLES if e.mode == mode]


@pytest.mark.parametrize("example", _params("simulator"))
def test_example_under_the_simulator(example, tmp_path):
    run_example(example, tmp_path, "simulator")


@needs_nvrtc
@pytest.mark.parametrize("example", _params("nvrtc"))
def test_example_compiles_against_the_mock_driver(example, tmp_path):
    run_example(example, tmp_path, "mock")


@pytest.mark.parametrize("example", _params("gpu"))
def test_gpu_example_is_valid_python(example):
    compile(example.prelude + example.code, example.id, "exec")


@pytest.mark.skipif(not GPU, reason="no CUDA GPU")
@pytest.mark.parametrize("example", [pytest.param(e, id=e.id) for e in EXAMPLES])
def test_example_on_the_gpu(example, tmp_path):
    run_example(example, tmp_path, "gpu")
