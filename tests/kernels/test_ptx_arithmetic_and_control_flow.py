"""The PTX of arithmetic and control flow in kernels, compiled by NVRTC without a GPU (cuda.compile_ptx):
math functions, bit intrinsics, Python's integer division, powers, casts, abs/round/min/max, loops, early
returns, slices, array attributes, device function calls, variables unified across assignments, tuple
swaps, conditional expressions, augmented assignment and grid-stride loops.

The kernels live at module level: the translator reads their source with inspect.
"""

import math
import re

import numpy as np
import pytest

import numba_cuda_c as cuda
from compile_ptx_helpers import SIG, _private_cache, body_of, ptx_of, returned_constant, translated  # noqa: F401  (a fixture)
from numba_cuda_c import _cuda, float32, types

try:
    _cuda.nvrtc_version()
except cuda.NvrtcError:
    pytest.skip("NVRTC is not installed", allow_module_level=True)


# ---------------------------------------------------------------------------------------------
# Kernels: one construct each
# ---------------------------------------------------------------------------------------------


def k_sqrt(a, n):
    a[0] = math.sqrt(a[1])


def k_exp_f32(a, n):
    a[0] = math.exp(a[1])


def k_tanh(a, n):
    a[0] = math.tanh(a[1])


def k_transcendental(a, n):
    a[0] = math.sin(a[1]) + math.cos(a[2]) + math.tanh(a[3]) + math.log(a[4])


def k_floor(a, n):
    a[0] = math.floor(a[1]) + math.ceil(a[2])


def k_isnan(a, n):
    if math.isnan(a[1]):
        a[0] = 1.0
    if math.isinf(a[2]):
        a[0] = 2.0


def k_fma(a, n):
    a[0] = cuda.fma(a[1], a[2], a[3])


def k_bits32(a, n):
    a[0] = cuda.popc(a[1]) + cuda.brev(a[2]) + cuda.clz(a[3])


def k_bits64(a, n):
    a[0] = cuda.popc(n) + cuda.clz(n)
    a[1] = cuda.brev(n)


def k_int_ops(a, n):
    a[0] = n // a[1]
    a[1] = n % a[2]


def k_true_divide(a, n):
    a[0] = n / a[1]


def k_pow(a, n):
    a[0] = a[1] ** a[2]
    a[3] = a[4] ** 2


def k_ipow(a, n):
    a[0] = n ** a[1]


def k_casts(a, n):
    a[0] = int(a[1])
    a[1] = float(n)
    a[2] = cuda.float32(n) + np.float32(n)
    a[3] = cuda.int32(a[4])


def k_abs_round(a, n):
    a[0] = abs(a[1])
    a[2] = round(a[3])


def k_min_max(a, n):
    a[0] = min(a[1], a[2])
    a[3] = max(a[4], a[5], a[6])


def k_loops(a, n):
    i = 0
    total = 0.0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        elif i > 100:
            break
        else:
            total += a[i]
    for j in range(n - 1, -1, -2):
        total -= a[j]
    a[0] = total


def k_early_return(a, n):
    i = cuda.grid(1)
    if i >= n:
        return
    a[i] = 1.0


def k_slices(a, n):
    row = a[1]
    tail = row[1:5]
    every_other = a[0, ::2]
    tail[0] = every_other[1] + a[-1, -1]


def k_attributes(a, n):
    a[0, 0] = a.shape[0] + a.shape[1] * 10 + a.size * 100 + a.ndim * 1000 + len(a)


@cuda.jit(device=True)
def d_square(x):
    return x * x


@cuda.jit(device=True)
def d_sum_of_squares(x, y):
    return d_square(x) + d_square(y)


def k_calls_device(a, n):
    i = cuda.grid(1)
    if i < n:
        a[i] = d_sum_of_squares(a[i], float32(2))


def k_unify(a, n):
    x = 1
    if n > 2:
        x = 2.5
    a[0] = x


def k_swap(a, n):
    x, y = a[0], a[1]
    x, y = y, x
    a[0] = x
    a[1] = y


def k_ternary_bool(a, n):
    flag = n > 3 and not (n == 7 or n < 0)
    a[0] = 1.0 if flag else -1.0


def k_aug_element(a, n):
    a[0] += 1.5
    a[1] *= a[2]
    a[2] //= 2.0


# ---------------------------------------------------------------------------------------------
# PTX of each construct
# ---------------------------------------------------------------------------------------------


