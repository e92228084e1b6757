"""python -m numba_cuda_c: runs a Python program written against numba.cuda on numba_cuda_c, unchanged
(numba_cuda_c.alias.install() first), with python's own command line where it applies (-c, -m, a script, -),
and reports what numba_cuda_c finds on this machine (--info)."""

import os
import sys

PROG = "python -m numba_cuda_c"
USAGE = "usage: %s [option] ... [-c cmd | -m mod | file | -] [arg] ..." % PROG
HELP = (
    USAGE
    + """
Runs a Python program written against numba.cuda on numba_cuda_c, unchanged: while it runs, `numba.cuda` (and
`numba`, where numba is not installed) is numba_cuda_c (numba_cuda_c.alias). The program sees sys.argv, sys.path
and __main__ as python gives them.

Options and arguments, as python's:
-c cmd         program passed in as a string (ends the option list)
-m mod         run a library module as a script (ends the option list)
file           program read from a script file (or a directory or zip file holding __main__.py)
-              program read from standard input (the default; interactive when that is a terminal)
arg ...        arguments passed to the program in sys.argv[1:]
-h, --help     print this help message and exit
-V, --version  print numba_cuda_c's version and exit

numba_cuda_c's own:
build MODULE_OR_FILE --arch 80,90 [--ptx] [-o FILE]
               compile a module's kernels that declare signatures into a bundle shipped beside it (NAME.bundle):
               its dispatchers load them from there, without NVRTC (see build --help)
--info, --detect
               print what numba_cuda_c finds: its version, the CUDA driver, NVRTC, the devices (or why there
               are none), the disk cache's folder and whether NUMBA_CUDA_C_AS_NUMBA_CUDA's alias is on

The interpreter's own options (-W, -X, -O, -u, -E, -I, ...) go to python, before -m:
python -W error -m numba_cuda_c program.py"""
)


class _UsageError(Exception):
    """A command line python would refuse: the message, the usage line, exit status 2."""


def _version():
    from numba_cuda_c._version import __version__

    return __version__


def _parse(argv):
    """argv -> (what, value, program arguments): what is 'help', 'version', 'info', 'code', 'module', 'path'
    or 'stdin' (value then sys.argv[0]: '-' or ''). Options are read up to the first that names the program, as
    python reads them."""
    for i, arg in enumerate(argv):
        if arg in ("-h", "-?", "--help"):
            return "help", None, []
        if arg in ("-V", "--version"):
            return "version", None, []
        if arg in ("--info", "--detect"):
            return "info", None, []
        if arg == "--":  # what follows is the program and its arguments, even if it starts with '-'
            rest = argv[i + 1 :]
            return ("path", rest[0], rest[1:]) if rest and rest[0] != "-" else ("stdin", "-", rest[1:])
        if arg == "-":
            return "stdin", "-", argv[i + 1 :]
        for option, what in (("-c", "code"), ("-m", "module")):
            if arg.startswith(option) and not arg.startswith("--"):
                if len(arg) > 2:  # -cCODE, -mMODULE, as python takes them
                    return what, arg[2:], argv[i + 1 :]
                if i + 1 == len(argv):
                    raise _UsageError("Argument expected for the %s option" % option)
                return what, argv[i + 1], argv[i + 2 :]
        if arg.startswith("-"):
            raise _UsageError("Unknown option: %s" % arg)
        return "path", arg, argv[i + 1 :]
    return "stdin", "", []  # no program named: python's sys.argv is then ['']


def _our_frame(tb):
    filename = tb.tb_frame.f_code.co_filename
    return filename == __file__ or "runpy" in os.path.basename(filename)


def _report(error):
    """An exception the program raised, reported as python reports it: through sys.excepthook, without this
    runner's frames or runpy's. Returns python's exit status for it."""
    tb = error.__traceback__
    while tb is not None and _our_frame(tb):
        tb = tb.tb_next
    sys.excepthook(type(error), error.with_traceback(tb), tb)
    return 1


def _main_module():
    """A fresh __main__ module for -c and standard input, as python runs them in (runpy makes its own for
    modules and files)."""
    import types

    module = types.ModuleType("__main__")
    sys.modules["__main__"] = module
    return module


def _fail(message, status):
    print("%s: %s" % (PROG, message), file=sys.stderr)
    return status


def _safe_path():
    return bool(getattr(sys.flags, "safe_path", False) or sys.flags.isolated)


def _set_path0(entry):
    """sys.path[0] as python sets it for the program (python -m put the working directory there); left alone
    under -P / -I (python prepends nothing then)."""
    if _safe_path():
        return
    if sys.path and sys.path[0] in (os.getcwd(), ""):
        sys.path[0] = entry
    else:
        sys.path.insert(0, entry)


