"""The extension exports its module init alone (built with hidden visibility): its other C functions are not part of
any interface, and cannot clash with another library's symbols of the same name."""

import shutil
import subprocess

import pytest

from numba_cuda_c import _cuda


@pytest.mark.skipif(shutil.which("nm") is None, reason="nm (binutils) is not installed")
def test_only_the_module_init_is_exported():
    listing = subprocess.run(
        ["nm", "-D", "--defined-only", _cuda.__file__], capture_output=True, text=True, check=True
    ).stdout
    exported = sorted(line.split()[-1] for line in listing.splitlines() if line.strip())
    assert exported == ["PyInit__cuda"]