def test_math_sqrt_float32_and_float64():
    assert "sqrt.rn.f32" in ptx_of(k_sqrt)
    assert "sqrt.rn.f64" in ptx_of(k_sqrt, "void(float64[:], int64)")
    # fastmath: the approximate square root
    assert "sqrt.approx" in ptx_of(k_sqrt, fastmath=True)


def test_math_exp_float32_stays_single_precision():
    body = body_of(ptx_of(k_exp_f32), "k_exp_f32")
    assert "ex2.approx" in body
    assert ".f64" not in body  # expf, not exp


def test_math_transcendentals():
    body = body_of(ptx_of(k_transcendental), "k_transcendental")
    assert "sin.approx" not in body and "cos.approx" not in body  # sinf, cosf: precise without fastmath
    assert "ld.global.f32" in body and "st.global.f32" in body
    fast = body_of(ptx_of(k_transcendental, fastmath=True), "k_transcendental")
    assert "sin.approx" in fast and "cos.approx" in fast and "lg2.approx" in fast


def test_math_tanh_fastmath_is_ptx_approximation():
    # numba-cuda: a float32 tanh with fastmath is tanh.approx.f32 from compute capability 7.5 on; a float64 is libdevice's
    assert "tanh.approx.f32 " not in ptx_of(k_tanh)
    assert "tanh.approx.f32 " in ptx_of(k_tanh, fastmath=True)
    assert "tanh.approx.f32 " in ptx_of(k_tanh, fastmath=True, cc=(7, 5))
    assert "tanh.approx" not in ptx_of(k_tanh, "void(float64[:], int64)", fastmath=True)


def test_math_floor_ceil():
    body = body_of(ptx_of(k_floor), "k_floor")
    assert "cvt.rmi" in body and "cvt.rpi" in body


def test_math_isnan_isinf():
    source = translated(k_isnan, SIG)
    assert "isnan(" in source and "isinf(" in source
    body = body_of(ptx_of(k_isnan), "k_isnan")
    assert "0f7F800000" in body  # compared with infinity


def test_fma():
    assert "fma.rn.f32" in ptx_of(k_fma)
    assert "fma.rn.f64" in ptx_of(k_fma, "void(float64[:], int64)")


def test_bit_intrinsics_32_bit():
    body = body_of(ptx_of(k_bits32, "void(int32[:], int64)"), "k_bits32")
    assert "popc.b32" in body and "brev.b32" in body and "clz.b32" in body


def test_bit_intrinsics_64_bit():
    body = body_of(ptx_of(k_bits64, "void(uint64[:], int64)"), "k_bits64")
    assert "popc.b64" in body and "brev.b64" in body and "clz.b64" in body


def test_integer_floor_division_and_modulo():
    body = body_of(ptx_of(k_int_ops, "void(int64[:], int64)"), "k_int_ops")
    assert "div.s64" in body and "rem.s64" in body
    source = translated(k_int_ops, "void(int64[:], int64)")
    assert "ncc_floordiv<long long>" in source and "ncc_mod<long long>" in source
    body = body_of(ptx_of(k_int_ops, "void(float32[:], int64)"), "k_int_ops")
    assert "cvt.rmi" in body  # floor of the quotient


def test_true_division_of_ints_is_float64():
    body = body_of(ptx_of(k_true_divide, "void(int64[:], int64)"), "k_true_divide")
    assert "div.rn.f64" in body


def test_power():
    body = body_of(ptx_of(k_pow), "k_pow")
    assert ".f64" not in body  # float32 ** float32 and float32 ** 2 stay float32
    assert "mul.f32" in body  # x ** 2 as x * x
    source = translated(k_pow, SIG)
    assert "powf(" in source and "ncc_powi<2>" in source
    source = translated(k_ipow, "void(int64[:], int64)")
    assert "ncc_ipow<long long, long long>" in source
    assert "mul.lo.s64" in body_of(ptx_of(k_ipow, "void(int64[:], int64)"), "k_ipow")


def test_casts():
    body = body_of(ptx_of(k_casts), "k_casts")
    assert "cvt.rzi.s64.f32" in body  # int(float32)
    assert "cvt.rn.f64.s64" in body or "cvt.rn.f32.s64" in body  # float(int64)
    assert "cvt.rn.f32.s64" in body  # cuda.float32(int64), np.float32(int64)
    assert "cvt.rzi.s32.f32" in body  # cuda.int32(float32)


