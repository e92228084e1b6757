"""Where the CUDA toolkit libraries (NVRTC, the runtime, libNVVM and libdevice) are looked for, in order.

CUDA_HOME / CUDA_PATH, the active conda prefix, NVIDIA's pip wheels in site-packages,
/usr/local/cuda, then (in C) the dynamic loader's own path. Asked once, by src/launch/nvrtc.c.
"""

import os
import site
import sys

_WHEEL_SUBDIRS = ("cu13", "cu12", "cuda_nvrtc", "cuda_runtime")


def _site_dirs():
    dirs = list(sys.path)
    try:
        dirs += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:  # virtualenvs of old
        pass
    return [d for d in dirs if d and os.path.isdir(os.path.join(d, "nvidia"))]


def candidate_dirs():
    """The directories to search for libnvrtc and libcudart, existing ones only, best first."""
    found = []

    def add(path):
        if path and os.path.isdir(path) and path not in found:
            found.append(path)

    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = os.environ.get(var)
        if root:
            add(os.path.join(root, "lib64"))
            add(os.path.join(root, "lib"))
    conda = os.environ.get("CONDA_PREFIX")
    if conda:
        add(os.path.join(conda, "lib"))
    for base in _site_dirs():
        for sub in _WHEEL_SUBDIRS:
            add(os.path.join(base, "nvidia", sub, "lib"))
    add("/usr/local/cuda/lib64")
    return found


def include_dirs():
    """Directories holding CUDA's own headers (cuda_fp16.h, ...) for NVRTC, existing ones only."""
    found = []
    roots = [os.environ.get(var) for var in ("CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX")]
    candidates = [os.path.join(root, "include") for root in roots if root]
    for base in _site_dirs():
        for sub in _WHEEL_SUBDIRS:
            candidates.append(os.path.join(base, "nvidia", sub, "include"))
    candidates.append("/usr/local/cuda/include")
    for path in candidates:
        if os.path.isfile(os.path.join(path, "cuda_fp16.h")) and path not in found:
            found.append(path)
            cccl = os.path.join(
                path, "cccl"
            )  # CUDA 13 keeps libcu++ (cuda/std/...) here: cooperative_groups.h needs it
            if os.path.isdir(os.path.join(cccl, "cuda", "std")):
                found.append(cccl)
    return found


def _toolkit_roots():
    """Folders that may hold a toolkit's nvvm/ folder, best first (the order of candidate_dirs)."""
    roots = [os.environ.get(var) for var in ("CUDA_HOME", "CUDA_PATH", "CONDA_PREFIX")]
    for base in _site_dirs():
        roots += [os.path.join(base, "nvidia", sub) for sub in ("cu13", "cu12", "cuda_nvcc")]
    roots.append("/usr/local/cuda")
    return [root for root in roots if root]


def nvvm_dirs():
    """Directories that may hold libnvvm, existing ones only, best first: a toolkit's nvvm/lib64, and the library
    directories of candidate_dirs() (CUDA 13's wheels, and toolkits assembled from them, keep it beside NVRTC)."""
    found = []
    for root in _toolkit_roots():
        for sub in ("lib64", "lib"):
            path = os.path.join(root, "nvvm", sub)
            if os.path.isdir(path) and path not in found:
                found.append(path)
    return found + [path for path in candidate_dirs() if path not in found]


def libdevice_path():
    """libdevice.10.bc of the first toolkit that has one, or None."""
    for root in _toolkit_roots():
        path = os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")
        if os.path.isfile(path):
            return path
    return None
