#!/usr/bin/env python3
"""The kernel fuzzer's cases compared on the CPU: numba-cuda's PTX and ours, both run by ptx_interpreter.py on the
case's inputs, outputs compared bit for bit. No GPU: numba-cuda compiles PTX without one (it needs its Python, given
by --numba-python, with numba-cuda installed). A case whose PTX uses what the interpreter does not emulate exactly
is counted as not compared; the GPU fuzzer (kernel_fuzzer.py) remains the test. Elements whose thread overflowed a
signed operation numba marks nsw are left out (ours is built with the overflow flags, as the GPU fuzzer's), and each
result is compared in the output array of its type, as fuzz_runner.compare does.

A screen, not an oracle: numba's PTX comes from the numba-cuda and NVVM of --numba-python's environment, and its
verdicts are the GPU's only where those are the GPU machine's. (With numba-cuda 0.30.4 on numba 0.68.1 and CUDA 13's
NVVM here, numba's int ** int goes through float64, `1.0 / r if invert else r`, where the GPU machine's does not
(checked on it): such a case is not compared.)

    python3 tests/fuzz/ptx_differential.py --seed 43 --cases 300 --numba-python /path/to/python
"""

import argparse
import atexit
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fuzz_generator  # noqa: E402
import ptx_interpreter  # noqa: E402

# run in numba's interpreter: each case's PTX into a folder
NUMBA_SIDE = r"""
import importlib.util, json, os, sys
import numpy as np
if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
from numba import cuda
folder, jobs = sys.argv[1], json.load(open(sys.argv[2]))
for key, (path, sig) in jobs.items():
    try:
        spec = importlib.util.spec_from_file_location("m_" + key, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mod.cuda = cuda
        ptx, _ = cuda.compile_ptx(mod.k, sig, cc=(9, 0))
        open(os.path.join(folder, key + ".numba.ptx"), "w").write(ptx)
    except Exception as exc:
        open(os.path.join(folder, key + ".numba.err"), "w").write(repr(exc)[:500])
"""


# numba-cuda's int_power ends `return 1.0 / r if invert else r`; this NVVM (CUDA 13.0's) keeps the round trip of
# r through a double that those returns make, the GPU machine's folds it away (a ** (a & 7) at a = -1013723629508053519
# is a - a there): an int result converted to a double and straight back
# converted to a double and back, straight or through the selects and moves of the returns' merge (seed 62 case 385,
# seed 67 case 351)
_FROM_AN_INT = re.compile(r"cvt\.rn\.f64\.[su]64\s+(%fd\d+), %rd\d+;")
_PASSED_ON = re.compile(r"(?:mov|selp)\.f64\s+(%fd\d+), ([^;]*);")
_TO_AN_INT = re.compile(r"cvt\.rzi\.[su]64\.f64\s+%rd\d+, (%fd\d+);")


def int_through_a_double(ptx):
    """Whether the PTX converts a 64-bit integer to a double and that double (or a select or move of it) back."""
    doubles = set(_FROM_AN_INT.findall(ptx))
    passes = [(target, set(re.findall(r"%fd\d+", sources))) for target, sources in _PASSED_ON.findall(ptx)]
    grown = True
    while grown:
        more = {target for target, sources in passes if sources & doubles} - doubles
        doubles |= more
        grown = bool(more)
    return any(register in doubles for register in _TO_AN_INT.findall(ptx))


def signature(case):
    params = [dtype for _, dtype in case.outputs] + [a.dtype for a in case.inputs]
    return [np.dtype(d) for d in params], "void(%s)" % ", ".join("%s[::1]" % d for d in params)