def test_abs_and_round():
    body = body_of(ptx_of(k_abs_round), "k_abs_round")
    assert "abs.f32" in body
    assert "cvt.rni" in body  # round half to even
    assert re.search(r"abs\.s64|neg\.s64", body_of(ptx_of(k_abs_round, "void(int64[:], int64)"), "k_abs_round"))


def test_min_max():
    source = translated(k_min_max, SIG)
    body = body_of(ptx_of(k_min_max), "k_min_max")
    assert "setp" in body and "selp" in body or "min.f32" in body
    # three values: each read once, in order, then selects of values (numba's), not branches over loads
    assert "ncc_extremes<float, 3>{{" in source and "}}.max()" in source
    assert "bra" not in body.split("ret;")[0].split("min.f32")[-1]


def test_control_flow():
    source = translated(k_loops, SIG)
    assert "while (" in source and "for (" in source
    assert "continue;" in source and "break;" in source and "} else {" in source
    body = body_of(ptx_of(k_loops), "k_loops")
    assert body.count("bra") >= 3


def test_early_return():
    source = translated(k_early_return, SIG)
    assert "return;" in source
    assert "ret;" in ptx_of(k_early_return)


def test_slices_in_kernels():
    source = translated(k_slices, "void(float64[:, :], int64)")
    assert "view" in source
    assert "st.global.f64" in ptx_of(k_slices, "void(float64[:, :], int64)")


def test_array_attributes():
    source = translated(k_attributes, "void(float64[:, :], int64)")
    assert ".shape[0]" in source and ".shape[1]" in source
    ptx_of(k_attributes, "void(float64[:, :], int64)")


def test_device_functions_calling_device_functions():
    source = translated(k_calls_device, SIG)
    assert re.search(r"__device__ float ncc_dev_d_square_\d+\(float v_x\)", source)
    assert re.search(r"__device__ float ncc_dev_d_sum_of_squares_\d+\(float v_x, float v_y\)", source)
    body = body_of(ptx_of(k_calls_device), "k_calls_device")
    assert "ld.global.f32" in body and ".f64" not in body


def test_variable_assigned_int_then_float_is_float64():
    # numba's SSA: x is int64 where 1 is stored, float64 where 2.5 is, and float64 where the paths meet
    source = translated(k_unify, SIG)
    assert re.search(r"\blong long v_x = {};", source) and re.search(r"\bdouble v_x__s1 = {};", source)
    assert re.search(r"\bdouble v_x__p1 = {};", source) and "((float)(v_x__p1))" in source


def test_tuple_swap_goes_through_temporaries():
    source = translated(k_swap, SIG)
    assert re.search(r"\bfloat v_x = {};", source) and re.search(r"\bfloat v_y = {};", source)
    assert source.count("float t_") >= 4


def test_conditional_expression_and_boolean_operators():
    source = translated(k_ternary_bool, SIG)
    assert "bool v_flag = {};" in source and "&&" in source and "||" in source
    ptx_of(k_ternary_bool)


def test_augmented_assignment_to_elements():
    ptx_of(k_aug_element)
    source = translated(k_aug_element, SIG)
    assert "ncc_real_floordiv<false>(" in source  # a[2] //= 2.0: float32 // float64 floor-divides as floats


def grid_stride_sum(a, n):
    i = cuda.grid(1)
    total = float32(0.0)
    while i < a.size:
        total += a[i]
        i += cuda.gridsize(1)
    a[0] = total


def test_grid_stride_while_loop_unrolls_as_numbas():
    # the induction variable's += does not wrap, so NVVM counts the trips and unrolls the loop,
    # keeping several loads in flight (numba's LLVM unrolls it 4 times)
    body = body_of(ptx_of(grid_stride_sum), "grid_stride_sum")
    assert body.count("ld.global.f32") >= 4
    assert "ncc_wrapping_add" not in translated(grid_stride_sum).split("while")[1].split("}")[0]


def k_pruned_by_reaching_constants(out, a, u):
    i = cuda.grid(1)
    acc = u[i]
    j = 0
    while j < 0:  # j's store before the loop holds 0: numba never enters it, acc stays uint64
        j += 1
        acc = a[i]
    flag = 1**2  # CPython folds it: a constant store
    if flag:
        b = u[i]
    else:
        b = j  # pruned: b is uint64, not unified with int64
    k = 0
    while k < 2:  # entered: acc2 is the float64 of the loop's phi
        k += 1
        acc2 = a[i]
    out[i] = acc + b + acc2


