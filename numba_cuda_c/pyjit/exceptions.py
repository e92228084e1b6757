"""Exceptions raised in kernels, as numba handles them: `raise ValueError("msg")` ends the thread; with
debug=True the first one raised is recorded on the device (which exception, which thread) and raised on
the host after the launch, with numba's "tid=[..] ctaid=[..]: msg". In debug mode a division by zero
raises ZeroDivisionError and a tuple index out of range IndexError, as numba's Python error model does.

The translation lists the exceptions it can raise as comment lines (RAISE_MARK), so that a kernel read
from the disk cache knows them too; classes are found again by module and name."""

import ast
import importlib

from numba_cuda_c import _cuda
from numba_cuda_c.pyjit import lib
from numba_cuda_c.pyjit.rules import statement_rule

RAISE_MARK = "// numba_cuda_c raise "
RECORD = "ncc_exception"  # extern "C" __device__ unsigned int[7]: code (1-based), thread and block indices

lib.Requirement(
    "exceptions",
    r"""// --- exceptions raised in kernels (pyjit/exceptions.py) ---------------------------------------
extern "C" __device__ unsigned int ncc_exception[7];
__device__ unsigned int ncc_exception[7] = {0};
// the first exception raised wins; the thread ends (as numba's kernel returns)
__device__ __noinline__ void ncc_raise(unsigned int code) {
    if (atomicCAS(&ncc_exception[0], 0u, code) == 0u) {
        ncc_exception[1] = threadIdx.x; ncc_exception[2] = threadIdx.y; ncc_exception[3] = threadIdx.z;
        ncc_exception[4] = blockIdx.x; ncc_exception[5] = blockIdx.y; ncc_exception[6] = blockIdx.z;
        __threadfence_system();
    }
    asm volatile("exit;");
}
template <typename T> __device__ __forceinline__ T ncc_checked_divisor(T d, unsigned int code) {
    if (d == T(0)) ncc_raise(code);
    return d;
}
template <typename C> __device__ __forceinline__ C ncc_checked_cdivisor(C d, unsigned int code) {
    if (d.re == 0 && d.im == 0) ncc_raise(code);
    return d;
}
__device__ __forceinline__ long long ncc_checked_index(long long i, long long n, unsigned int code) {
    if (i < -n || i >= n) ncc_raise(code);
    return i < 0 ? i + n : i;
}
""",
)
lib.Requirement("thread_exit", '__device__ __forceinline__ void ncc_exit() { asm volatile("exit;"); }\n')

_LIVE = {}  # (module, qualname) -> class, for classes this process translated (local ones too)


class Raising:
    """The raise statement's rule and the debug-mode checks (a class the passes inherit, passes.py)."""

    def checked_divisor(self, code, t):
        """In debug mode, a divisor that raises ZeroDivisionError when zero (numba's Python error model); with
        fastmath, float division is left unchecked, as numba does."""
        if not self.module.debug or (self.module.fastmath and t.kind == "f"):
            return code
        if t.kind == "c":  # numba's complex division raises its own message
            return "ncc_checked_cdivisor(%s, %du)" % (
                code,
                exception_code(self, ZeroDivisionError, ("complex division by zero",)),
            )
        return "ncc_checked_divisor<%s>(%s, %du)" % (
            t.ctype,
            code,
            exception_code(self, ZeroDivisionError, ("division by zero",)),
        )


def constant_argument(walk, node, at):
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)):
        return node.value
    value = walk.expr(node)
    if value.const is None or value.items is not None:
        walk.fail(at, "an exception's arguments in a kernel are constants")
    return value.const


def raise_code(walk, cls, args):
    """The C statement that raises: recorded (debug) and the thread ends."""
    if not walk.module.debug:
        walk.module.require("thread_exit")
        return "ncc_exit()"
    return "ncc_raise(%du)" % exception_code(walk, cls, args)


