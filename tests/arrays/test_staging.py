"""The staging ring (src/core/staging.c) that large copies between the device and pageable host memory go
through, without a GPU: compiled against a mock driver (tests/arrays/staging_mock.c) and run, under
ThreadSanitizer where the compiler has it. Every byte must land, in both directions, for any size,
alignment, ring shape and thread count, with or without worker threads; errors come back."""

import os
import shutil
import subprocess

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(os.path.dirname(HERE)), "src")
GCC = shutil.which("gcc") or shutil.which("cc")

pytestmark = pytest.mark.skipif(GCC is None, reason="no C compiler on PATH")


def build(tmp_path, sanitize):
    program = tmp_path / ("mock_tsan" if sanitize else "mock")
    cmd = [
        GCC,
        "-O1",
        "-g",
        "-std=c11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-I",
        SRC,
        "-I",
        os.path.join(SRC, "core"),
        "-I",
        os.path.join(SRC, "driver", "api"),
        os.path.join(HERE, "staging_mock.c"),
        os.path.join(SRC, "core", "staging.c"),
        "-o",
        str(program),
        "-ldl",
        "-lpthread",
    ]
    if sanitize:
        cmd.insert(1, "-fsanitize=thread")
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return program if done.returncode == 0 else done.stderr


def test_staged_copies_both_ways_against_a_mock_driver(tmp_path):
    program = build(tmp_path, sanitize=True)
    if not hasattr(program, "exists"):  # no ThreadSanitizer here: plain build
        program = build(tmp_path, sanitize=False)
        assert hasattr(program, "exists"), program
    done = subprocess.run(
        [str(program)],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, TSAN_OPTIONS="halt_on_error=1"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("ok ") and int(done.stdout.split()[1]) > 400
    assert "WARNING: ThreadSanitizer" not in done.stderr
