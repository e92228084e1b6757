# Builds the one C extension, numba_cuda_c._cuda, from src/. No CUDA toolkit is needed:
# libcuda and libnvrtc are found and loaded at run time (src/api/loader.c).
import glob

import numpy
from setuptools import Extension, setup

sources = sorted(glob.glob("src/*.c") + glob.glob("src/api/*.c"))

setup(
    ext_modules=[
        Extension(
            "numba_cuda_c._cuda",
            sources=sources,
            include_dirs=["src", numpy.get_include()],
            extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra"],
            libraries=["dl", "pthread"],
        )
    ],
)
