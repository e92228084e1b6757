"""A kernel's translation to a loaded kernel (the loader): NVRTC's image, from the compiler's caches (compiler.py),
linked where the kernel calls declared device functions or links files, loaded, and set up for what its launch
must do. The specialiser (specialiser.py) calls it once per signature; the dispatcher's inspect_asm and
inspect_sass get their images from it."""

import time

from numba_cuda_c.toolchain import compiler
from numba_cuda_c.pyjit.options import CARVEOUTS, SIGNED_OVERFLOW_FLAGS, nvrtc_options

# Compiles slower than this are logged at INFO (logger "numba_cuda_c"): a user who waits knows on what.
SLOW_COMPILE_SECONDS = 1.0
# The per-thread stack a kernel with recursive device functions gets (the context's default is 1 KiB: a
# few dozen frames). The driver reserves it for every thread that can be resident (about 2 GiB at 8 KiB
# on an H100), so only such kernels raise it, and never lower it again.
RECURSION_STACK_BYTES = 8192


def nvrtc_options_of(options):
    """NVRTC's flags for a dispatcher's options."""
    return nvrtc_options(
        **{k: v for k, v in options.items() if k in ("debug", "lineinfo", "fastmath", "max_registers", "opt")},
        signed_overflow_flags=bool(options.get(SIGNED_OVERFLOW_FLAGS)),
    )


def load(specialisation, options, py_name, on_reset):
    """The Kernel of a specialisation of Python function py_name, compiled, loaded and set up (timed: a slow one is
    logged). on_reset (a weak method) is called with its argument types where a context reset unloads a kernel that
    linked callbacks."""
    started = time.perf_counter()
    kernel = _set_up(_loaded(specialisation, options, py_name + ".cu", on_reset), specialisation, options)
    _log_slow_compile(py_name, specialisation.argtypes, time.perf_counter() - started)
    return kernel


def load_image(specialisation, image, options):
    """The Kernel of a specialisation whose image was compiled ahead of time (a bundle's), loaded and set up."""
    return _set_up(compiler.load_module(image).get_function(specialisation.name), specialisation, options)


def image(specialisation, options, py_name, ptx):
    """NVRTC's image (PTX or CUBIN) of a specialisation's source, relocatable where it links, not cached on disk:
    what inspect_asm and inspect_sass show."""
    relocatable = ["-rdc=true"] if specialisation.links is not None else []
    return compiler.compile_image(
        specialisation.source,
        nvrtc_options_of(options) + relocatable,
        name=py_name + ".cu",
        ptx=ptx,
        disk_cache=False,
    )


def _loaded(specialisation, options, file_name, on_reset):
    """Compiled by NVRTC (the disk cache keyed by its source), linked where it calls declared device functions or
    links files, and loaded."""
    name, source, links, argtypes = (
        specialisation.name,
        specialisation.source,
        specialisation.links,
        specialisation.argtypes,
    )
    flags = nvrtc_options_of(options)
    disk_cache = bool(options.get("cache"))
    if links is None:
        module = compiler.SourceModule(source, options=flags, name=file_name, disk_cache=disk_cache)
        return module.get_function(name)
    # relocatable code, linked by the driver with the files it needs
    from numba_cuda_c.toolchain import linker  # loaded by kernels that link only

    for item in links:
        linker.check_link_item(item)  # numba's errors first, before compiling
    linked = compiler.compile_image(source, flags + ["-rdc=true"], name=file_name, disk_cache=disk_cache)
    linked = linker.link_kernel(linked, links, options.get("max_registers") or 0, bool(options.get("lineinfo")))
    with_callbacks = linker.has_callbacks(links)
    if with_callbacks:

        def forget():  # the registry of such loads must not keep the dispatcher alive: on_reset is weak
            method = on_reset()
            if method is not None:
                method(argtypes)

        return linker.load_with_callbacks(linked, with_callbacks, name, forget)
    return compiler.load_module(linked).get_function(name)


def _set_up(kernel, specialisation, options):
    """The kernel, set up for its launch flags and the shared_memory_carveout option."""
    if "cooperative" in specialisation.launch_flags:  # its code syncs the grid
        kernel._set_cooperative(True)
    if "deep_stack" in specialisation.launch_flags:  # recursive device functions
        kernel._set_min_stack_size(RECURSION_STACK_BYTES)
    carveout = options.get("shared_memory_carveout")
    if carveout is not None:
        kernel.set_shared_memory_carveout(CARVEOUTS.get(str(carveout).lower(), carveout))
    return kernel


def _log_slow_compile(name, argtypes, seconds):
    if seconds >= SLOW_COMPILE_SECONDS:
        import logging

        logging.getLogger("numba_cuda_c").info(
            "compiled and loaded kernel %s(%s) in %.1f s", name, ", ".join(map(str, argtypes)), seconds
        )
