"""numba.cuda.cudadrv's dotted paths: driver, devices, devicearray, runtime, error.

Each submodule is imported when first asked for as an attribute (`numba_cuda_c.cudadrv.driver` right after
`import numba_cuda_c`, as numba's package has it), not with the package."""


def __getattr__(name):
    import importlib
    import importlib.util

    try:
        spec = importlib.util.find_spec(__name__ + "." + name) if not name.startswith("__") else None
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    return importlib.import_module(__name__ + "." + name)
