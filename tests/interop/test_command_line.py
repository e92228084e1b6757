"""`python -m numba_cuda_c`: python's own command line where it applies (-c, -m, a script, -, --version, --help,
the exit statuses and one-line messages python gives), the program run with numba.cuda aliased to numba_cuda_c, and
--info on a machine with no GPU and on the mock driver. In fresh interpreters; no GPU needed."""

import os
import subprocess
import sys

import numba_cuda_c
from mock_driver import ROOT, require_mock

PROG = "python -m numba_cuda_c"
ENV = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
ENV.pop("NUMBA_CUDA_C_AS_NUMBA_CUDA", None)

# what a program run by the runner reports of itself
SHOW = (
    "import sys, numba_cuda_c; from numba import cuda; "
    "print(cuda is numba_cuda_c, __name__, sys.argv, sys.path[0] if sys.path else None)"
)


def run(*args, cwd=None, input="", env=None):
    return subprocess.run(
        [sys.executable, "-m", "numba_cuda_c", *args],
        env=env or ENV,
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_help_and_version():
    for flag in ("-h", "--help"):
        done = run(flag)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("usage: %s [option] ... [-c cmd | -m mod | file | -] [arg] ..." % PROG)
        for option in ("-c cmd", "-m mod", "-V, --version", "--info"):
            assert option in done.stdout
    for flag in ("-V", "--version"):
        done = run(flag)
        assert (done.returncode, done.stdout, done.stderr) == (
            0,
            "numba_cuda_c %s\n" % numba_cuda_c.__version__,
            "",
        )


def test_code_with_arguments(tmp_path):
    done = run("-c", SHOW, "a", "-b", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "True __main__ ['-c', 'a', '-b'] \n"  # sys.path[0] '', as python's
    attached = run("-c" + "print('attached')")  # -cCODE, as python takes it
    assert attached.stdout == "attached\n", attached.stderr


def test_script_with_arguments(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 42\n")
    (tmp_path / "program.py").write_text(SHOW + "\nimport helper; print(helper.VALUE)\n")
    done = run(str(tmp_path / "program.py"), "x", "--y")  # from another folder: sys.path[0] is the script's
    assert done.returncode == 0, done.stderr
    assert done.stdout == "True __main__ ['%s', 'x', '--y'] %s\n42\n" % (tmp_path / "program.py", tmp_path)


def test_module_with_arguments(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "tool.py").write_text(SHOW)
    done = run("-m", "pkg.tool", "z", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "True __main__ ['%s', 'z'] %s\n" % (tmp_path / "pkg" / "tool.py", tmp_path)


def test_program_from_standard_input():
    for args, argv in (([], [""]), (["-"], ["-"]), (["-", "q"], ["-", "q"])):  # sys.argv as python's
        done = run(*args, input=SHOW)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "True __main__ %r \n" % argv, done.stdout


def test_a_missing_script_is_one_line_and_status_2(tmp_path):
    done = run("nosuchfile.py", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "%s: can't open file '%s': [Errno 2] No such file or directory\n" % (PROG, tmp_path / "nosuchfile.py")
    )
    python = subprocess.run([sys.executable, "nosuchfile.py"], cwd=tmp_path, capture_output=True, text=True)
    assert python.returncode == 2 and python.stderr.split(": ", 1)[1] == done.stderr.split(": ", 1)[1]


def test_missing_modules_and_bad_options():
    done = run("-m", "no_such_module_here")
    assert (done.returncode, done.stderr) == (1, "%s: No module named no_such_module_here\n" % PROG)
    done = run("-m", "numba_cuda_c.cudadrv")  # a package with no __main__
    assert (
        done.returncode == 1
        and "'numba_cuda_c.cudadrv' is a package and cannot be directly executed" in done.stderr
    )
    done = run("-x")
    assert done.returncode == 2 and done.stderr.startswith("Unknown option: -x\nusage: ")
    done = run("-c")
    assert done.returncode == 2 and done.stderr.startswith("Argument expected for the -c option\nusage: ")
    done = run("--no-such-option")
    assert done.returncode == 2 and done.stderr.startswith("Unknown option: --no-such-option\n")


def test_program_errors_and_exit_statuses(tmp_path):
    (tmp_path / "fails.py").write_text("def f():\n    1 / 0\n\nf()\n")
    for args in (["-c", "1 / 0"], [str(tmp_path / "fails.py")], ["-m", "fails"]):
        done = run(*args, cwd=tmp_path)
        assert done.returncode == 1, args
        assert done.stderr.startswith("Traceback (most recent call last):\n"), done.stderr
        assert done.stderr.endswith("ZeroDivisionError: division by zero\n"), done.stderr
        # the program's frames only, as python shows them: not the runner's nor runpy's
        assert "numba_cuda_c" not in done.stderr and "runpy" not in done.stderr, done.stderr
    assert run("-c", "import sys; sys.exit(3)").returncode == 3
    done = run("-c", "raise SystemExit('bye')")
    assert (done.returncode, done.stderr) == (1, "bye\n")
    done = run("-c", "1 +")
    assert done.returncode == 1 and "SyntaxError" in done.stderr


def info_lines(done):
    assert done.returncode == 0, done.stderr
    return dict((key, value.strip()) for key, value in (line.split(":", 1) for line in done.stdout.splitlines()))


def test_info_without_a_driver(tmp_path):
    env = dict(ENV, NUMBA_CUDA_DRIVER=str(tmp_path / "libcuda.so.1"), NUMBA_CUDA_C_CACHE_DIR=str(tmp_path / "c"))
    for flag in ("--info", "--detect"):
        lines = info_lines(run(flag, env=env))
        assert lines["numba_cuda_c"].split()[0] == numba_cuda_c.__version__
        assert lines["CUDA driver"].startswith("not available: NUMBA_CUDA_DRIVER=")
        assert lines["Devices"] == "none (no driver)"
        assert "NVRTC" in lines and "CUDA runtime" in lines  # found or not, said either way
        assert lines["Disk cache"] == "%s, on" % (tmp_path / "c")
        assert lines["Alias"].startswith("off")
        assert "NUMBA_CUDA_DRIVER=" in lines["Environment"]
    lines = info_lines(run("--info", env=dict(env, NUMBA_CUDA_C_AS_NUMBA_CUDA="1", NUMBA_CUDA_C_CACHE="0")))
    assert lines["Disk cache"] == "%s, off (NUMBA_CUDA_C_CACHE=0)" % (tmp_path / "c")
    hooked = subprocess.run(  # this interpreter's environment has the .pth file installed (an installed wheel)
        [
            sys.executable,
            "-c",
            "import sys; print(any(type(f).__name__ == 'NumbaCudaCAliasHook' for f in sys.meta_path))",
        ],
        env=dict(env, NUMBA_CUDA_C_AS_NUMBA_CUDA="1"),
        capture_output=True,
        text=True,
    ).stdout.strip()
    if hooked == "True":
        assert lines["Alias"].startswith("on: NUMBA_CUDA_C_AS_NUMBA_CUDA=1")
    else:  # a checkout: no .pth file reads the variable, which is said, with what to do instead
        assert lines["Alias"].startswith("NUMBA_CUDA_C_AS_NUMBA_CUDA=1 is set, but has no effect")


def test_info_lists_the_mock_drivers_devices():
    done = run("--info", env=dict(ENV, NUMBA_CUDA_DRIVER=require_mock()))
    lines = info_lines(done)
    assert lines["CUDA driver"].startswith("CUDA ")
    devices = [line for line in done.stdout.splitlines() if line.startswith("  ")]
    assert int(lines["Devices"]) == len(devices) >= 1
    assert "compute capability" in devices[0] and "PCI bus" in devices[0]
