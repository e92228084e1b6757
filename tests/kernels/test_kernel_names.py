"""Every Python identifier that is not a Python keyword works as the name of a kernel and of a device function: a
C++ keyword (new, template), a name of CUDA's headers (threadIdx, max, sinf, atomicAdd, printf, make_float2), one
of our prelude's (Array, ncc_wrap) or a non-ASCII one (ρ). The C symbol is names.c_symbol's, ncc_py_<name> for a
kernel (ncc_dev_<name>_<n> for a device function it calls), while __name__, inspect_types and error messages say
the Python name. A C-ABI symbol (compile(abi="c"), abi_info's abi_name, cuda.declare_device) is the user's as it
is: one that cannot be a C symbol is a ValueError that says so, not NVRTC's log."""

import io
import keyword
import re

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu
from numba_cuda_c import types
from numba_cuda_c.pyjit import KernelTypeError, lib, module, prelude  # noqa: F401  (module: its requirements)
from numba_cuda_c.pyjit.names import DEVICE_PREFIX, KERNEL_PREFIX, c_name_part, c_symbol

pytestmark = needs_nvrtc

# ---------------------------------------------------------------------------------------------------------------------
# The names
# ---------------------------------------------------------------------------------------------------------------------

# C++20's keywords and alternative tokens (the standard's [lex.key] and [lex.digraph]), and the identifiers with a
# special meaning; those that are Python keywords (and, not, for, ...) cannot name a Python function
_CPP = """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype default
delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline int long
mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch template this
thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
xor_eq final override import module NULL"""
CPP_NAMES = sorted(n for n in set(_CPP.split()) if not keyword.iskeyword(n))

# CUDA's math API (each function in its double and its float form), its intrinsics, atomics, warp functions, built-in
# variables, qualifiers and macros, vector types and their make_ functions, and the C library of device code
_MATH = """acos acosh asin asinh atan atan2 atanh cbrt ceil copysign cos cosh cospi cyl_bessel_i0 cyl_bessel_i1 erf
erfc erfcinv erfcx erfinv exp exp10 exp2 expm1 fabs fdim floor fma fmax fmin fmod frexp hypot ilogb j0 j1 jn ldexp
lgamma llrint llround log log10 log1p log2 logb lrint lround modf nan nearbyint nextafter norm norm3d norm4d normcdf
normcdfinv pow rcbrt remainder remquo rhypot rint rnorm rnorm3d rnorm4d round rsqrt scalbln scalbn sin sincos
sincospi sinh sinpi sqrt tan tanh tgamma trunc y0 y1 yn""".split()
_CUDA = """threadIdx blockIdx blockDim gridDim warpSize dim3 uint3 std cuda abs labs llabs min max umin umax llmin llmax
ullmin ullmax isfinite isinf isnan signbit fdividef mul24 umul24 mulhi umulhi saturate
__sinf __cosf __tanf __expf __exp10f __logf __log2f __log10f __powf __fdividef __saturatef __fmaf_rn __fadd_rn
__fmul_rz __frcp_rn __fsqrt_rn __dadd_rn __int_as_float __float_as_int __double_as_longlong __longlong_as_double
__float2int_rn __float2half __half2float __popc __popcll __clz __clzll __ffs __brev __byte_perm __mul24 __umulhi
__sad __ldg __ldca __ldcs __stcg __stwb __nanosleep __trap __brkpt __prof_trigger __isGlobal __isShared
__syncthreads __syncthreads_count __syncthreads_and __syncthreads_or __syncwarp __threadfence
__threadfence_block __threadfence_system __activemask __ballot_sync __any_sync __all_sync __uni_sync __match_any_sync
__match_all_sync __shfl_sync __shfl_up_sync __shfl_down_sync __shfl_xor_sync __reduce_add_sync __reduce_min_sync
__lanemask_lt __nv_sin __nv_sinf __nv_fast_sinf
atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS atomicAnd atomicOr atomicXor
atomicAdd_block atomicAdd_system atomicCAS_system clock clock64 globaltimer
tex1Dfetch tex2D tex3D surf2Dread surf2Dwrite
printf vprintf malloc free memcpy memset assert main abort exit
__global__ __device__ __host__ __shared__ __constant__ __managed__ __forceinline__ __noinline__ __align__
__launch_bounds__ __restrict__ __grid_constant__ __CUDACC__ __CUDACC_RTC__ __CUDA_ARCH__ __NVCC__ __FILE__ __LINE__
__func__ __half __nv_bfloat16 __nv_fp8_e4m3 half2 nv_bfloat162 INFINITY NAN size_t ptrdiff_t int32_t uint64_t nullptr_t
cudaError_t cudaStream_t cudaSuccess cudaMalloc"""
CUDA_NAMES = sorted(
    set(_MATH + [m + "f" for m in _MATH] + _CUDA.split())
    | {
        prefix + kind + str(n)
        for prefix in ("", "make_")
        for kind in "char uchar short ushort int uint long ulong longlong ulonglong float double".split()
        for n in (1, 2, 3, 4)
    }
)


