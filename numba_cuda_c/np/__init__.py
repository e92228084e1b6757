"""numba.cuda.np's user-facing part: numpy_support (types to dtypes and back)."""