def run(ptx, case, dtypes):
    """The case's output arrays after the PTX ran on its inputs (both arrays' layouts: ours and numba's)."""
    memory = ptx_interpreter.Memory()
    names = [name for name, _ in case.outputs] + [a.name for a in case.inputs]
    n = len(case.arrays[names[0]])
    buffers, addresses = {}, {}
    for name in names:
        buffers[name] = bytearray(case.arrays[name].tobytes())
        addresses[name] = memory.add(buffers[name])
    params = []
    kernel_params = ptx_interpreter.Module(ptx).entries[0].params
    per_array = len(kernel_params) // len(names)
    for name, dtype in zip(names, dtypes):
        data, size = addresses[name], dtype.itemsize
        if per_array == 1:  # ours: {data, shape[1], strides[1]}
            params.append(np.array([data, n, size], np.uint64).tobytes())
        elif per_array == 7:  # numba's: meminfo, parent, nitems, itemsize, data, shape, strides
            params.extend(np.array([v], np.uint64).tobytes() for v in (0, 0, n, size, data, n, size))
        else:
            raise ptx_interpreter.Unsupported("parameters: %d for %d arrays" % (len(kernel_params), len(names)))
    symbols = ptx_interpreter.run_kernel(ptx, params, memory, n)
    outputs = {name: np.frombuffer(bytes(buffers[name]), case.arrays[name].dtype) for name, _ in case.outputs}
    overflowed = None
    if (
        "ncc_signed_overflow" in symbols
    ):  # ours, built with the flags: the threads whose result numba leaves undefined
        overflowed = np.array([memory.load(symbols["ncc_signed_overflow"] + k, 1) for k in range(n)]) != 0
    return outputs, overflowed


def ours_with_overflow_flags(pyfunc, sig):
    """Our PTX of the kernel built as the GPU fuzzer builds it (fuzz_runner.mine): a thread that overflows a signed
    operation numba marks nsw sets its byte of ncc_signed_overflow."""
    from numba_cuda_c import types
    from numba_cuda_c.toolchain import compiler
    from numba_cuda_c.pyjit.options import nvrtc_options
    from numba_cuda_c.pyjit.translate import translate_kernel

    source = translate_kernel(pyfunc, types.parse_signature(sig).args, "k")
    options = nvrtc_options(signed_overflow_flags=True)
    return compiler.compile_image(source, options, arch=(9, 0), name="k.cu", ptx=True).decode()


def _parts(a):
    return a.view(a.real.dtype).reshape(len(a), -1) if a.dtype.kind == "c" else a.reshape(len(a), 1)


def _same_or_both_nan(a, b):
    """Per element: bit for bit the same, or (floats) both NaN in every part where either is."""
    if a.dtype.kind not in "fc":
        return a == b
    pa, pb = _parts(a), _parts(b)
    bits = pa.view(np.uint8).reshape(len(a), -1) == pb.view(np.uint8).reshape(len(b), -1)
    same_bits = bits.all(1)
    nan_alike = ((pa == pb) | (np.isnan(pa) & np.isnan(pb))).all(1) & ~(
        (pa == 0) & (pb == 0) & (np.signbit(pa) != np.signbit(pb))
    ).any(1)
    return same_bits | nan_alike


def compare(theirs, ours):
    """same, nan-bits (NaNs with other payloads, as the GPU fuzzer calls it) or different."""
    if theirs.tobytes() == ours.tobytes():
        return "same"
    return "nan-bits" if _same_or_both_nan(theirs, ours).all() else "different"


def first_difference(theirs, ours):
    return int(np.nonzero(~_same_or_both_nan(theirs, ours))[0][0])


