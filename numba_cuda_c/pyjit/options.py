"""@cuda.jit's options: numba's checks of them at decoration (check_options), and the NVRTC flags they give
(nvrtc_options). The dispatcher and compile_ptx (ptx.py) both use them."""

from numba_cuda_c.toolchain import compiler

CARVEOUTS = {"default": -1, "maxl1": 0, "maxshared": 100}  # numba's names for shared_memory_carveout
# Not numba's: the differential fuzzer's build (tests/fuzz). Each thread that overflows a signed integer +, - or *
# (and int ** int's products) sets its byte in the module global ncc_signed_overflow: numba marks these operations
# nsw, so where they overflow its result is undefined (LLVM poison) and there is nothing to compare.
SIGNED_OVERFLOW_FLAGS = "_signed_overflow_flags"
JIT_OPTIONS = frozenset(
    "debug lineinfo fastmath opt max_registers cache inline forceinline link lto launch_bounds "
    "shared_memory_carveout extensions".split()
) | {SIGNED_OVERFLOW_FLAGS}


def check_options(options):
    """numba's checks of @cuda.jit's options, at decoration."""
    unknown = set(options) - JIT_OPTIONS
    if unknown:
        raise TypeError("unknown @jit options: %s" % ", ".join(sorted(unknown)))
    carveout = options.get("shared_memory_carveout")
    if isinstance(carveout, str):
        if carveout.lower() not in CARVEOUTS:
            raise ValueError(
                "Invalid carveout value: %s. Must be -1 to 100 or one of %s" % (carveout, list(CARVEOUTS))
            )
    elif isinstance(carveout, int) and not isinstance(carveout, bool):
        if not -1 <= carveout <= 100:
            raise ValueError("Carveout must be between -1 and 100")
    elif carveout is not None:
        raise TypeError("shared_memory_carveout must be str or int, got %s" % type(carveout).__name__)
    bounds = options.get("launch_bounds")
    if bounds is not None:
        bounds = (bounds,) if isinstance(bounds, int) else tuple(bounds)
        if len(bounds) > 3:
            raise ValueError(
                "Got %d launch bounds: %s. A maximum of three are supported: "
                "(max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)" % (len(bounds), bounds)
            )
        if not bounds or not all(isinstance(b, int) and b > 0 for b in bounds):
            raise ValueError("launch_bounds are positive integers: %r" % (options["launch_bounds"],))
        options["launch_bounds"] = bounds


def nvrtc_options(
    debug=False, lineinfo=False, fastmath=False, max_registers=None, opt=True, signed_overflow_flags=False
):
    options = ["-std=c++17"]
    if _nvrtc_has_minimal():
        options.append("-minimal")
    if signed_overflow_flags:
        options.append("-DNCC_SIGNED_OVERFLOW_FLAGS")
    if debug or opt is False:  # opt=False: NVRTC has no -O0; -G is how it leaves device code unoptimised
        options.append("-G")
    if lineinfo:
        options.append("-lineinfo")
    if fastmath:
        options.append("--use_fast_math")
    if max_registers:
        options.append("--maxrregcount=%d" % int(max_registers))
    return options


def _nvrtc_has_minimal():
    """Whether NVRTC takes -minimal (12.4 on): it leaves out of its built-in headers what a translation never names
    (textures and surfaces, the device runtime's cuda* functions, launches from device code, the runtime's types),
    a fifth of its time for a small kernel, the PTX unchanged. Told without loading NVRTC (a disk-cache hit loads
    none). Users' CUDA C (SourceModule) does not get it."""
    return compiler.nvrtc_version_unloaded() >= (12, 4)