def _expanded(text):
    """C text with its function-like macros expanded (arguments substituted, ## pasting), as the preprocessor
    expands the prelude's NCC_FLOAT_ATOMICS(...) into the functions it defines, its preprocessor lines left out."""
    text = re.sub(r"\\\n", " ", text)  # continued lines joined
    macros = {
        m.group(1): ([p.strip() for p in m.group(2).split(",")], m.group(3))
        for m in re.finditer(r"^\s*#\s*define\s+(\w+)\(([^)]*)\)(.*)$", text, re.M)
    }
    body = re.sub(r"^\s*#[^\n]*", "", text, flags=re.M)
    if not macros:
        return body
    use = re.compile(r"\b(%s)\s*\(" % "|".join(map(re.escape, macros)))
    found = use.search(body)
    while found:
        depth, k, start, args = 1, found.end(), found.end(), []
        while depth:
            c = body[k]
            depth += {"(": 1, ")": -1}.get(c, 0)
            if c == "," and depth == 1:
                args.append(body[start:k])
                start = k + 1
            k += 1
        args.append(body[start : k - 1])
        params, replacement = macros[found.group(1)]
        values = dict(zip(params, (a.strip() for a in args)))
        replacement = re.sub(r"\b\w+\b", lambda t: values.get(t.group(), t.group()), replacement)
        body = body[: found.start()] + re.sub(r"\s*##\s*", "", replacement) + body[k:]
        found = use.search(body, found.start())  # its expansion's own macros next
    return body


def top_level_names(text):
    """The names a piece of C++ declares at file scope: its macros, structs, functions, templates and variables."""
    names = set(re.findall(r"^\s*#\s*define\s+(\w+)", text, re.M))
    code = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)
    code = _expanded(code)
    code = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', code)
    depth, statement, statements = 0, [], []
    for token in re.findall(r"\w+|\S", code):
        if depth == 0:
            statement.append(token)
        if token == "{":
            if depth == 0:
                statements.append(statement[:-1])
            depth += 1
        elif token == "}":
            depth -= 1
            statement = [] if depth == 0 else statement
        elif token == ";" and depth == 0:
            statements.append(statement[:-1])
            statement = []
    for tokens in statements:
        angle, words = 0, []
        for t in tokens:  # template parameter lists left out
            angle += {"<": 1, ">": -1}.get(t, 0)
            if angle == 0 and t not in "<>":
                words.append(t)
        kind = next((w for w in words if w in ("struct", "class", "union", "enum")), None)
        if kind:
            rest = words[words.index(kind) + 1 :]
            while rest and rest[0] == "__align__":  # struct __align__(16) name
                rest = rest[rest.index(")") + 1 :]
            names.update(rest[:1])
        elif "(" in words:
            k = words.index("(")
            if k > 0 and words[k - 1] != "__launch_bounds__" and "operator" not in words[:k]:
                names.add(words[k - 1])
        else:
            stop = next((k for k, w in enumerate(words) if w in ("=", "[")), len(words))
            names.update([w for w in words[:stop] if re.fullmatch(r"[A-Za-z_]\w*", w)][-1:])
    return {n for n in names if re.fullmatch(r"[A-Za-z_]\w*", n)}


def _prelude_texts():
    """prelude.py's C (the prelude, the half-precision header, complex numbers) and the libraries' (REQUIREMENTS)."""
    lib.lookup(("grid",))  # the families loaded, their requirements registered (and module.py's, imported)
    return [prelude.PRELUDE, prelude.FP16_HEADER, prelude.COMPLEX] + [r.code for r in lib.REQUIREMENTS.values()]


PRELUDE_NAMES = sorted(set().union(*map(top_level_names, _prelude_texts())))

