"""The tools that make device code, below the driver's layer and the translator: NVRTC's compilation of CUDA C and
its caches (compiler), the driver's JIT linker behind numba's Linker (linker), code to link held in memory
(linkable_code, which cudadrv/linkable_code.py names where numba's users import it from), and where the CUDA
toolkit's libraries are found (libraries). numba's libNVVM and NVRTC helper modules, which nothing here uses, are
user-facing alone and stay in cudadrv/ (nvvm.py, nvrtc.py)."""
