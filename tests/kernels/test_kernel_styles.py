"""Kernels written in the styles scientific code uses, which the translator must take as numba does:
double buffering (a variable assigned in both branches of an `if`, used after it), non-ASCII names
(ρ, μ_Q, Σ_T), early returns, nested loops with break and for/while ... else, local arrays made in a
branch. Each compiles with NVRTC (in CI) and computes what the same Python function computes (GPU)."""

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import float64
from numba_cuda_c.pyjit import KernelTypeError


def double_buffer(a, b, steps):
    i = cuda.grid(1)
    for j in range(steps):
        if j % 2 == 0:
            out = b
            inp = a
        else:
            out = a
            inp = b
        if i < out.size:
            out[i] = inp[i] * 2 + 1
        cuda.syncthreads()


def unicode_names(ρ, μ_Q, σ_Q):
    i = cuda.grid(1)
    if i < ρ.size:
        Σ_T = 0.0
        for k in range(3):
            Σ_T += μ_Q[i] * k
        ρ[i] = Σ_T / σ_Q[i]


def u_ρ(x):  # an ASCII spelling of what the name above could be escaped to must not clash
    return x


def unicode_and_ascii(out, u_x3c1_, ρ):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = u_x3c1_[i] + 10 * ρ[i]


def find_pair(a, out):
    i = cuda.grid(1)
    if i >= out.size:
        return
    found = -1
    for r in range(a.shape[0]):
        for c in range(a.shape[1]):
            if a[r, c] == i:
                found = r * a.shape[1] + c
                break
        else:
            continue
        break
    else:
        found = -2  # the outer loop ran to its end: i is nowhere
    k = 0
    while k < 3:
        if found == -2:
            break
        k += 1
    else:
        found += 1000
    out[i] = found


def local_in_branch(out, flag):
    i = cuda.grid(1)
    if flag:
        tmp = cuda.local.array(4, float64)
        for k in range(4):
            tmp[k] = k + i
    else:
        tmp = cuda.local.array(4, float64)
        for k in range(4):
            tmp[k] = -k
    s = 0.0
    for k in range(4):
        s += tmp[k]
    if i < out.size:
        out[i] = s


KERNELS = [
    (double_buffer, "void(float64[:], float64[:], int64)"),
    (unicode_names, "void(float64[:], float64[:], float64[:])"),
    (unicode_and_ascii, "void(int64[:], int64[:], int64[:])"),
    (find_pair, "void(int64[:, :], int64[:])"),
    (local_in_branch, "void(float64[:], boolean)"),
]


@needs_nvrtc
@pytest.mark.parametrize("func, sig", KERNELS, ids=[k[0].__name__ for k in KERNELS])
def test_compiles(func, sig):
    ptx, _ = cuda.compile_ptx(func, sig)
    assert ".entry" in ptx


def test_non_ascii_names_are_escaped_one_to_one():
    import ast

    from numba_cuda_c.pyjit.names import ascii_locals

    tree = ast.parse("def f(ρ, u_x3c1_):\n    μ_Q = ρ + u_x3c1_\n    Σ = μ_Q\n    return glob_ρ(Σ)\n")
    ascii_locals(tree.body[0])
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {a.arg for a in tree.body[0].args.args}
    assert "glob_ρ" in names  # a global: looked up in Python, kept
    local = names - {"glob_ρ"}
    assert all(n.isascii() for n in local) and len(local) == 4, local  # ρ, u_x3c1_, μ_Q, Σ: four distinct


@cuda.jit(device=True)
def twice(v):
    return v * 2


def widening_accumulator(out):
    x = 0  # an int first; a float once x + 0.5 is seen: the typing passes call twice() with both
    for i in range(3):
        out[i] = twice(x)
        x = x + 0.5


def test_only_the_device_functions_called_are_emitted():
    """A callee asked for with a provisional type during typing (twice(int64) here) is not emitted:
    only the variants the final code calls are."""
    from numba_cuda_c import types
    from numba_cuda_c.pyjit.translate import translate_kernel

    source = translate_kernel(widening_accumulator, [types.Array(types.float64, 1, "A")], "k")
    definitions = [
        line
        for line in source.splitlines()
        if line.startswith("__device__") and "twice" in line and line.endswith("{")
    ]
    assert len(definitions) == 1 and "double v_v" in definitions[0], definitions


@requires_gpu
def test_results_match_python():
    n = 64
    a0 = np.arange(n, dtype=np.float64)
    a, b = cuda.to_device(a0), cuda.device_array(n)
    cuda.jit(double_buffer)[1, n](a, b, 3)
    host_a, host_b = a0.copy(), np.zeros(n)
    for j in range(3):  # what the kernel does, step by step
        if j % 2 == 0:
            host_b = host_a * 2 + 1
        else:
            host_a = host_b * 2 + 1
    assert np.array_equal(a.copy_to_host(), host_a) and np.array_equal(b.copy_to_host(), host_b)

    μ = np.linspace(1, 2, n)
    σ = np.linspace(2, 3, n)
    ρ = cuda.device_array(n)
    cuda.jit(unicode_names)[1, n](ρ, μ, σ)
    assert np.allclose(ρ.copy_to_host(), μ * 3 / σ)

    x, y = np.arange(n), np.arange(n) * 3
    out = cuda.device_array(n, np.int64)
    cuda.jit(unicode_and_ascii)[1, n](out, x, y)
    assert np.array_equal(out.copy_to_host(), x + 10 * y)

    grid = np.arange(12, dtype=np.int64).reshape(3, 4) * 2
    out = cuda.device_array(32, np.int64)
    cuda.jit(find_pair)[1, 32](grid, out)
    want = [(int(np.flatnonzero(grid.ravel() == i)[0]) + 1000 if i in grid else -2) for i in range(32)]
    assert out.copy_to_host().tolist() == want

    out = cuda.device_array(8)
    k = cuda.jit(local_in_branch)
    k[1, 8](out, True)
    assert out.copy_to_host().tolist() == [6.0 + 4 * i for i in range(8)]
    k[1, 8](out, False)
    assert out.copy_to_host().tolist() == [-6.0] * 8


