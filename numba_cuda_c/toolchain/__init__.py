"""The tools that make device code, below the translator: NVRTC's compilation of CUDA C and its caches (compiler),
the driver's JIT linker behind numba's Linker (linker), and where the CUDA toolkit's libraries are found
(libraries). numba's own modules for libNVVM, NVRTC's helpers and linkable files stay where its users import them:
cudadrv/nvvm.py, cudadrv/nvrtc.py, cudadrv/linkable_code.py."""