def result_columns(case, pyfunc, sig):
    """The output array that holds each result in its own type, as the GPU fuzzer compares (fuzz_runner.compare):
    the complex one, else the integer one for an integer or bool result, else the float one. Types are ours, which
    the types-only fuzzer checks against numba's."""
    from numba_cuda_c import types
    from numba_cuda_c.pyjit.translate import variable_types

    typed = variable_types(pyfunc, types.parse_signature(sig).args)[0]
    columns = []
    for result, cols in case.results:
        t = typed.get(result)
        integer = t is not None and (t == types.boolean or getattr(t, "kind", "") in "iub")
        columns.append(cols.get("c") or (cols["n"] if integer else cols["f"]))
    return columns


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--case", type=int, help="only this case")
    parser.add_argument("--numba-python", required=True, help="a Python with numba-cuda installed")
    parser.add_argument("--show", type=int, default=5, help="print this many differing cases")
    args = parser.parse_args()
    import numba_cuda_c as cuda

    folder = tempfile.mkdtemp(prefix="ptxdiff-")  # the cases' modules and numba's PTX: gone when this ends
    atexit.register(shutil.rmtree, folder, True)
    cases, jobs = {}, {}
    for index in [args.case] if args.case is not None else range(args.cases):
        case = fuzz_generator.generate(args.seed, index)
        key = "%d_%d" % (args.seed, index)
        path = os.path.join(folder, "m_%s.py" % key)
        with open(path, "w") as f:
            f.write(case.module_text())
        cases[key] = case
        jobs[key] = (path, signature(case)[1])
    with open(os.path.join(folder, "jobs.json"), "w") as f:
        json.dump(jobs, f)
    subprocess.run([args.numba_python, "-c", NUMBA_SIDE, folder, os.path.join(folder, "jobs.json")], check=True)

    import importlib.util

    tally, shown = collections.Counter(), 0
    for key, case in cases.items():
        numba_ptx = os.path.join(folder, key + ".numba.ptx")
        if not os.path.exists(numba_ptx):
            tally["numba-refused"] += 1
            continue
        spec = importlib.util.spec_from_file_location("o_" + key, jobs[key][0])
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mod.cuda = cuda
        try:
            ours_ptx = ours_with_overflow_flags(mod.k, jobs[key][1])
        except Exception:
            tally["refused"] += 1
            continue
        dtypes = signature(case)[0]
        numba_text = open(numba_ptx).read()
        if int_through_a_double(numba_text):
            tally["not compared"] += 1
            tally["not compared: numba's int ** int through a double (this NVVM's, not the GPU machine's)"] += 1
            continue
        try:
            theirs = run(numba_text, case, dtypes)[0]
            ours, overflowed = run(ours_ptx, case, dtypes)
        except (
            ptx_interpreter.Unsupported,
            KeyError,
            IndexError,
            ValueError,
            OverflowError,
            ZeroDivisionError,
        ) as exc:
            tally["not compared"] += 1
            tally["not compared: " + str(exc).split(":")[0]] += 1
            if os.environ.get("PTXDIFF_WHY"):
                print(key, exc)
            continue
        kept = np.arange(len(case.arrays[case.inputs[0].name]))
        if overflowed is not None and overflowed.any():  # numba's results there are undefined: left out
            tally["undefined elements"] += int(overflowed.sum())
            kept = kept[~overflowed]
            theirs = {name: a[~overflowed] for name, a in theirs.items()}
            ours = {name: a[~overflowed] for name, a in ours.items()}
        columns = result_columns(case, mod.k, jobs[key][1])
        kinds = {name: compare(theirs[name], ours[name]) for name in columns}
        worst = (
            "different" if "different" in kinds.values() else "nan-bits" if "nan-bits" in kinds.values() else "same"
        )
        tally[worst] += 1
        if worst == "different" and shown < args.show:
            shown += 1
            print("case %s [%s] DIFFERENT" % (key, case.family))
            print(case.source)
            for name, kind in kinds.items():
                if kind == "different":
                    k = first_difference(theirs[name], ours[name])
                    element = int(kept[k])  # its index in the case's arrays
                    inputs = {a.name: case.arrays[a.name][element] for a in case.inputs}
                    print(
                        "  %s[%d]: numba %r, ours %r; inputs %s"
                        % (name, element, theirs[name][k], ours[name][k], inputs)
                    )
    print("seed %d, %d cases: %s" % (args.seed, len(cases), dict(sorted(tally.items()))))


if __name__ == "__main__":
    main()
