"""numba.cuda.cudadrv.linkable_code, where numba's users import code to link from: the package's own
(toolchain/linkable_code.py)."""

from numba_cuda_c.toolchain.linkable_code import (  # noqa: F401  (names for numba's users)
    FILE_EXTENSION_MAP,
    LTOIR,
    Archive,
    CUSource,
    Cubin,
    Fatbin,
    LinkableCode,
    Object,
    PTXSource,
    _extension_to_linkable_code_kind,
)

__all__ = [
    "FILE_EXTENSION_MAP",
    "LinkableCode",
    "PTXSource",
    "CUSource",
    "Fatbin",
    "Cubin",
    "Archive",
    "Object",
    "LTOIR",
]