def test_branches_pruned_where_the_reaching_store_is_a_constant():
    """numba prunes dead branches after its SSA: a test of names whose reaching stores hold constants is known."""
    from numba_cuda_c.pyjit.translate import variable_types

    types_of, _ = variable_types(
        k_pruned_by_reaching_constants, (cuda.types.float64[::1], cuda.types.float64[::1], cuda.types.uint64[::1])
    )
    assert types_of["acc"] == cuda.types.uint64 and types_of["b"] == cuda.types.uint64
    assert not any(name.startswith("acc__") for name in types_of)  # the first loop's body is gone
    assert any(name.startswith("k__p") for name in types_of)  # the second loop stays


def k_widened_over_rounds(out, small, wide):
    i = cuda.grid(1)
    acc = small[i]
    for j in range(0):
        acc = j  # the phi is uint8 in the first round, int64 in the next
    out[i] = i % (acc + wide[i])


def test_an_expression_keeps_the_types_of_every_typing_round():
    """numba's type variables unify over its inference rounds: `acc + wide` is uint64 in the first (uint8 + uint16),
    int64 in the next, so its variable is float64; the sum is computed in int64 and converted, as numba's."""
    sig = "void(float64[::1], uint8[::1], uint16[::1])"
    source = translated(k_widened_over_rounds, sig)
    assert "ncc_real_mod<false>(((double)(v_i)), ((double)(ncc_wrapping_add<long long>(" in source


def k_folded_in_the_result_type(out):
    n = 2147483648
    out[0] = 9223372036854775808 // n  # uint64 // int64 is int64: 2**63 converts to -2**63 first, as numba's


def test_integer_constants_fold_in_numbas_result_type():
    source = translated(k_folded_in_the_result_type, "void(int64[::1])")
    assert "-4294967296LL" in source


def k_float_divmod_of_constants(out):
    out[0] = 127 // math.inf  # numba's LLVM folds frem of constants exactly: 0.0 (NVVM's frem at run time: NaN)
    out[1] = 1e16 % math.inf  # 1e16


def test_float_floor_division_and_remainder_of_constants_fold_as_llvm_does():
    source = translated(k_float_divmod_of_constants, "void(float64[::1])")
    assert "= 0.0;" in source and "= 1e+16;" in source and "ncc_frem" not in source.split("ncc_py_")[-1]


def k_back_edge_widens_to_complex(out, n, z):
    i = cuda.grid(1)
    acc = 9223372036854775808  # uint64
    j = 0
    while j < n[i]:
        j += 1
        acc = z[i]  # complex128: the loop's phi widens to it from the next typing pass on
    out[i] = acc


def test_a_back_edge_may_bring_a_complex_to_a_phi_typed_as_an_integer():
    """A typing pass converts nothing: a back edge's complex128 meets the phi still typed uint64 (numba unifies them
    to complex128); only the emitting pass writes the conversion."""
    from numba_cuda_c.pyjit.translate import variable_types

    sig = (cuda.types.complex128[::1], cuda.types.int64[::1], cuda.types.complex128[::1])
    types_of, _ = variable_types(k_back_edge_widens_to_complex, sig)
    assert any(name.startswith("acc__p") and t == cuda.types.complex128 for name, t in types_of.items())
    assert "ncc_to_complex" in translated(
        k_back_edge_widens_to_complex, "void(complex128[::1], int64[::1], complex128[::1])"
    )


def k_branch_on_a_module_constant(out, a, n):
    i = cuda.grid(1)
    acc = a[i]
    for j in range(n[i]):
        if math.nan:  # numba reads math.nan by getattr: not pruned, so the store below is typed (int64)
            continue
        acc = j
    out[i] = acc


def test_a_branch_on_a_module_constant_is_not_pruned():
    from numba_cuda_c.pyjit.translate import variable_types

    sig = (cuda.types.float64[::1], cuda.types.uint8[::1], cuda.types.int64[::1])
    types_of, _ = variable_types(k_branch_on_a_module_constant, sig)
    assert any(name.startswith("acc__p") and t == cuda.types.int64 for name, t in types_of.items())


def k_ternary_on_a_module_constant(out, a):
    i = cuda.grid(1)
    v = a[i] if math.pi else i  # numba reads math.pi by getattr: both sides typed, int8 and int64 unified
    out[i] = v


def k_ternary_on_a_known_link(out, a, b):
    i = cuda.grid(1)
    n = 256
    v = 18446744073709551615 if b[i] <= 1e16 == n else a[i]  # `1e16 == n` is a jump of its own, on constants
    out[i] = v


