"""numba.cuda.kernels.transpose: a 2-d array's transpose into another device array, on the GPU."""

import numba_cuda_c as cuda

TILE = 32  # a block transposes a TILE x TILE tile through shared memory (one column of padding: no bank conflicts)


@cuda.jit
def _transpose_tiles(source, target):
    tile = cuda.shared.array(shape=(TILE, TILE + 1), dtype=source.dtype)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    column0, row0 = cuda.blockIdx.x * TILE, cuda.blockIdx.y * TILE
    if row0 + ty < source.shape[0] and column0 + tx < source.shape[1]:  # read a tile of rows, coalesced
        tile[ty, tx] = source[row0 + ty, column0 + tx]
    cuda.syncthreads()
    if column0 + ty < target.shape[0] and row0 + tx < target.shape[1]:  # write it back as columns, coalesced
        target[column0 + ty, row0 + tx] = tile[tx, ty]


def transpose(a, b=None):
    """Writes the transpose of the 2-d array `a` into `b` and returns `b`; without `b`, into a new C-order device
    array. `a` is a device array (or anything cuda.to_device takes); its stream, if it has one, runs the kernel."""
    stream = getattr(a, "stream", 0)
    if len(a.shape) != 2:
        raise ValueError("transpose() takes a 2-d array, not one of %d dimensions" % len(a.shape))
    rows, columns = a.shape
    if b is None:
        b = cuda.device_array((columns, rows), dtype=a.dtype, stream=stream)
    elif tuple(b.shape) != (columns, rows):
        raise ValueError(
            "the transpose of a %dx%d array is %dx%d, not %s" % (rows, columns, columns, rows, tuple(b.shape))
        )
    if a.size:
        blocks = ((columns + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
        _transpose_tiles[blocks, (TILE, TILE), stream](a, b)
    return b
