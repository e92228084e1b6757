"""Sphinx configuration of numba_cuda_c's documentation (built in CI by .ci/run: `sphinx-build -W -b html docs out`).

The API reference is autodoc over the package, which imports on a machine with no GPU and no driver. The
kernel-language tables are made by docs/_ext/kernel_language.py from the translator's registries, and
docs/_ext/api_coverage.py fails the build where a public name of the package has no entry in api.rst or no
docstring. The pages' Python examples are run by tests/interop/test_docs_examples.py (see writing_docs.rst)."""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "_ext"))
if importlib.util.find_spec("numba_cuda_c") is None:  # not installed: the checkout's copy (built in place)
    sys.path.insert(0, ROOT)

project = "numba_cuda_c"
author = "the numba_cuda_c authors"
copyright = "the numba_cuda_c authors"  # noqa: A001  (Sphinx's name)

extensions = [
    "sphinx.ext.autodoc",
    "myst_parser",  # ARCHITECTURE.md, kept in Markdown beside the code it maps
    "kernel_language",
    "api_coverage",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"
html_theme = "alabaster"
html_theme_options = {"description": "numba.cuda's host side, in C", "fixed_sidebar": True}
pygments_style = "sphinx"

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True}
# Docstrings name types in words (an int, a DeviceNDArray): signatures stay as written in the code
autodoc_typehints = "none"
nitpicky = False
myst_heading_anchors = 3