def _run_module(name, args):
    import importlib.util
    import runpy

    try:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations is not None:  # a package: its __main__
            if importlib.util.find_spec(name + ".__main__") is None:
                return _fail(
                    "No module named %s.__main__; '%s' is a package and cannot be directly executed" % (name, name),
                    1,
                )
    except Exception as error:  # noqa: BLE001 - python's message for it
        return _fail(
            "Error while finding module specification for %r (%s: %s)" % (name, type(error).__name__, error), 1
        )
    if spec is None:
        return _fail("No module named %s" % name, 1)
    sys.argv = [name, *args]  # run_module puts the module's file in argv[0], as python -m does
    try:
        runpy.run_module(name, run_name="__main__", alter_sys=True)
    except Exception as error:  # SystemExit and KeyboardInterrupt go on to python
        return _report(error)
    return 0


def _run_path(path, args):
    import runpy

    full = os.path.abspath(path)
    if os.path.isdir(path):
        if not any(os.path.exists(os.path.join(path, main)) for main in ("__main__.py", "__main__.pyc")):
            return _fail("can't find '__main__' module in '%s'" % full, 1)
        archive = True
    else:
        try:
            with open(path, "rb") as file:
                archive = file.read(4) == b"PK\x03\x04" and not path.endswith(".py")  # a zip file's magic
        except OSError as error:
            return _fail("can't open file '%s': [Errno %d] %s" % (full, error.errno, error.strerror), 2)
    if not archive:
        _set_path0(os.path.dirname(os.path.realpath(path)))
    elif not _safe_path() and sys.path and sys.path[0] == os.getcwd():
        del sys.path[0]  # run_path puts the directory or zip file first, as python does, not the working directory
    sys.argv = [path, *args]
    try:
        runpy.run_path(path, run_name="__main__")
    except Exception as error:  # SystemExit and KeyboardInterrupt go on to python
        return _report(error)
    return 0


def _run_source(source, filename, args, argv0):
    namespace = _main_module().__dict__
    sys.argv = [argv0, *args]
    _set_path0("")  # the working directory as it is when imported from, as python has it for -c and stdin
    try:
        code = compile(source, filename, "exec")
        exec(code, namespace)
    except Exception as error:
        return _report(error)
    return 0


def _interact(argv0, args):
    import code

    namespace = _main_module().__dict__
    sys.argv = [argv0, *args]
    _set_path0("")
    banner = "Python %s on %s\nnumba_cuda_c %s: `from numba import cuda` is numba_cuda_c here." % (
        sys.version,
        sys.platform,
        _version(),
    )
    code.interact(banner=banner, local=namespace, exitmsg="")
    return 0


def _build(argv):
    """python -m numba_cuda_c build: an ahead-of-time bundle of a module's kernels (pyjit/bundles.py)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog=PROG + " build",
        description="Compiles every @cuda.jit kernel with declared signatures of a module into one bundle file, "
        "which the module's dispatchers use before compiling (no NVRTC needed where it runs). No GPU is needed.",
    )
    parser.add_argument("target", metavar="MODULE_OR_FILE", help="a module's file (path.py) or its importable name")
    parser.add_argument("--arch", required=True, help="compute capabilities to compile for (CUBIN): 80,90")
    parser.add_argument("--ptx", action="store_true", help="also PTX of the oldest, for newer GPUs (driver's JIT)")
    parser.add_argument("-o", "--output", help="the bundle's path (default: beside the module, NAME.bundle)")
    options = parser.parse_args(argv)
    from numba_cuda_c.pyjit import bundle_builder

    try:
        archs = bundle_builder.parse_archs(options.arch)
    except ValueError as exc:
        parser.error(str(exc))
    path, done, skipped = bundle_builder.build(options.target, archs, options.ptx, options.output)
    for kernel in done:
        print("bundled %s" % kernel)
    for kernel, why in skipped:
        print("not bundled %s: %s" % (kernel, why))
    print(
        "%s: %d kernels for %s%s"
        % (path, len(done), ", ".join("sm_%d%d" % a for a in archs), " and PTX" if options.ptx else "")
    )
    return 0


def main(argv):
    if argv[:1] == ["build"]:  # (a script named build: python -m numba_cuda_c ./build)
        return _build(argv[1:])
    try:
        what, value, args = _parse(argv)
    except _UsageError as error:
        print("%s\n%s\nTry `%s -h' for more information." % (error, USAGE, PROG), file=sys.stderr)
        return 2
    if what == "help":
        print(HELP)
        return 0
    if what == "version":
        print("numba_cuda_c", _version())
        return 0
    if what == "info":
        from numba_cuda_c import _info

        _info.report(sys.stdout)
        return 0
    from numba_cuda_c import alias

    alias.install()
    if what == "code":
        return _run_source(value + "\n", "<string>", args, "-c")
    if what == "module":
        return _run_module(value, args)
    if what == "path":
        return _run_path(value, args)
    if sys.stdin is not None and sys.stdin.isatty():
        return _interact(value, args)
    return _run_source(sys.stdin.read() if sys.stdin is not None else "", "<stdin>", args, value)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
