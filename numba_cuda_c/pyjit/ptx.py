"""compile_ptx and numba-cuda's other compile functions (compile, compile_all, ..._for_current_device): a Python
function's PTX for given argument types, with no launch and no GPU."""

import os
import re

from numba_cuda_c import _cuda, types
from numba_cuda_c.toolchain import compiler
from numba_cuda_c.pyjit.devicefn import normalise
from numba_cuda_c.pyjit.extern import links_of
from numba_cuda_c.pyjit.names import c_symbol, check_c_symbol
from numba_cuda_c.pyjit.options import check_options, nvrtc_options


def _default_cc():
    """NUMBA_CUDA_DEFAULT_PTX_CC, else the lowest architecture the NVRTC in use supports."""
    text = os.environ.get("NUMBA_CUDA_DEFAULT_PTX_CC")
    if text:
        return _parse_cc(text, "NUMBA_CUDA_DEFAULT_PTX_CC")
    return _cuda.nvrtc_supported_archs()[0]


def _parse_cc(text, variable):
    """'7.5' (or '8') from the environment variable `variable` as (major, minor); ValueError naming it."""
    major, dot, minor = text.strip().partition(".")
    if not major.isdigit() or (dot and not minor.isdigit()) or not major.isascii() or not minor.isascii():
        raise ValueError(
            "%s=%r is not a compute capability: expected 'major.minor' in decimal digits, e.g. '7.5'"
            % (variable, text)
        )
    return int(major), int(minor or 0)


def compile_ptx(
    pyfunc,
    args,
    debug=False,
    lineinfo=False,
    device=False,
    fastmath=False,
    cc=None,
    opt=True,
    abi="numba",
    abi_info=None,
    forceinline=False,
    launch_bounds=None,
):
    """Compile a Python function to PTX for the given argument types; no GPU needed.

    Returns (ptx, return_type). Kernels return void; a device function's return type is inferred.
    A device function given a return type (int32(int32, int32)) returns that type, its values converted,
    as numba's. abi_info={"abi_name": "name"}: the device function's symbol. launch_bounds: a kernel's, as
    @cuda.jit takes them. forceinline is accepted: a device function compiled alone is emitted whole (the
    kernels that call it inline it where @cuda.jit asks).
    """
    _check_abi(abi, device)
    ptx, resty, _externs = _compile(
        pyfunc, args, debug, lineinfo, device, fastmath, cc, opt, launch_bounds, abi_info, abi
    )
    return ptx, resty


def _check_abi(abi, device):
    """numba's ABIs: "numba" (its calling convention) or "c" (device functions only). The PTX is the same here:
    NVRTC compiles C++ functions with C linkage."""
    if abi not in ("numba", "c"):
        raise NotImplementedError("Unsupported ABI: %s" % abi)
    if abi == "c" and not device:
        raise NotImplementedError("The C ABI is not supported for kernels")


def _symbol(pyfunc, device, abi, abi_info):
    """(the C name of the function compiled, whether it is the user's own): abi_info's abi_name, or a C-ABI device
    function's Python name, as they are (checked: a C++ keyword or a name of CUDA's headers cannot be one); else
    names.c_symbol's, which no Python name makes collide (a kernel named max, new or threadIdx)."""
    if abi_info and abi_info.get("abi_name"):
        name = abi_info["abi_name"]
        check_c_symbol(name, "abi_info's abi_name")
        return name, True
    if device and abi == "c":
        name = pyfunc.__name__
        if name == "<lambda>":
            name = "_lambda_"
        try:
            check_c_symbol(name, "the C ABI's symbol, the device function's name,")
        except ValueError as error:
            raise ValueError("%s; choose another with abi_info={'abi_name': ...}" % error) from None
        return name, True
    return c_symbol(pyfunc.__name__), False


def _compile(pyfunc, args, debug, lineinfo, device, fastmath, cc, opt, launch_bounds, abi_info=None, abi="numba"):
    """compile_ptx's work: (ptx, return type, the declared device functions it calls)."""
    checked = {"launch_bounds": launch_bounds} if launch_bounds is not None else {}
    check_options(checked)
    pyfunc = getattr(pyfunc, "py_func", pyfunc)  # a @cuda.jit dispatcher compiles its Python function
    from numba_cuda_c.pyjit.translate import translate_device, translate_kernel  # the translator: when compiling

    sig = types.parse_signature(args)
    argtypes = normalise(sig.args)
    externs = []  # declared device functions called: defined elsewhere, so the code is relocatable
    name, exact = _symbol(pyfunc, device, abi, abi_info)
    if device:
        declared = sig.return_type if sig.return_type not in (None, types.void) else None
        source, resty = translate_device(
            pyfunc,
            argtypes,
            name,
            externs,
            declared_return=declared,
            lineinfo=bool(lineinfo or debug),
            fastmath=bool(fastmath),
        )
    else:
        bounds = checked.get("launch_bounds")
        source = translate_kernel(
            pyfunc,
            argtypes,
            name,
            externs,
            launch_bounds=bounds,
            debug=bool(debug),
            lineinfo=bool(lineinfo),
            fastmath=bool(fastmath),
        )
        resty = types.void
    options = nvrtc_options(debug=debug, lineinfo=lineinfo, fastmath=fastmath, opt=opt)
    if device or externs:
        options.append("-rdc=true")  # keep the device function, which nothing in the module calls

    def compiled(source):
        return compiler.compile_image(
            source, options, arch=tuple(cc or _default_cc()), name=pyfunc.__name__ + ".cu", ptx=True
        )

    try:
        ptx = compiled(source)
    except _cuda.NvrtcError as error:
        if exact and _collides(source, name, device, compiled):
            raise ValueError(
                "%r cannot be a C symbol: it collides with a name of CUDA's headers (NVRTC: %s); choose another "
                "with abi_info={'abi_name': ...}" % (name, _first_error(str(error)))
            ) from None
        raise
    return ptx.decode(), resty, externs


