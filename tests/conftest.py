"""Makes the helper modules of tests/support/ (gpu.py, subproc.py, mock_driver.py, spin.py, reset_race.py)
importable from the test files of every folder under tests/ (driver/, core/, arrays/, kernels/, interop/,
conformance/); the kernel modules a test file imports lie beside it."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_SUPPORT = os.path.join(_HERE, "support")
if _SUPPORT not in sys.path:
    sys.path.insert(0, _SUPPORT)


def _simulator_selection():
    """The node ids tests/simulator_selection.txt lists, or None where the simulator is not on."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        return None
    with open(os.path.join(_HERE, "simulator_selection.txt")) as listing:
        return {line.strip() for line in listing if line.strip() and not line.startswith("#")}


def pytest_ignore_collect(collection_path, config):
    """Under the simulator, files with no selected test are not imported (some import what it has not)."""
    selected = _simulator_selection()
    if selected is None or collection_path.is_dir() or collection_path.suffix != ".py":
        return None
    name = os.path.relpath(str(collection_path), os.path.dirname(_HERE))
    return True if not any(node.startswith(name + "::") for node in selected) else None


def pytest_collection_modifyitems(config, items):
    """Under the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) a test runs only where simulator_selection.txt lists it:
    the others test the compiled package (generated code, the driver itself), which the simulator stands in for."""
    selected = _simulator_selection()
    if selected is None:
        return
    import pytest

    skip = pytest.mark.skip(reason="not in tests/simulator_selection.txt: tests the compiled package")
    for item in items:
        node = os.path.relpath(str(item.path), os.path.dirname(_HERE)) + "::" + item.name
        if node not in selected:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter):
    """The skipped tests counted by reason, one line a reason (pytest's -rs would print a line per test location,
    some 300 of them with the same reason where there is no GPU), and why there is no GPU, once."""
    skipped = terminalreporter.stats.get("skipped", [])
    counts = {}
    for report in skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason[len("Skipped: ") :] if reason.startswith("Skipped: ") else reason
        counts[reason] = counts.get(reason, 0) + 1
    if not counts:
        return
    terminalreporter.section("skipped, by reason")
    for reason, count in sorted(counts.items(), key=lambda item: -item[1]):
        terminalreporter.line("%5d  %s" % (count, reason))
    from gpu import NO_GPU, no_gpu_detail

    if NO_GPU in counts:
        terminalreporter.line("(%s: %s)" % (NO_GPU, no_gpu_detail()))
