# Builds the one C extension, numba_cuda_c._cuda, from src/. No CUDA toolkit is needed:
# libcuda and libnvrtc are found and loaded at run time (src/driver/api/loader.c).
import compileall
import glob
import os

import numpy
import setuptools
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py


def _pep639_for_old_setuptools():
    """pyproject.toml gives the licence as PEP 639 has it (`license = "BSD-2-Clause"`, `license-files`),
    which setuptools reads from version 77 on, the version build-system.requires asks for. A build without
    isolation (`pip install --no-build-isolation`, as on a machine with no network) uses whatever setuptools is
    installed: from 61 to 76 it refuses those two fields. For those, the table read from pyproject.toml is
    given them in the form they know (`license = {text = ...}`, `[tool.setuptools] license-files`): the same
    licence and files in the metadata, in the older fields."""
    major = int(setuptools.__version__.split(".")[0])
    if major >= 77:
        return
    if major < 61:  # reads no [project] table at all
        raise SystemExit(
            "numba_cuda_c needs setuptools 61 or later to build (%s is installed)" % setuptools.__version__
        )
    from setuptools.config import pyprojecttoml

    load_file = pyprojecttoml.load_file

    def load_file_older_fields(filepath):
        config = load_file(filepath)
        project = config.get("project", {})
        if isinstance(project.get("license"), str):
            project["license"] = {"text": project["license"]}
        if "license-files" in project:
            tool = config.setdefault("tool", {}).setdefault("setuptools", {})
            tool["license-files"] = project.pop("license-files")
        return config

    pyprojecttoml.load_file = load_file_older_fields


_pep639_for_old_setuptools()

sources = sorted(glob.glob("src/**/*.c", recursive=True))


class build_ext_and_bytecode(build_ext):
    """build_ext, then, for an in-place (editable) build, the package's bytecode: pip byte-compiles what it
    installs, but not an editable checkout, whose first @cuda.jit launch would otherwise compile the
    translator's Python in every process where bytecode is not written (PYTHONDONTWRITEBYTECODE)."""

    def run(self):
        super().run()
        if self.inplace or getattr(self, "editable_mode", False):
            package = os.path.join(os.path.dirname(os.path.abspath(__file__)), "numba_cuda_c")
            compileall.compile_dir(package, quiet=1)


# NUMBA_CUDA_C_AS_NUMBA_CUDA=1 makes `import numba.cuda` numba_cuda_c in every Python process (numba_cuda_c.alias):
# a .pth file beside the package in site-packages, which the interpreter runs at start-up. Without the variable
# it imports nothing.
PTH = "numba_cuda_c_alias.pth"


class build_py_with_pth(build_py):
    """build_py, and the .pth file at the top of what is installed (wheels and editable installs alike)."""

    def run(self):
        super().run()
        self.copy_file(PTH, os.path.join(self.build_lib, PTH), preserve_mode=0)

    def get_outputs(self, include_bytecode=1):
        return super().get_outputs(include_bytecode) + [os.path.join(self.build_lib, PTH)]


setup(
    cmdclass={"build_ext": build_ext_and_bytecode, "build_py": build_py_with_pth},
    ext_modules=[
        Extension(
            "numba_cuda_c._cuda",
            sources=sources,
            include_dirs=["src", numpy.get_include()],
            # hidden visibility: the module exports its init alone (PyMODINIT_FUNC is marked default)
            extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra", "-fvisibility=hidden"],
            libraries=["dl", "pthread"],
        )
    ],
)
