"""The settings of numba's configuration that change what numba_cuda_c does on the host, under numba's names,
read from numba's environment variables when this module is first imported (it is imported on first use,
not with the package)::

    CUDA_LOW_OCCUPANCY_WARNINGS    NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS  1  warn when a grid has under 128 blocks
    CUDA_WARN_ON_IMPLICIT_COPY     NUMBA_CUDA_WARN_ON_IMPLICIT_COPY   1  warn when a launch copies a host array
    DISABLE_PERFORMANCE_WARNINGS   NUMBA_DISABLE_PERFORMANCE_WARNINGS 0  no NumbaPerformanceWarning at all
    CUDA_DEBUGINFO_DEFAULT         NUMBA_CUDA_DEBUGINFO               0  @cuda.jit's debug= when not given
    OPT                            NUMBA_OPT                          3  0: @cuda.jit's opt= is False when not given
    CUDA_ARRAY_INTERFACE_SYNC      NUMBA_CUDA_ARRAY_INTERFACE_SYNC    1  wait for a CUDA-array-interface object's stream
                                                                         (read by the C launcher and CAI imports)
    ENABLE_CUDASIM                 NUMBA_ENABLE_CUDASIM               0  1: the package is the CUDA simulator (read
                                                                         when numba_cuda_c is imported)

Assigning to this module's attributes changes them while the program runs. Where numba-cuda's own configuration
module is loaded (numba.cuda.core.config: a program that also uses numba, or a test harness that sets it), its
live values are the ones read, so that one setting governs both libraries. numba is never imported here.
"""

import os
import sys
import warnings

_NUMBA_CONFIG_MODULES = ("numba.cuda.core.config", "numba.core.config")
_ENVIRONMENT = {  # name -> (environment variable, default)
    "CUDA_LOW_OCCUPANCY_WARNINGS": ("NUMBA_CUDA_LOW_OCCUPANCY_WARNINGS", 1),
    "CUDA_WARN_ON_IMPLICIT_COPY": ("NUMBA_CUDA_WARN_ON_IMPLICIT_COPY", 1),
    "DISABLE_PERFORMANCE_WARNINGS": ("NUMBA_DISABLE_PERFORMANCE_WARNINGS", 0),
    "CUDA_DEBUGINFO_DEFAULT": ("NUMBA_CUDA_DEBUGINFO", 0),
    "OPT": ("NUMBA_OPT", 3),
    "CUDA_ARRAY_INTERFACE_SYNC": ("NUMBA_CUDA_ARRAY_INTERFACE_SYNC", 1),
    "ENABLE_CUDASIM": ("NUMBA_ENABLE_CUDASIM", 0),
}


def _from_environment(variable, default):
    text = os.environ.get(variable, "")
    if not text:
        return default
    if variable == "NUMBA_OPT" and text == "max":  # numba's highest level
        return 3
    try:
        return int(text)
    except ValueError:
        warnings.warn(
            "Environment variable '%s' is defined but its associated value '%s' could not be parsed: expected an "
            "integer; using the default, %s" % (variable, text, default),
            RuntimeWarning,
            stacklevel=3,
        )
        return default


for _name, (_variable, _default) in _ENVIRONMENT.items():
    globals()[_name] = _from_environment(_variable, _default)


def get(name):
    """The setting `name`: numba's live value where its configuration module is loaded, else ours."""
    for module_name in _NUMBA_CONFIG_MODULES:
        numba_config = sys.modules.get(module_name)
        if numba_config is not None and hasattr(numba_config, name):
            return getattr(numba_config, name)
    return globals()[name]


def performance_warnings(name):
    """Whether the performance warning that setting `name` governs is on."""
    return bool(get(name)) and not get("DISABLE_PERFORMANCE_WARNINGS")
