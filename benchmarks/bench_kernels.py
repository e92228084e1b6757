"""GPU time of the same @cuda.jit kernels compiled by numba_cuda_c and by numba-cuda, side by side.

    python3 benchmarks/bench_kernels.py [--quick]

Each kernel (matrix multiply with shared memory, a block reduction, a 2-D stencil: numba's
documentation examples; a warp-shuffle reduction; Monte Carlo pi with numba's random numbers; a @vectorize
ufunc called on device arrays with out=, its launch included; benchmarks/kernels_source.py; the rows with copies time them too, the same for both) runs on the same inputs through both
compilers; its time is taken with CUDA events around a batch of launches, median of several
batches. The results are checked against each other. Ratio above 1: ours is faster.
"""

import argparse
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels_source  # noqa: E402


def load(name):
    """The library and its random module."""
    if name == "ours":
        import numba_cuda_c as cuda
        from numba_cuda_c import random

        return cuda, random
    numpy_module = __import__("numpy")
    numpy_module.row_stack = numpy_module.vstack  # numba-cuda 0.30 under NumPy 2.5
    from numba import cuda
    from numba.cuda import random

    return cuda, random


def cases(cuda, random, rng_seed=1):
    rng = np.random.default_rng(rng_seed)
    n = 2048
    A = cuda.to_device(rng.random((n, n), dtype=np.float32))
    B = cuda.to_device(rng.random((n, n), dtype=np.float32))
    C = cuda.device_array((n, n), np.float32)
    tiles = n // kernels_source.TPB
    a = cuda.to_device(rng.random(1 << 27, dtype=np.float32))  # 512 MiB: long enough to time steadily
    partial = cuda.device_array(1024, np.float32)
    grid = cuda.to_device(rng.random((4096, 4096), dtype=np.float32))
    out = cuda.to_device(np.zeros((4096, 4096), np.float32))
    matmul, reduce_sum, stencil, warp_reduce = kernels_source.make(cuda)
    warp_partial = cuda.to_device(np.zeros(1024, np.float32))

    def warp_reduction():
        warp_partial.copy_to_device(np.zeros(1024, np.float32))  # the atomics add to it: start from 0 each time
        warp_reduce[1024, kernels_source.BLOCK](a, warp_partial)

    threads = 1 << 16
    states = random.create_xoroshiro128p_states(threads, seed=7)
    hits = cuda.device_array(threads, np.int32)
    monte_carlo = kernels_source.make_monte_carlo(cuda, random)

    def pi():
        states.copy_to_device(initial_states)  # the same numbers each launch (the draws advance the states)
        monte_carlo[threads // 256, 256](states, 256, hits)

    initial_states = states.copy_to_host()
    length = kernels_source.make_ufunc(cuda)
    xs, ys = a[: 1 << 26], a[1 << 26 :]  # 64 Mi pairs
    lengths = cuda.device_array(1 << 26, np.float32)
    return [
        ("matmul shared 2048^2", lambda: matmul[(tiles, tiles), (16, 16)](A, B, C), C),
        ("reduction 128 Mi f32", lambda: reduce_sum[1024, kernels_source.BLOCK](a, partial), partial),
        ("stencil 4096^2", lambda: stencil[(256, 256), (16, 16)](grid, out), out),
        ("warp-shuffle reduction", warp_reduction, warp_partial),
        ("Monte Carlo pi, 16 Mi", pi, hits),
        ("@vectorize ufunc, 64 Mi", lambda: length(xs, ys, out=lengths), lengths),
    ]


def time_ms(cuda, launch, repeat, batch):
    launch()
    cuda.synchronize()
    samples = []
    for _ in range(repeat):
        start, end = cuda.event(), cuda.event()
        start.record()
        for _ in range(batch):
            launch()
        end.record()
        end.synchronize()
        samples.append(cuda.event_elapsed_time(start, end) / batch)
    return statistics.median(samples)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    repeat, batch = (3, 5) if args.quick else (7, 20)
    results = {}
    for name in ("ours", "numba"):
        try:
            cuda, random = load(name)
            results[name] = {}
            for label, launch, output in cases(cuda, random):
                results[name][label] = (time_ms(cuda, launch, repeat, batch), output.copy_to_host())
        except Exception as exc:  # noqa: BLE001 -- a library missing: its column says why
            results[name] = exc
    print("\nGPU time per launch (ms, median of %d batches of %d; CUDA events)" % (repeat, batch))
    print("%-24s %12s %12s %12s  %s" % ("kernel", "numba_cuda_c", "numba-cuda", "numba/ours", "same result"))
    labels = (
        "matmul shared 2048^2",
        "reduction 128 Mi f32",
        "stencil 4096^2",
        "warp-shuffle reduction",
        "Monte Carlo pi, 16 Mi",
        "@vectorize ufunc, 64 Mi",
    )
    for label in labels:
        cells = []
        for name in ("ours", "numba"):
            r = results[name]
            cells.append(r[label] if isinstance(r, dict) else None)
        ours, theirs = cells
        ratio = "%.2fx" % (theirs[0] / ours[0]) if ours and theirs else "—"
        same = "—"
        if ours and theirs:
            same = "yes" if np.allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-3) else "NO"
        print(
            "%-24s %12s %12s %12s  %s"
            % (label, "%.3f" % ours[0] if ours else "—", "%.3f" % theirs[0] if theirs else "—", ratio, same)
        )
    for name, r in results.items():
        if not isinstance(r, dict):
            print("%s: not measured: %s: %s" % (name, type(r).__name__, r))


if __name__ == "__main__":
    main()
