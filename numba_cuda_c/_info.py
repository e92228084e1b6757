"""`python -m numba_cuda_c --info`: what numba_cuda_c finds on this machine, as numba's `numba -s` and
`cuda.detect()` report it. Each part says why where it finds nothing (no driver, no NVRTC, no device), and none
of it raises: it prints on a machine with no GPU."""

import os
import platform
import sys

# settings read from the environment (README's list), shown where set
_VARIABLES = (
    "NUMBA_CUDA_DRIVER",
    "NUMBA_DISABLE_CUDA",
    "NUMBA_ENABLE_CUDASIM",
    "NUMBA_CUDA_C_AS_NUMBA_CUDA",
    "NUMBA_CUDA_C_CACHE",
    "NUMBA_CUDA_C_CACHE_DIR",
    "NUMBA_CUDA_C_STAGING_THRESHOLD",
    "NUMBA_CUDA_MEMORY_MANAGER",
    "NUMBA_CUDA_PER_THREAD_DEFAULT_STREAM",
    "NUMBA_CUDA_ARRAY_INTERFACE_SYNC",
    "NUMBA_CUDA_DEBUGINFO",
    "NUMBA_OPT",
    "CUDA_HOME",
    "CUDA_PATH",
    "CONDA_PREFIX",
    "CUDA_VISIBLE_DEVICES",
)


def _loaded_library(marker):
    """The path of the loaded shared library whose name contains `marker` (/proc/self/maps), or None."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(None, 5)[-1].strip()
                if marker in os.path.basename(path):
                    return path
    except OSError:
        pass
    return None


def _distribution_version(name):
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _alias_state(package_dir):
    from numba_cuda_c import alias

    import site

    pth = os.path.join(os.path.dirname(package_dir), "numba_cuda_c_alias.pth")
    site_dirs = site.getsitepackages() + [site.getusersitepackages()] if hasattr(site, "getsitepackages") else []
    installed_pth = os.path.exists(pth) and any(
        os.path.realpath(d) == os.path.realpath(os.path.dirname(pth)) for d in site_dirs
    )
    if os.environ.get("NUMBA_CUDA_C_AS_NUMBA_CUDA") == "1":
        if alias.installed() or alias.pending():
            return "on: NUMBA_CUDA_C_AS_NUMBA_CUDA=1, numba.cuda is numba_cuda_c in every Python process"
        return (
            "NUMBA_CUDA_C_AS_NUMBA_CUDA=1 is set, but has no effect: no numba_cuda_c_alias.pth beside the package"
            " (%s; an editable install has none): run programs with `python -m numba_cuda_c program.py`" % pth
        )
    if installed_pth:
        return "off (NUMBA_CUDA_C_AS_NUMBA_CUDA=1 turns it on for every process; the .pth file is installed)"
    return "off (python -m numba_cuda_c program.py aliases one program; this install has no .pth file)"


def _devices(_cuda, write):
    devices = _cuda.list_devices()
    if not devices:
        write("Devices", "none: the driver reports no CUDA device")
        return
    write("Devices", "%d" % len(devices))
    for dev in devices:
        cc = dev.compute_capability
        support = "supported" if cc >= (5, 0) else "not supported: compute capability under 5.0"
        write(
            "  %d" % dev.id,
            "%s, compute capability %d.%d, PCI bus %s, %s" % (dev.name, cc[0], cc[1], dev.PCI_BUS_ID, support),
        )


def report(out):
    """Prints the report on `out`."""

    def write(key, value):
        out.write("%-18s %s\n" % (key + ":", value))

    def part(key, fill):
        try:
            fill()
        except Exception as error:  # noqa: BLE001 - each part says what failed, and the rest still prints
            write(key, "%s: %s" % (type(error).__name__, error))

    from numba_cuda_c._version import __version__

    package_dir = os.path.dirname(os.path.abspath(__file__))
    write("numba_cuda_c", "%s (%s)" % (__version__, package_dir))
    write("Python", "%s %s" % (platform.python_implementation(), sys.version.split()[0]))
    write("Platform", "%s %s %s" % (platform.system(), platform.release(), platform.machine()))
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        write("Simulator", "on: NUMBA_ENABLE_CUDASIM=1, kernels run on the CPU (the driver below is not used)")

    from numba_cuda_c import _cuda

    def driver():
        why = _cuda._driver_error()
        if why is not None:
            write("CUDA driver", "not available: %s" % why)
            write("Devices", "none (no driver)")
            return
        major, minor = _cuda.driver_get_version()
        path = os.environ.get("NUMBA_CUDA_DRIVER") or _loaded_library("libcuda.so")
        write("CUDA driver", "CUDA %d.%d (%s)" % (major, minor, path or "libcuda"))
        part("Devices", lambda: _devices(_cuda, write))

    def nvrtc():
        try:
            major, minor = _cuda.nvrtc_version()
        except Exception as error:  # noqa: BLE001 - not found: said, not raised
            write("NVRTC", "not available: %s" % error)
            return
        write("NVRTC", "%d.%d (%s)" % (major, minor, _loaded_library("libnvrtc") or "libnvrtc"))

    def runtime():
        version = _cuda._cudart_version()
        if version is None:
            write("CUDA runtime", "not found (not needed: NVRTC compiles, the driver runs)")
        else:
            write(
                "CUDA runtime", "%d.%d (%s)" % (version[0], version[1], _loaded_library("libcudart") or "libcudart")
            )

    def cache():
        from numba_cuda_c.toolchain import compiler

        state = "on" if compiler._disk_cache_enabled() else "off (NUMBA_CUDA_C_CACHE=0)"
        write("Disk cache", "%s, %s" % (compiler.cache_dir(), state))

    part("CUDA driver", driver)
    part("NVRTC", nvrtc)
    part("CUDA runtime", runtime)
    part("Disk cache", cache)
    part("Alias", lambda: write("Alias", _alias_state(package_dir)))

    def packages():
        for name in ("numpy", "numba", "numba-cuda", "cuda-python", "cuda-core", "cupy", "torch"):
            version = _distribution_version(name)
            if version is not None or name in ("numpy", "numba", "numba-cuda"):
                write(name, version or "not installed")

    part("Packages", packages)
    settings = ["%s=%s" % (name, os.environ[name]) for name in _VARIABLES if name in os.environ]
    write("Environment", ", ".join(settings) if settings else "none of numba_cuda_c's variables is set")
