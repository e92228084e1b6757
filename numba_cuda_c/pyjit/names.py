"""C identifiers for a kernel's own Python names.

Python allows non-ASCII identifiers, and scientific code uses them (ρ, μ_Q, σ_Q, Σ_T); the C given
to NVRTC may not. A function's own names (its parameters and the locals it assigns) that are not
ASCII are renamed in its tree before translation, each to an ASCII name no other name of the
function has. Globals keep their names: they are looked up in Python, never written into C."""

import ast


def _escaped(name):
    # one-to-one: '_' is doubled, so '_x<hex>_' can only come from a non-ASCII character
    return "".join(c if c.isascii() and c.isalnum() else "__" if c == "_" else "_x%x_" % ord(c) for c in name)


def ascii_locals(funcdef):
    """Renames, in place, the non-ASCII parameters and locals of `funcdef` (an ast.FunctionDef)."""
    arguments = funcdef.args.args
    local = {a.arg for a in arguments}
    for node in ast.walk(funcdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            local.add(node.id)
    foreign = sorted(name for name in local if not name.isascii())
    if not foreign:
        return
    taken = local | {node.id for node in ast.walk(funcdef) if isinstance(node, ast.Name)}
    mapping = {}
    for name in foreign:
        new = "u_" + _escaped(name)
        while new in taken:
            new += "_"
        taken.add(new)
        mapping[name] = new
    for a in arguments:
        a.arg = mapping.get(a.arg, a.arg)
    for node in ast.walk(funcdef):
        if isinstance(node, ast.Name) and node.id in mapping:
            node.id = mapping[node.id]


# -- C symbols of Python functions ----------------------------------------------------------------------------------
# A kernel's C name, and a device function's, is made from its Python name behind a prefix of its own, so that no
# Python name can be a C++ keyword, a name of CUDA's headers (threadIdx, max, sinf, printf, make_float2, ...) or one
# of our prelude's: every name the prelude and the libraries define is Array, or starts with ncc_, NCC_ or __nv_
# (tests/kernels/test_kernel_names.py checks that none starts with these prefixes). The Python name is what
# inspect_types, __name__ and error messages show; numba mangles its symbols too (_ZN6cudapy8__main__3maxB2v1...).
KERNEL_PREFIX = "ncc_py_"  # a kernel's (and a device function's compiled alone with numba's ABI)
DEVICE_PREFIX = "ncc_dev_"  # a device function a kernel calls: ModuleBuilder numbers its variants


def c_name_part(name):
    """`name` as the ASCII letters, digits and underscores of a C identifier's tail: another ASCII character
    (<lambda>'s brackets) is '_', a non-ASCII one u<hex> (NVRTC takes ASCII identifiers only)."""
    return "".join((c if c.isalnum() or c == "_" else "_") if c.isascii() else "u%04x" % ord(c) for c in name)


def c_symbol(python_name, prefix=KERNEL_PREFIX):
    """The C name of a Python function: its name behind `prefix`, never a C++ keyword or a name of CUDA's
    headers or of our prelude, whatever the Python name is (max, new, threadIdx, Array, ρ)."""
    return prefix + c_name_part(python_name)


# The names a C-ABI symbol (compile(abi="c"), abi_info={"abi_name": ...}, cuda.declare_device) cannot have, as
# the user's symbol is written into C as it is. C++20's keywords and alternative tokens:
CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
    compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
    default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
    int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
    reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch template
    this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t
    while xor xor_eq""".split()
)
# CUDA's built-in variables, its math API (double and float forms), the functions and types its headers declare
# without a leading __, and the C library of device code. A name starting with __ is the implementation's (C++
# reserves it; CUDA's intrinsics, __syncthreads, __shfl_sync, __nv_sin...), as are our prelude's names.
_MATH = """acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi cyl_bessel_i0 cyl_bessel_i1 erf
    erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fabs fdim floor fma fmax fmin fmod frexp hypot ilogb j0 j1 jn
    ldexp lgamma llrint llround log log10 log1p log2 logb lrint lround modf nan nearbyint nextafter norm norm3d
    norm4d normcdf normcdfinv pow rcbrt remainder remquo rhypot rint rnorm rnorm3d rnorm4d round rsqrt scalbln
    scalbn sin sincos sincospi sinh sinpi sqrt tan tanh tgamma trunc y0 y1 yn""".split()
CUDA_NAMES = frozenset(
    _MATH
    + [m + "f" for m in _MATH]
    + """threadIdx blockIdx blockDim gridDim warpSize dim3 uint3 std cuda
    abs labs llabs min max umin umax llmin llmax ullmin ullmax isfinite isinf isnan signbit fdividef
    atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS atomicAnd atomicOr atomicXor
    clock clock64 printf vprintf malloc free memcpy memset assert main""".split()
    + [
        prefix + kind + str(n)
        for prefix in ("", "make_")
        for kind in "char uchar short ushort int uint long ulong longlong ulonglong float double".split()
        for n in (1, 2, 3, 4)
    ]
)
OUR_NAMES = frozenset(["Array"])  # the prelude's names without a prefix of ours
RESERVED_PREFIXES = ("ncc_", "NCC_", "__")  # ours and the implementation's


def check_c_symbol(symbol, what):
    """ValueError where `symbol`, a name the user chose for a C function (a C-ABI device function, a declared
    device function), cannot be one in the CUDA C that NVRTC compiles; `what` says whose name it is."""
    if not (symbol.isascii() and symbol.isidentifier()):
        why = "NVRTC takes ASCII C identifiers only"
    elif symbol in CPP_KEYWORDS:
        why = "it is a C++ keyword"
    elif symbol in CUDA_NAMES:
        why = "CUDA's headers declare it"
    elif symbol in OUR_NAMES or symbol.startswith(("ncc_", "NCC_")):
        why = "numba_cuda_c's generated code uses it (the names starting with ncc_ or NCC_ are its own)"
    elif symbol.startswith("__"):
        why = "names starting with __ are reserved for CUDA's headers and intrinsics"
    else:
        return
    raise ValueError("%s %r cannot be a C symbol: %s" % (what, symbol, why))