def _collides(source, name, device, compiled):
    """Whether the user's symbol `name` is what NVRTC refused in `source`: the source compiles with the function
    (the last one: its own piece ends the module) named as a Python name would be."""
    start = source.rfind('extern "C" __device__' if device else 'extern "C" __global__')
    renamed = source[:start] + re.sub(
        r"\b%s\(" % re.escape(name), c_symbol("symbol") + "(", source[start:], count=1
    )
    try:
        compiled(renamed)
    except _cuda.NvrtcError:
        return False
    return True


def _first_error(log):
    """The first error line of an NVRTC log."""
    return next((line.strip() for line in log.splitlines() if "error" in line and "(" in line), log.strip()[:200])


def _check_output(output):
    """numba's output= values: 'ptx' or 'ltoir'."""
    if output not in ("ptx", "ltoir"):
        raise NotImplementedError("Unsupported output type: %s" % output)


def _refuse_ltoir(output, what):
    """LTO-IR is NVVM's format, which CUDA C compiled by NVRTC does not give: numba's default for compile_all and
    an option of compile(), refused with what to pass instead."""
    if output == "ltoir":
        raise NotImplementedError(
            "%s(output='ltoir'): LTO-IR is NVVM's format; numba_cuda_c compiles CUDA C with NVRTC. Use output='ptx'"
            % what
        )


def compile_all(
    pyfunc,
    sig,
    debug=None,
    lineinfo=False,
    device=True,
    fastmath=False,
    cc=None,
    opt=None,
    abi="c",
    abi_info=None,
    output="ltoir",
    forceinline=False,
    launch_bounds=None,
):
    """numba-cuda's compile_all(): the PTX of the function, then what it links (the link= option's files
    and the declared device functions'): CUDA C sources compiled to PTX by NVRTC, other kinds as they are.
    Returns (codes, return type). output='ltoir' (numba's default) is NVVM's format, which NVRTC-compiled
    CUDA C does not produce here: it raises NotImplementedError saying so; pass output='ptx'."""
    _check_output(output)
    _check_abi(abi, device)
    if forceinline and output != "ltoir":
        raise ValueError("Can only designate forced inlining in LTO-IR")
    _refuse_ltoir(output, "compile_all")
    from numba_cuda_c.toolchain import linker  # linking: loaded by compile_all only
    from numba_cuda_c.toolchain.linkable_code import LinkableCode

    cc = tuple(cc or _default_cc())
    ptx, resty, externs = _compile(
        pyfunc, sig, bool(debug), lineinfo, device, fastmath, cc, opt is not False, launch_bounds, abi_info, abi
    )
    link = getattr(pyfunc, "options", {}).get("link") or ()
    link = [link] if isinstance(link, (str, os.PathLike)) else list(link)
    codes = [ptx]
    for item in link + [i for i in links_of(externs) if i not in link]:
        code = item if isinstance(item, LinkableCode) else LinkableCode.from_path_or_obj(item)
        if getattr(code, "kind", None) == "cu":
            data = code.data.decode("utf8") if isinstance(code.data, (bytes, bytearray)) else code.data
            codes.append(linker.compile_cu(data, code.name or "<cu>", cc).decode())
        else:
            codes.append(item)
    return codes, resty


# the keywords compile_ptx takes, which the wrappers below pass on
_PTX_OPTIONS = (
    "debug",
    "lineinfo",
    "device",
    "fastmath",
    "cc",
    "opt",
    "abi",
    "abi_info",
    "forceinline",
    "launch_bounds",
)


def _ptx_options(given, **changed):
    """compile_ptx's keywords among a wrapper's arguments (its locals()), some of them changed."""
    options = {name: given[name] for name in _PTX_OPTIONS if name in given}
    options.update(changed)
    return options


def compile_ptx_for_current_device(pyfunc, args, **options):
    """compile_ptx for the current device's compute capability, with compile_ptx's other keywords."""
    return compile_ptx(pyfunc, args, cc=compiler.default_arch(), **options)


def compile(
    pyfunc,
    sig,
    debug=False,
    lineinfo=False,
    device=True,
    fastmath=False,
    cc=None,
    opt=True,
    abi="c",
    abi_info=None,
    output="ptx",
    forceinline=False,
    launch_bounds=None,
):
    """numba-cuda's compile(): PTX (output='ptx') and the return type; LTO-IR is NVVM's format, not made here."""
    _check_output(output)
    _refuse_ltoir(output, "compile")
    return compile_ptx(pyfunc, sig, **_ptx_options(locals()))


def compile_for_current_device(pyfunc, sig, **options):
    """numba-cuda's compile_for_current_device(): compile() for the current device's capability, with compile()'s
    other keywords (debug, lineinfo, device, fastmath, opt, abi, abi_info, output, forceinline, launch_bounds)."""
    return compile(pyfunc, sig, cc=compiler.default_arch(), **options)
