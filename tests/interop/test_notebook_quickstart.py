"""README.rst's quick start, run as a Jupyter notebook through nbclient (a real IPython kernel): it runs without
an error, prints what it should, and the rich display of a device, an array and cuda.detect() is an HTML table
there. Needs a GPU and the test extra's nbclient, nbformat and ipykernel."""

import os
import re

import pytest

from gpu import requires_gpu

pytestmark = [requires_gpu, pytest.mark.timeout(300)]

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def quick_start_code():
    readme = open(os.path.join(ROOT, "README.rst")).read()
    section = readme[readme.index("Quick start\n-----------") :]
    block = re.search(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", section).group(1)
    return "\n".join(line[3:] for line in block.splitlines()).strip()


def test_the_quick_start_runs_as_a_notebook(tmp_path):
    code = quick_start_code()
    body, closing = code.rsplit("cuda.close()", 1)
    cells = [
        body,
        "dev",  # a cell's last value: shown through _repr_html_
        "d_a",
        "axpy",
        "cuda.detect()",
        "cuda.close()" + closing,
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    client = nbclient.NotebookClient(
        notebook, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()  # raises CellExecutionError, with the traceback, where a cell fails

    def outputs(index, kind):
        found = []
        for output in notebook.cells[index].outputs:
            if kind == "stream" and output.output_type == "stream":
                found.append(output.text)
            elif kind in output.get("data", {}):
                found.append(output.data[kind])
        return "".join(found)

    printed = outputs(0, "stream")
    assert " ms" in printed and "[0. 2. 4. 6.]" in printed, printed
    for index, words in (
        (1, ["<table", "compute capability"]),
        (2, ["<table", "float32", "(1000000,)"]),
        (3, ["<table", "axpy"]),
        (4, ["<table"]),
    ):
        page = outputs(index, "text/html")
        for word in words:
            assert word in page, (cells[index], word, page[:500])
