"""numba.cuda.cudadrv's dotted paths: driver, devices, devicearray, runtime, error."""
