"""python -m numba_cuda_c program.py [args] (or -m package.module [args]): runs a program written
against numba.cuda on numba_cuda_c, unchanged (numba_cuda_c.alias.install() first)."""

import runpy
import sys

from numba_cuda_c import alias

USAGE = "usage: python -m numba_cuda_c program.py [args...]  |  python -m numba_cuda_c -m module [args...]"


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    alias.install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
