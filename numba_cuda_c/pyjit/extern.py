"""cuda.declare_device: device functions implemented in linked code (CUDA C, PTX, CUBIN, ...), called
from Python kernels with numba's ABI.

numba's ABI ("numba", the default) is `extern "C" __device__ int name(T *return_value, args...)`:
the result goes through the first pointer (to a local variable of the caller's), the int is a status
the callee sets to 0. abi="c" is a plain `extern "C" __device__ T name(args...)`. An array argument
is passed as numba's array model, one parameter per member: meminfo, parent, nitems, itemsize, data,
then each extent and each stride (in bytes). The translator declares the function and an inline
wrapper with our C types; a kernel that calls one is compiled as relocatable code (-rdc=true) and
linked with the files of every declaration it calls (toolchain/linker.py).
"""

from numba_cuda_c import types
from numba_cuda_c.pyjit.names import check_c_symbol
from numba_cuda_c.pyjit.typing import KernelTypeError
from numba_cuda_c.pyjit.values import Value, c_array_type, cast

# the first line of every extern declaration in generated C: a translation read back from the disk
# cache that has one is translated again, so that this process knows the declarations' link files
MARK = "// ncc extern:"


class ExternFunction:
    """What cuda.declare_device returns: called from kernels as name(args...). name: the function's
    (linkage) name; sig: its signature (sig.args, sig.return_type); link: the files (or
    LinkableCode objects) that implement it, linked into every kernel that calls it."""

    def __init__(self, name, sig, link=(), use_cooperative=False, abi="numba"):
        self.name, self.sig, self.link = name, sig, tuple(link)
        self.use_cooperative, self.abi = use_cooperative, abi

    def __call__(self, *args):
        raise TypeError(
            "%s is a device function declared with cuda.declare_device: call it from a kernel" % self.name
        )

    def __repr__(self):
        return "<declared device function %s %s>" % (self.name, self.sig)


def declare_device(name, sig, link=None, use_cooperative=False, abi="numba"):
    """Declare the signature of a foreign device function. Returns a descriptor that can be used to
    call the function from a Python kernel.

    name: the foreign function's name; sig: its numba signature (return type included);
    link: a file or LinkableCode (or a list, tuple or set of them) to link when calling it;
    abi: "numba" (numba's ABI, the default) or "c"."""
    if abi not in ("numba", "c"):
        raise NotImplementedError(f"Unsupported ABI: {abi}")
    if not isinstance(name, str) or not name.isidentifier():
        raise TypeError("a declared device function's name is a C identifier, not %r" % (name,))
    check_c_symbol(name, "a declared device function's name")  # written into C as it is: not max, new, ...
    if link is None:
        link = ()
    elif not isinstance(link, (list, tuple, set)):
        link = (link,)
    signature = types.parse_declared_signature(sig)
    for t in signature.args:
        if not isinstance(t, (types.Scalar, types.Array)):
            raise TypeError("declared device functions take numbers and arrays, not %s" % t)
    if not isinstance(signature.return_type, (types.Scalar, types.NoneType)):
        raise TypeError("declared device functions return a number or nothing, not %s" % signature.return_type)
    return ExternFunction(name, signature, link, use_cooperative, abi)


def _parameters(t):
    """The C parameter types an argument of type t is passed as, under numba's ABI."""
    if isinstance(t, types.Array):
        return ["void *", "void *", "long long", "long long", "%s *" % t.dtype.element_ctype] + ["long long"] * (
            2 * t.ndim
        )
    return [t.ctype]


def _arguments(t, name):
    """The C expressions that pass argument `name` (of our C type) as _parameters(t) says."""
    if isinstance(t, types.Array):
        extents = ["%s.shape[%d]" % (name, d) for d in range(t.ndim)]
        nitems = " * ".join(extents) or "1"
        return (
            ["nullptr", "nullptr", "(long long)(%s)" % nitems, str(t.dtype.dtype.itemsize), "%s.data" % name]
            + extents
            + ["%s.strides[%d]" % (name, d) for d in range(t.ndim)]
        )
    return [name]