add_lambda = cuda.jit(device=True)(lambda a, b: a + b)


def calls_a_lambda(out, x):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = add_lambda(x[i], 1.0)


def counts_bits(out, x, y):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = x[i].bit_count() * 100 + y[i].bit_count()


@needs_nvrtc
def test_lambdas_and_bit_counts_compile():
    ptx, _ = cuda.compile_ptx(calls_a_lambda, (float64[:], float64[:]))
    assert ".entry" in ptx
    ptx, _ = cuda.compile_ptx(counts_bits, (cuda.int64[:], cuda.int32[:], cuda.uint8[:]))
    assert "popc" in ptx


@requires_gpu
def test_lambda_reduce_and_bit_counts():
    total = cuda.Reduce(lambda a, b: a + b)
    assert total(np.arange(1.0, 101.0)) == 5050.0
    x = np.array([0, 1, -1, 255, -256, 2**40], dtype=np.int64)
    y = np.array([0, 1, 2, 3, 255, 128], dtype=np.uint8)
    out = np.zeros(6, dtype=np.int64)
    cuda.jit(counts_bits)[1, 6](out, x, y)
    np.testing.assert_array_equal(out, [int(a).bit_count() * 100 + int(b).bit_count() for a, b in zip(x, y)])


GENERATED = """
def generated(r0, r1, a0, ary, idx):
    ret = libdevice.sincos(a0)
    r0[0], r1[0] = ret
    cuda.atomic.add(ary, idx[cuda.threadIdx.x] % 4, -a0 * 2)
"""

GENERATED_LOOP = """
def generated_loop(ary):
    for i in range(3):
        ary[i] = i
"""


def test_kernels_made_with_exec_are_rebuilt_from_bytecode():
    """Code generators (and numba's tests) make kernels with exec: there is no source to read, so
    straight-line functions (and their `if` statements: test_bytecode_kernels.py) are rebuilt from their bytecode;
    others are refused, saying why."""
    from numba_cuda_c import libdevice, types
    from numba_cuda_c.pyjit.translate import translate_kernel

    namespace = {"cuda": cuda, "libdevice": libdevice}
    exec(GENERATED, namespace)
    f8 = types.Array(types.float64, 1, "A")
    source = translate_kernel(
        namespace["generated"], [f8, f8, types.float64, f8, types.Array(types.int64, 1, "A")], "k"
    )
    assert "__nv_sincos(" in source and "atomicAdd" in source
    exec(GENERATED_LOOP, namespace)
    with pytest.raises(
        KernelTypeError, match="more than straight-line code and `if` statements .*define the function in a file"
    ):
        translate_kernel(namespace["generated_loop"], [f8], "k")


TUPLE_RETURNING_LIBDEVICE = [  # name, argument types, result types
    ("sincos", ["float64"], ["float64", "float64"]), ("sincosf", ["float32"], ["float32", "float32"]),
    ("sincospi", ["float64"], ["float64", "float64"]), ("sincospif", ["float32"], ["float32", "float32"]),
    ("fast_sincosf", ["float32"], ["float32", "float32"]), ("frexp", ["float64"], ["float64", "int32"]),
    ("frexpf", ["float32"], ["float32", "int32"]), ("modf", ["float64"], ["float64", "float64"]),
    ("modff", ["float32"], ["float32", "float32"]), ("remquo", ["float64", "float64"], ["float64", "int32"]),
    ("remquof", ["float32", "float32"], ["float32", "int32"]),
]  # fmt: skip


@needs_nvrtc
@pytest.mark.parametrize("name, args, results", TUPLE_RETURNING_LIBDEVICE)
def test_libdevice_functions_returning_tuples_compile(name, args, results):
    # numba's libdevice functions with pointer outputs return tuples: (r0, r1) = libdevice.frexp(x)
    from numba_cuda_c import libdevice, types

    params = ", ".join("a%d" % k for k in range(len(args)))
    code = "def generated(r0, r1, %s):\n    ret = libdevice.%s(%s)\n    r0[0], r1[0] = ret\n" % (
        params,
        name,
        params,
    )
    namespace = {"libdevice": libdevice}
    exec(code, namespace)
    signature = [getattr(types, r)[::1] for r in results] + [getattr(types, a) for a in args]
    ptx, _ = cuda.compile_ptx(namespace["generated"], signature)
    assert "ld.param" in ptx and "st.global" in ptx