def test_a_ternary_prunes_as_numba_does():
    from numba_cuda_c.pyjit.translate import variable_types

    sig = (cuda.types.float64[::1], cuda.types.int8[::1])
    assert variable_types(k_ternary_on_a_module_constant, sig)[0]["v"] == cuda.types.int64
    sig = (cuda.types.float64[::1], cuda.types.float32[::1], cuda.types.uint64[::1])
    assert variable_types(k_ternary_on_a_known_link, sig)[0]["v"] == cuda.types.float32  # the uint64 side is dead


def k_remainders(out, u, s, f):
    i = cuda.grid(1)
    out[i] = u[i] // 65504.0  # an unsigned integer converted: its sign bit is clear, as the divisor's
    out[i] = s[i] % 2.5  # a signed one: not known
    out[i] = 1e20 % (u[i] / 1)  # a quotient of two clear-signed numbers
    out[i] = 1e20 % f[i]  # the divisor's sign is not known
    out[i] = -0.0 % u[i]
    out[i] = u[i] % 3.0
    out[i] = 2 % (f[i] / s[i]) ** 2  # a square: LLVM knows x * x is not negative
    out[i] = u[i] % (255 if u[i] else 0.1)  # a select of two it knows


def test_a_remainder_of_a_clear_signed_dividend_is_not_corrected():
    """Where numba's LLVM knows the signs of both operands are clear, it knows frem's is (the dividend's), so `mod < 0`
    is false, even where frem's expansion is inexact (1e20 % 31.0 gives a negative remainder, kept as numba keeps it).
    Checked against numba-cuda's PTX: no correction there."""
    source = translated(k_remainders, "void(float64[::1], uint64[::1], int64[::1], float64[::1])")
    calls = re.findall(r"ncc_real_(floordiv|mod)<(true|false)>", source)
    assert calls == [
        ("floordiv", "true"),
        ("mod", "false"),
        ("mod", "true"),
        ("mod", "false"),
        ("mod", "false"),
        ("mod", "true"),
        ("mod", "true"),
        ("mod", "true"),
    ]


def k_remainders_of_stored_values(out, u, w, f):
    i = cuda.grid(1)
    q = u[i] / w[i]  # a quotient of two unsigned integers: LLVM sees its sign through the variable
    out[i] = 3 % q
    g = f[i]
    out[i] = 3 % g  # a float element: not known
    q = f[i] * 2.0  # stored over: not known any more
    out[i] = 3 % q


def test_a_remainder_sees_the_sign_of_a_stored_value():
    """numba's LLVM knows a variable's value after its SSA: `v1 = u16[i] / u32[i]; 3 % v1` is not corrected (fuzzer
    seed 44, case 458: numba -1.06e-16, frem's inexact expansion kept), as `3 % (u16[i] / u32[i])` is not."""
    source = translated(k_remainders_of_stored_values, "void(float64[::1], uint16[::1], uint32[::1], float64[::1])")
    assert re.findall(r"ncc_real_mod<(true|false)>", source) == ["true", "false", "false"]