def exception_code(walk, cls, args):
    walk.module.require("exceptions")
    statement = walk.current_statement
    where = None
    if statement is not None and hasattr(statement, "lineno"):  # numba names the function, file and line
        where = (
            walk.function.pyfunc.__name__,
            walk.function.filename or "<kernel>",
            walk.function.first_line + statement.lineno - 1,
        )
    entry = (cls, args, where)
    if entry not in walk.module.raises:
        walk.module.raises.append(entry)
        _LIVE[(cls.__module__, cls.__qualname__)] = cls
    return walk.module.raises.index(entry) + 1


def checked_tuple_index(walk, code, n):
    """In debug mode, a tuple index checked (IndexError); else wrapped as numba does without checks."""
    if not walk.module.debug:
        return "ncc_wrap(%s, %dLL)" % (code, n)
    return "ncc_checked_index(%s, %dLL, %du)" % (
        code,
        n,
        exception_code(walk, IndexError, ("tuple index out of range",)),
    )


@statement_rule(ast.Raise)
def stmt_Raise(walk, node):
    if node.exc is None:
        walk.fail(node, "a bare raise (re-raise) is not supported in kernels")
    exc, args = node.exc, ()
    if isinstance(exc, ast.Call):
        if exc.keywords:
            walk.fail(node, "exceptions in kernels take positional constants")
        args = tuple(constant_argument(walk, a, node) for a in exc.args)
        exc = exc.func
    cls = walk.expr(exc).obj
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        walk.fail(node, "kernels raise exception classes (raise ValueError('why')), not %r" % (cls,))
    walk.emit(raise_code(walk, cls, args) + ";")


def raise_lines(raises):
    """The translation's record of its exceptions: one comment line each."""
    return "".join(
        "%s%d %s %s %r\t%r\n" % (RAISE_MARK, k, cls.__module__, cls.__qualname__, args, where)
        for k, (cls, args, where) in enumerate(raises, 1)
    )  # a tab never appears in a repr: it parts the arguments from where the raise is


def table_of(source):
    """{code: (class, args)} from a translation's lines (RAISE_MARK); {} when it raises nothing."""
    table = {}
    for line in source.splitlines():
        if not line.startswith(RAISE_MARK):
            if table:
                break
            continue
        text, _, where = line[len(RAISE_MARK) :].partition("\t")
        number, module, qualname, args = text.split(" ", 3)
        table[int(number)] = (_class(module, qualname), ast.literal_eval(args), ast.literal_eval(where or "None"))
    return table


def _class(module, qualname):
    cls = _LIVE.get((module, qualname))
    if cls is not None:
        return cls
    try:
        value = importlib.import_module(module)
        for part in qualname.split("."):
            value = getattr(value, part)
        return value
    except (ImportError, AttributeError):
        return type(qualname.rsplit(".", 1)[-1], (Exception,), {"__module__": module})  # a stand-in, same name


def check(kernel, table):
    """After a launch of a debug kernel that can raise: synchronise, and raise what the device recorded
    (the record is cleared first, so the next launch starts clean)."""
    import numpy as np

    pointer, size = kernel._global(RECORD)
    record = _cuda.from_cuda_array_interface(
        {"data": (pointer, False), "shape": (size // 4,), "typestr": "<u4", "version": 3}, owner=kernel
    )
    values = record.copy_to_host()  # synchronous: after the kernel
    if values[0] == 0:
        return
    record.copy_to_device(np.zeros_like(values))
    cls, args, location = table.get(int(values[0]), (RuntimeError, ("an exception the kernel raised",), None))
    where = "tid=[%d, %d, %d] ctaid=[%d, %d, %d]" % tuple(int(v) for v in values[1:7])
    if location is not None:  # numba's prefix
        where = "In function %r, file %s, line %s, " % tuple(location) + where
    message = where + (": " + ", ".join(map(str, args)) if args else "")
    try:
        error = cls(message)
    except Exception:  # an exception class that takes other arguments
        error = cls(*args)
    raise error
