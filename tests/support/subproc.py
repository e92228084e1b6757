"""Run a snippet in a fresh interpreter: for driver state (resets, environment variables) that
must not leak into the rest of the session."""

import os
import subprocess
import sys
import textwrap


def run_python(code, **env):
    """Runs `code`; returns its stdout, failing the test with its stderr if it fails."""
    environ = dict(os.environ, **env)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=environ, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, "snippet failed:\n" + done.stdout + done.stderr
    return done.stdout
