"""What the GPU tests of @cuda.jit kernels share (test_jit.py, test_jit_*.py): a seeded random generator, shown
when a test fails, and the block count of a launch."""

import numpy as np
import pytest


@pytest.fixture
def rng():
    seed = np.random.SeedSequence().entropy
    print("random seed:", seed)  # shown when the test fails
    return np.random.default_rng(seed)


def blocks(n, tpb):
    return (n + tpb - 1) // tpb
