"""Writes numba_cuda_c/pyjit/lib/libdevice_table.py: libdevice's functions (__nv_*) with their C
signatures, read from clang's declarations of them (__clang_cuda_libdevice_declares.h, which lists
the libdevice API NVIDIA documents). Run again only when libdevice gains functions:

    python tools/gen_libdevice_table.py /usr/lib/llvm-14/lib/clang/14.0.6/include/__clang_cuda_libdevice_declares.h
"""

import os
import re
import sys

DECLARATION = re.compile(r"^__DEVICE__ ([\w ]+?)\s*__nv_(\w+)\((.*)\);$")
SCALARS = {"int", "unsigned int", "long long", "unsigned long long", "float", "double", "unsigned short"}


def parameters(text):
    """[(C type, is an output pointer)], or None for a declaration we do not offer."""
    out = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        part = re.sub(r"\s*\b__\w+$", "", part).strip()  # the parameter's name
        pointer = part.endswith("*")
        ctype = part.rstrip("*").strip()
        if ctype.startswith("const ") or ctype not in SCALARS:
            return None  # input pointers (norm's arrays) and vector types
        out.append((ctype, pointer))
    return out


def main(header):
    table = {}
    skipping = False
    pending = ""
    for raw in open(header):
        line = (pending + " " + raw.strip()).strip() if pending else raw.strip()
        if line.startswith("__DEVICE__") and not line.endswith(";"):  # a declaration over several lines
            pending = line
            continue
        pending = ""
        if line.startswith("#if CUDA_VERSION >= 9000 && CUDA_VERSION < 9020"):
            skipping = True  # CUDA 9.0's removed SIMD functions
        elif line.startswith("#endif") and skipping:
            skipping = False
        match = DECLARATION.match(line)
        if skipping or not match:
            continue
        ret, name, params = match.group(1).strip(), match.group(2), parameters(match.group(3))
        if params is None or (ret not in SCALARS and ret != "void"):
            continue
        table[name] = (ret, tuple(params))
    target = os.path.join(os.path.dirname(__file__), "..", "numba_cuda_c", "pyjit", "lib", "libdevice_table.py")
    with open(target, "w") as f:
        f.write('"""libdevice\'s functions: name (without __nv_) -> (C return type, ((C parameter type, is an\n')
        f.write('output pointer), ...)). Written by tools/gen_libdevice_table.py; do not edit."""\n\n')
        f.write("FUNCTIONS = {\n")
        for name in sorted(table):
            ret, params = table[name]
            f.write("    %r: (%r, %r),\n" % (name, ret, params))
        f.write("}\n")
    print(len(table), "functions")


if __name__ == "__main__":
    main(sys.argv[1])