def declaration(extern, wrapper):
    """The C that declares `extern` and defines `wrapper`, an inline function of our types calling it."""
    sig = extern.sig
    returns = sig.return_type != types.void
    ret = sig.return_type.ctype if returns else "void"
    params, ours, passed = [], [], []
    for k, t in enumerate(sig.args):
        params += _parameters(t)
        ours.append("%s a%d" % (c_array_type(t) if isinstance(t, types.Array) else t.ctype, k))
        passed += _arguments(t, "a%d" % k)
    lines = ["%s %s %s" % (MARK, extern.name, extern.abi)]
    if extern.abi == "c":
        lines.append('extern "C" __device__ %s %s(%s);' % (ret, extern.name, ", ".join(params)))
        body = "%s%s(%s);" % ("return " if returns else "", extern.name, ", ".join(passed))
    else:
        lines.append(
            'extern "C" __device__ int %s(%s);'
            % (extern.name, ", ".join(["%s *" % (ret if returns else "void")] + params))
        )
        result = "%s r = {};" % ret if returns else "unsigned char r = 0;"
        body = "%s %s(&r, %s); %s" % (
            result,
            extern.name,
            ", ".join(passed),
            "return r;" if returns else "",
        )
        body = body.replace("(&r, )", "(&r)")
    lines.append(
        "static __device__ __forceinline__ %s %s(%s) { %s }" % (ret, wrapper, ", ".join(ours), body.strip())
    )
    return "\n".join(lines) + "\n"


def declare_in(module, declared):
    """Declares `declared` in a ModuleBuilder once (a name declared again with the same signature
    shares the declaration); the name of its wrapper."""
    found = module.externs.get(declared.name)
    if found is None:
        wrapper = module.unique("ncc_extern_" + declared.name)
        found = module.externs[declared.name] = (wrapper, [declared])
        module.pieces.append(declaration(declared, wrapper))
    elif declared not in found[1]:
        first = found[1][0]
        if (first.sig, first.abi) != (declared.sig, declared.abi):
            raise KernelTypeError(
                "device function %s is declared twice, as %s and %s" % (declared.name, first.sig, declared.sig)
            )
        found[1].append(declared)
    return found[0]


def links_of(externs):
    """What the declared device functions need linked, each once, in the order first met."""
    out = []
    for declared in externs:
        for item in declared.link:
            if item not in out:
                out.append(item)
    return out


def call_type(translator, extern, node):
    """The typing rule of a call to a declared device function in a kernel: numbers convertible to the declared types,
    arrays of the declared dtype and dimensions (any layout); its declared return type (None: nothing)."""
    args = [translator.expr(a) for a in node.args]
    sig = extern.sig
    if len(args) != len(sig.args):
        translator.fail(node, "%s takes %d arguments (%s), %d given" % (extern.name, len(sig.args), sig, len(args)))
    for a, t in zip(args, sig.args):
        if isinstance(t, types.Array):
            have = a.type
            if not (isinstance(have, types.Array) and have.dtype == t.dtype and have.ndim == t.ndim):
                translator.fail(node, "%s takes %s, not %s" % (extern.name, t, have))
        elif not isinstance(a.type, types.Scalar):
            translator.fail(node, "%s takes %s, not %s" % (extern.name, t, a.type))
        else:
            try:
                cast(a, t)  # refuses a complex number for a real parameter, saying why
            except KernelTypeError as exc:
                translator.fail(node, str(exc))
    return sig.return_type if sig.return_type != types.void else None


def call(translator, extern, node):
    """The C rule: the wrapper of the declaration (declared once in the module), the arguments converted to the
    declared types, as numba does."""
    args = [translator.expr(a) for a in node.args]
    converted = [a.code if isinstance(t, types.Array) else cast(a, t) for a, t in zip(args, extern.sig.args)]
    wrapper = translator.module.extern(extern)
    code = "%s(%s)" % (wrapper, ", ".join(converted))
    returns = extern.sig.return_type != types.void
    return Value(code, extern.sig.return_type if returns else None)
