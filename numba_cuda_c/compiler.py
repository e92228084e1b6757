"""numba.cuda.compiler's functions, where numba's users import them from (`from numba.cuda.compiler import
compile_ptx`): the package's own. What compiles CUDA C, links and loads is in toolchain/."""

from numba_cuda_c.pyjit import (  # noqa: F401  (names for numba's users)
    compile,
    compile_all,
    compile_for_current_device,
    compile_ptx,
    compile_ptx_for_current_device,
)

__all__ = ["compile", "compile_all", "compile_for_current_device", "compile_ptx", "compile_ptx_for_current_device"]