def k_remainders_of_selects_and_quotients(out, u8, u64, u16, w):
    i = cuda.grid(1)
    v = max(u8[i], u64[i], 0)  # float64: a select of numbers converted by uitofp (and 0.0)
    q, m = divmod(v, u8[i])
    out[i] = q + m
    out[i] = 3 % (u16[i] // 3 / w[i])  # an int64 quotient of a zero-extended dividend and a positive divisor
    out[i] = 3 % max(u64[i], pow(u8[i], 0))  # x ** 0 is 1, which LLVM folds (fuzzer seed 46 case 425, in full)


def test_a_remainder_sees_the_sign_of_selects_and_integer_quotients():
    """max() of numbers whose signs LLVM knows are clear, an integer // of two such (fuzzer seed 46 case 425, seed 44
    case 458): numba's remainders are not corrected there."""
    sig = "void(float64[::1], uint8[::1], uint64[::1], uint16[::1], uint32[::1])"
    source = translated(k_remainders_of_selects_and_quotients, sig)
    assert re.findall(r"ncc_real_(?:floordiv|mod)<(true|false)>", source) == ["true", "true", "true", "true"]


def k_remainder_of_a_quotient_of_a_wide_unsigned(out, b, u64, u32):
    i = cuda.grid(1)
    out[i] = b[i] // u64[i] / b[i] % 2.5  # bool // uint64 computes in int64: uint64's top bit is int64's sign
    out[i] = b[i] // u32[i] / b[i] % 2.5  # a uint32 zero-extends: still clear


def test_an_unsigned_as_wide_as_a_signed_quotient_may_be_negative():
    """True // uint64(2**64 - 3) is int64 -1 in numba (its (int64, int64) case): LLVM does not know that sign, so the
    remainder is corrected (fuzzer seed 49 case 189: numba 1.8e19, ours -1.0 before)."""
    source = translated(
        k_remainder_of_a_quotient_of_a_wide_unsigned, "void(float64[::1], bool[::1], uint64[::1], uint32[::1])"
    )
    assert re.findall(r"ncc_real_mod<(true|false)>", source) == ["false", "true"]


def d_divmod_of_constants():
    return divmod(1e20, 255)[1]  # LLVM folds frem exactly: 55.0 (frem's expansion at run time: -2240.0)


def d_divmod_of_a_converted_constant():
    return divmod(float(1e20), 255)[1]  # float() of a constant folds too (fuzzer seed 47 case 136, reduced anew)


def d_remainder_by_a_product_of_stored_constants():
    v = 1e20
    return 32767 % (v * 1e308)  # x % inf is x where LLVM folds it (frem's expansion: NaN)


def test_remainders_of_constants_numbas_llvm_folds():
    """numba's LLVM folds what its SSA shows constant, exactly: divmod's too, and a product of stored constants
    (fuzzer seed 47 case 136, seed 49 case 877)."""
    assert returned_constant(d_divmod_of_constants) == (55.0, types.float64)
    assert returned_constant(d_divmod_of_a_converted_constant) == (55.0, types.float64)
    assert returned_constant(d_remainder_by_a_product_of_stored_constants) == (32767.0, types.float64)


def k_loop_storing_a_literal(out, a):
    i = cuda.grid(1)
    acc = a[i]
    for j in range(0):
        acc = 8  # a literal: numba types it before its first round, so the phi is int64 from the start
    r = acc - a[i]
    out[i] = r


def test_a_literal_coming_back_to_a_loop_head_is_typed_from_the_first_round():
    """Fuzzer seed 46 case 98: numba types `acc - a[i]` int64 (the phi unified with the literal's int64 at once); a
    value computed in the body widens the phi only from the next round (k_widened_over_rounds)."""
    from numba_cuda_c.pyjit.translate import variable_types

    types_of, _ = variable_types(k_loop_storing_a_literal, (cuda.types.float64[::1], cuda.types.uint16[::1]))
    assert types_of["r"] == cuda.types.int64  # in every round (not float64: uint64 in a first, int64 in the next)


def k_remainder_of_stored_constants(out, a):
    i = cuda.grid(1)
    big = math.inf
    out[i] = 65535 % big  # LLVM folds the frem of two constants it sees: exactly, 65535.0 (frem's expansion: NaN)
    x = 1e20
    out[i] += x % 3.0  # stored constants fold


def test_a_remainder_of_stored_constants_is_folded():
    source = translated(k_remainder_of_stored_constants, "void(float64[::1], float64[::1])")
    assert "65535.0" in source and "ncc_real_mod" not in source


def d_floor_division_by_a_stored_negated_constant():
    v = -math.inf
    w = v  # a copy: LLVM sees the number through both
    return 0 // w  # numba-cuda: -0.0, LLVM's exact fold (frem's expansion at run time: NaN)


def d_remainder_by_a_stored_negated_constant():
    v = -math.inf
    return 0 % v  # -0.0: the remainder takes the divisor's sign


def test_stored_negated_module_constants_fold_as_llvm_does():
    for function in (d_floor_division_by_a_stored_negated_constant, d_remainder_by_a_stored_negated_constant):
        value, resty = returned_constant(function)
        assert (value, math.copysign(1.0, value), resty) == (0.0, -1.0, types.float64), function.__name__


def k_ternary_of_truthy_constants(out, a, b):
    i = cuda.grid(1)
    v = a[i] if (6 if b[i] else 3) else 1.5  # both sides jump to `a[i]`: CPython's bytecode has no `1.5`
    out[i] = v


def test_a_test_of_a_ternary_jumps_on_each_side():
    from numba_cuda_c.pyjit.translate import variable_types

    sig = (cuda.types.float64[::1], cuda.types.int64[::1], cuda.types.int64[::1])
    assert variable_types(k_ternary_of_truthy_constants, sig)[0]["v"] == cuda.types.int64