# non-ASCII names, <lambda>'s brackets, and names like the C names of our own making
OTHER_NAMES = ["ρ", "μ_Q", "Σ_T", "名前", "ñ", "_", "__", "py_k", "dev_k_1", "ncc_py_k", "ncc_dev_k_1", "k_param_0"]
ALL_NAMES = sorted(set(CPP_NAMES) | set(CUDA_NAMES) | set(PRELUDE_NAMES) | set(OTHER_NAMES))
VALID = [n for n in ALL_NAMES if n.isidentifier() and not keyword.iskeyword(n)]


def test_the_name_lists_hold_what_they_are_said_to():
    assert {"new", "delete", "template", "auto", "int", "float", "double", "case", "and_eq", "co_await"} <= set(
        CPP_NAMES
    )
    assert not {"and", "not", "or", "for", "class", "try"} & set(VALID)  # Python keywords
    assert {"sin", "sinf", "__sinf", "atomicAdd", "__syncthreads", "make_float2", "threadIdx", "printf"} <= set(
        CUDA_NAMES
    )
    # the prelude's, from its text: structs, templates, functions, macros and the functions macros define
    assert {"Array", "ncc_at", "ncc_map", "ncc_no_dims", "ncc_complex", "ncc_to_half", "NCC_NAN"} <= set(
        PRELUDE_NAMES
    )
    assert {"ncc_atomic_max_f32", "ncc_atomic_nanmin_f64", "ncc_frem"} <= set(PRELUDE_NAMES)  # by macros
    assert len(PRELUDE_NAMES) > 150 and len(VALID) > 700


def test_no_prelude_name_has_the_prefix_of_a_python_functions_c_name():
    """The C names of kernels and device functions start with prefixes of their own: none of the prelude's and the
    libraries' names does, so no Python name can make one of them, nor a C++ keyword or a CUDA name."""
    assert KERNEL_PREFIX == "ncc_py_" and DEVICE_PREFIX == "ncc_dev_"
    clashing = [n for n in PRELUDE_NAMES if n.startswith((KERNEL_PREFIX, DEVICE_PREFIX))]
    assert clashing == []
    assert not KERNEL_PREFIX.startswith(DEVICE_PREFIX) and not DEVICE_PREFIX.startswith(KERNEL_PREFIX)
    # every name the prelude defines is one a C-ABI symbol is refused (names.check_c_symbol)
    for name in PRELUDE_NAMES:
        with pytest.raises(ValueError, match="cannot be a C symbol"):
            cuda.declare_device(name, "int32(int32)")


def test_c_symbols_are_ascii_identifiers_behind_the_prefix():
    assert c_symbol("max") == "ncc_py_max" and c_symbol("max", DEVICE_PREFIX) == "ncc_dev_max"
    assert c_symbol("<lambda>") == "ncc_py__lambda_"
    assert c_name_part("ρ_max") == "u03c1_max" and c_name_part("名前") == "u540du524d"
    for name in VALID:
        symbol = c_symbol(name)
        assert symbol.isascii() and symbol.isidentifier() and symbol.startswith("ncc_py_"), name


# ---------------------------------------------------------------------------------------------------------------------
# Kernels and device functions of every name, compiled (NVRTC: no GPU needed)
# ---------------------------------------------------------------------------------------------------------------------

SIG = (types.float32[:], types.float32[:])


def _module(tmp_path, filename, text, namespace):
    """Runs `text` as a file of its own (the translator reads a function's source from its file)."""
    path = tmp_path / filename
    path.write_text(text, encoding="utf-8")
    exec(compile(text, str(path), "exec"), namespace)  # noqa: S102 -- the test's own code
    return namespace


@pytest.fixture(scope="module")
def named(tmp_path_factory):
    """For each valid name: (the kernel of that name, the device function of that name it calls). The kernel's
    globals hold the device function under another name (callee_<k>) and numba_cuda_c as ncc_test_cuda: a kernel
    named cuda, float or callee does not hide them."""
    where = tmp_path_factory.mktemp("kernel_names")
    devices = "".join("def %s(x):\n    return x * 2 + 1\n\n\n" % name for name in VALID)
    device_ns = _module(where, "named_devices.py", devices, {"__name__": "named_devices"})
    kernels = "".join(
        "def %s(out, x):\n"
        "    i = ncc_test_cuda.grid(1)\n"
        "    if i < out.size:\n"
        "        out[i] = callee_%d(x[i])\n\n\n" % (name, k)
        for k, name in enumerate(VALID)
    )
    kernel_ns = {"__name__": "named_kernels", "ncc_test_cuda": cuda}
    kernel_ns.update({"callee_%d" % k: cuda.jit(device=True)(device_ns[name]) for k, name in enumerate(VALID)})
    _module(where, "named_kernels.py", kernels, kernel_ns)
    return {name: (kernel_ns[name], device_ns[name]) for name in VALID}


