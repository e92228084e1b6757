"""sitecustomize.py of a conformance tree (on PYTHONPATH of both runs, so child processes that tests spawn get it
too): numba-cuda 0.30 calls numpy.row_stack, which NumPy 2.5 removed."""

try:
    import numpy
except ImportError:
    pass
else:
    if not hasattr(numpy, "row_stack"):
        numpy.row_stack = numpy.vstack