def _compiles(named, name):
    kernel, device = named[name]
    assert kernel.__name__ == name and device.__name__ == name
    ptx, resty = cuda.compile_ptx(kernel, SIG)
    assert resty == types.void
    assert ".visible .entry %s(" % c_symbol(name) in ptx, name
    assert re.search(r"(fma\.rn|mul|add)\.f(32|64)", ptx)  # x * 2 + 1, the device function's, inlined
    source = cuda.jit(kernel).inspect_source(SIG)
    called = re.escape(c_symbol(name, DEVICE_PREFIX))
    assert re.search(r"__device__ double %s_\d+\(float v_x\) \{" % called, source), name
    assert re.search(
        r'extern "C" __global__ void %s_[0-9a-f]{8}\(' % re.escape(c_symbol(name)), source
    )  # @cuda.jit's
    # the device function compiled alone (numba's ABI): the same prefix as a kernel's
    ptx, resty = cuda.compile_ptx(device, (types.float32,), device=True)
    assert resty == types.float64 and re.search(r"\.visible \.func\s.*\b%s\(" % re.escape(c_symbol(name)), ptx)


# C++ keywords, CUDA's names, our prelude's, and the others, each family under its own test ids
FAMILIES = {"cpp": CPP_NAMES, "cuda": CUDA_NAMES, "prelude": PRELUDE_NAMES, "other": OTHER_NAMES}


@pytest.mark.parametrize(
    "name", [pytest.param(n, id="%s-%s" % (f, n)) for f, names in FAMILIES.items() for n in names if n in VALID]
)
def test_reserved_names_name_kernels_and_device_functions(named, name):
    _compiles(named, name)


SAMPLE = [
    "max",
    "new",
    "threadIdx",
    "Array",
    "printf",
    "ρ",
    "ncc_wrap",
    "__global__",
    "case",
    "main",
    "float",
    "abs",
]


@pytest.mark.parametrize("name", SAMPLE)
def test_the_python_name_is_what_users_see(named, name):
    kernel, _device = named[name]
    dispatcher = cuda.jit(kernel)
    assert dispatcher.__name__ == name
    listing = io.StringIO()
    dispatcher.inspect_types(file=listing, signature=SIG)
    text = listing.getvalue()
    assert text.startswith("%s (" % name) and "def %s(out, x):" % name in text and "#   i: int64" in text
    # an error names the Python function: a wrong number of arguments says it as Python says it
    with pytest.raises(
        KernelTypeError, match=r"%s\(\) takes 2 positional arguments but 1 was given" % re.escape(name)
    ):
        cuda.compile_ptx(kernel, (types.float32[:],))


@pytest.mark.parametrize("name", ["max", "new", "threadIdx", "ρ"])
def test_compile_paths_and_options(named, name):
    kernel, device = named[name]
    symbol = c_symbol(name)
    for options in ({"debug": True}, {"lineinfo": True}, {"fastmath": True, "opt": False}):
        ptx, _ = cuda.compile_ptx(kernel, SIG, **options)
        assert ".visible .entry %s(" % symbol in ptx, options
    ptx, _ = cuda.compile_ptx(kernel, SIG, lineinfo=True)
    assert re.search(r'\.file\s+\d+\s+".*named_kernels\.py"', ptx)  # #line directives to the Python source
    codes, resty = cuda.compile_all(kernel, SIG, device=False, abi="numba", output="ptx")
    assert resty == types.void and ".visible .entry %s(" % symbol in codes[0]
    ptx, resty = cuda.compile(device, "float64(float32)", abi="numba")
    assert resty == types.float64 and re.search(r"\.func\s.*\b%s\(" % symbol, ptx)
    ptx, resty = cuda.compile(kernel, SIG, device=False, abi="numba")
    assert ".visible .entry %s(" % symbol in ptx


NESTED = '''
import numba_cuda_c as cuda


@cuda.jit(device=True)
def min(n):  # recursive: calls itself by its name, a builtin's
    if n < 2:
        return n
    return min(n - 1) + min(n - 2)


@cuda.jit("int64(int64)", device=True)
def delete(n):  # recursive, compiled as it is decorated
    if n < 2:
        return n
    return delete(n - 1) + delete(n - 2)


def max(x):
    """overloaded (its implementation is named new)"""


def template(out, x):
    def threadIdx(v):  # nested functions and lambdas named as C and CUDA name things
        return v + 1

    def ρ(v):
        return v * 3

    Array = lambda v: v - 1  # noqa: E731
    new = threadIdx(x[0]) + ρ(x[1]) + Array(x[2])
    out[0] = new + min(10) + delete(9) + max(x[0])
'''


@pytest.fixture
def nested(tmp_path, monkeypatch):
    import sys
    import types as pytypes

    namespace = _module(tmp_path, "nested_names.py", NESTED, {"__name__": "nested_names"})

    def overload_of_max(v):
        def new(v):
            return 1000

        return new

    template = type("OverloadTemplate", (), {"_overload_func": staticmethod(overload_of_max), "metadata": {}})
    registry = pytypes.SimpleNamespace(globals=[(namespace["max"], pytypes.SimpleNamespace(templates=(template,)))])
    monkeypatch.setitem(
        sys.modules, "numba.cuda.typing.templates", pytypes.SimpleNamespace(builtin_registry=registry)
    )
    monkeypatch.setitem(
        sys.modules,
        "numba.cuda.types",
        pytypes.SimpleNamespace(Array=lambda *a: ("array",) + a, int64="int64", none="none", literal=str),
    )
    return namespace


def test_nested_functions_lambdas_recursion_and_overloads_of_such_names(nested):
    sig = (types.int64[:], types.int64[:])
    source = cuda.jit(nested["template"]).inspect_source(sig)
    for python, c in (("threadIdx", "threadIdx"), ("ρ", "u03c1"), ("<lambda>", "_lambda_"), ("min", "min")):
        assert re.search(r"__device__ long long ncc_dev_%s_\d+\(" % c, source), python
    assert re.search(r"__device__ long long ncc_dev_delete_\d+\(", source)
    assert re.search(r"__device__ long long ncc_dev_new_\d+\(", source)  # the overload's implementation
    assert re.search(
        r"ncc_dev_min_(\d+)\(long long v_n\) \{.*?return [^;]*ncc_dev_min_\1\(", source, re.S
    )  # itself
    ptx, _ = cuda.compile_ptx(nested["template"], sig, debug=True)
    assert ".visible .entry ncc_py_template(" in ptx
    assert cuda.compile_ptx(nested["delete"], "int64(int64)", device=True)[1] == types.int64


def test_recursion_of_a_builtins_name_compiled_as_it_is_decorated(tmp_path):
    text = (
        "import numba_cuda_c as cuda\n\n\n"
        "@cuda.jit('int64(int64)', device=True)\n"
        "def max(n):\n"
        "    if n < 2:\n"
        "        return n\n"
        "    return max(n - 1) + max(n - 2)\n"
    )
    recursive = _module(tmp_path, "recursive_max.py", text, {"__name__": "recursive_max"})["max"]
    assert recursive.__name__ == "max"


# ---------------------------------------------------------------------------------------------------------------------
# C-ABI symbols: the user's, as they are
# ---------------------------------------------------------------------------------------------------------------------


def _device_named(tmp_path, name):
    text = "def %s(x):\n    return x + 1\n" % name
    return _module(tmp_path, "c_abi_%d.py" % abs(hash(name)), text, {"__name__": "c_abi"})[name]


@pytest.mark.parametrize("name", ["max", "new", "threadIdx", "Array", "sinf", "printf", "make_float2", "ncc_wrap"])
def test_a_c_abi_name_that_cannot_be_a_c_symbol_says_so(tmp_path, name):
    function = _device_named(tmp_path, name)
    with pytest.raises(ValueError, match=r"%r cannot be a C symbol.*abi_name" % name):
        cuda.compile(function, "float32(float32)")  # abi="c": the function's name is its symbol
    with pytest.raises(ValueError, match="cannot be a C symbol"):
        cuda.compile_ptx(function, "float32(float32)", device=True, abi="c")
    ptx, _ = cuda.compile(function, "float32(float32)", abi_info={"abi_name": "my_%s" % name})
    assert re.search(r"\.func\s.*\bmy_%s\(" % name, ptx)  # its own symbol, chosen
    with pytest.raises(ValueError, match="abi_name.*cannot be a C symbol"):
        cuda.compile(_device_named(tmp_path, "fine"), "float32(float32)", abi_info={"abi_name": name})
    with pytest.raises(ValueError, match="declared device function's name %r cannot be a C symbol" % name):
        cuda.declare_device(name, "float32(float32)")


def test_a_c_abi_symbol_colliding_beyond_the_list_is_found_by_nvrtc(tmp_path, monkeypatch):
    """A name of CUDA's headers that the list leaves out (size_t, dim3; here every CUDA name, the list
    emptied): NVRTC refuses it, and a compilation with a name of ours shows that the symbol is why: a ValueError
    saying so, NVRTC's first error quoted."""
    from numba_cuda_c.pyjit import names

    monkeypatch.setattr(names, "CUDA_NAMES", frozenset())
    for name in ("size_t", "dim3", "max", "threadIdx", "printf"):  # (sinf(float) would define CUDA's)
        with pytest.raises(
            ValueError,
            match=r"'%s' cannot be a C symbol: it collides with a name of CUDA's "
            r"headers \(NVRTC: .*error" % name,
        ):
            cuda.compile(_device_named(tmp_path, name), "float32(float32)")
    # NVRTC failing for another reason (here for every source): its own error, not a word about the symbol
    from numba_cuda_c import _cuda
    from numba_cuda_c.toolchain import compiler

    def failing(source, *args, **kwargs):
        raise _cuda.NvrtcError("not the symbol")

    monkeypatch.setattr(compiler, "compile_image", failing)
    with pytest.raises(_cuda.NvrtcError, match="not the symbol"):
        cuda.compile(_device_named(tmp_path, "size_t"), "float32(float32)")


def test_c_abi_names_that_are_fine_are_kept():
    def scale_by_two(x):
        return x * 2

    ptx, _ = cuda.compile(scale_by_two, "float32(float32)")
    assert re.search(r"\.visible \.func\s+\(\.param \.b32 func_retval0\) scale_by_two\(", ptx)
    ptx, _ = cuda.compile(scale_by_two, "int32(int32)", abi_info={"abi_name": "_Z5scalei"})
    assert re.search(r"\) _Z5scalei\(", ptx)
    with pytest.raises(ValueError, match="ASCII"):
        cuda.compile(scale_by_two, "int32(int32)", abi_info={"abi_name": "ρ"})
    with pytest.raises(ValueError, match="C ABI's symbol.*'ρ' cannot be a C symbol: NVRTC takes ASCII"):
        ns = {"__name__": "c_abi"}
        exec("def ρ(x):\n    return x\n", ns)  # noqa: S102
        cuda.compile(ns["ρ"], "int32(int32)")
    assert cuda.declare_device("times2", "int32(int32)").name == "times2"


# ---------------------------------------------------------------------------------------------------------------------
# On the GPU: launched by @cuda.jit, results checked
# ---------------------------------------------------------------------------------------------------------------------


@requires_gpu
@pytest.mark.parametrize("name", SAMPLE + ["ρ", "名前", "template", "delete", "sinf", "__syncthreads", "NCC_NAN"])
def test_kernels_of_such_names_run(named, name):
    kernel, _device = named[name]
    dispatcher = cuda.jit(kernel)
    x = np.arange(64, dtype=np.float32)
    out = np.zeros_like(x)
    dispatcher[2, 32](out, x)
    np.testing.assert_array_equal(out, x * 2 + 1)
    assert dispatcher.__name__ == name
    compiled = next(iter(dispatcher.overloads.values()))
    assert compiled.name.startswith(c_symbol(name) + "_")
    listing = io.StringIO()
    dispatcher.inspect_types(file=listing)
    assert listing.getvalue().startswith("%s (" % name)
    with pytest.raises(Exception, match=r"%s\(\) takes 2 positional arguments but 1 was given" % re.escape(name)):
        dispatcher[1, 1](out)


@requires_gpu
def test_nested_names_run(nested):
    out, x = np.zeros(1, np.int64), np.array([1, 2, 3], np.int64)
    cuda.jit(nested["template"])[1, 1](out, x)
    assert re.search(r"\.func\s.*\bncc_py_delete\(", nested["delete"].inspect_asm()[(types.int64,)])
    assert out[0] == (1 + 1) + 2 * 3 + (3 - 1) + 55 + 34 + 1000
