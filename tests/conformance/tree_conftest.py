"""conftest.py of a conformance tree (copied there by run_numba_suite.py; not a conftest of our own tests).

- numba-cuda 0.30 calls numpy.row_stack, gone in NumPy 2.5: the shim (also in the tree's sitecustomize.py, for
  child processes).
- The fixture numba-cuda's CUDATestCase asks for (it lives in numba-cuda's repository, not in its package).
- A per-test time limit: SIGALRM fails a test stuck in Python; a test stuck in C (a hung synchronize) has its
  traceback dumped and its process ended after a grace period (pytest-xdist reports it and starts a new worker).
- Every outcome, one JSON line each, appended to $CONFORMANCE_RESULTS by the controlling process.
"""

import faulthandler
import json
import os
import signal
import threading

import numpy
import pytest

if not hasattr(numpy, "row_stack"):
    numpy.row_stack = numpy.vstack

_TIMEOUT = float(os.environ.get("CONFORMANCE_TIMEOUT", "120"))
_GRACE = 30.0
_results_path = os.environ.get("CONFORMANCE_RESULTS")
_is_controller = True


@pytest.fixture
def initialize_from_pytest_config(request):
    if request.cls is not None:
        request.cls._dump_failed_filechecks = False


def pytest_configure(config):
    global _is_controller
    _is_controller = not hasattr(config, "workerinput")


class _TestTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _TestTimeout("the test ran past the conformance runner's limit of %g s" % _TIMEOUT)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    use_alarm = _TIMEOUT > 0 and threading.current_thread() is threading.main_thread()
    if _TIMEOUT > 0:
        faulthandler.dump_traceback_later(_TIMEOUT + _GRACE, exit=True)
    if use_alarm:
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, _TIMEOUT)
    try:
        yield
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        if _TIMEOUT > 0:
            faulthandler.cancel_dump_traceback_later()


def _message(report):
    if report.outcome == "skipped" and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    text = str(report.longrepr or "")
    # A collection error's text is a traceback whose "E   " lines say what went wrong.
    errors = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    return errors[-1] if errors else text


def _record(nodeid, when, outcome, message, xfail=False):
    if not _results_path or not _is_controller:
        return
    line = {"id": nodeid, "when": when, "outcome": outcome, "message": message[:2000]}
    if xfail:
        line["xfail"] = True
    with open(_results_path, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def pytest_runtest_logreport(report):
    xfail = hasattr(report, "wasxfail")
    if report.when == "call" or report.outcome != "passed":
        _record(
            report.nodeid,
            report.when,
            report.outcome,
            _message(report) if report.outcome != "passed" else "",
            xfail,
        )


def pytest_collectreport(report):
    if report.failed:
        _record(report.nodeid, "collect", "failed", _message(report))


def _origin(value):
    """The module a test module's global comes from (a module's own name, or a class's or function's)."""
    if type(value).__name__ == "module":
        return value.__name__
    return getattr(value, "__module__", None) if callable(value) else None


def pytest_collection_finish(session):
    """With $CONFORMANCE_ORIGINS set: where each collected test module's numba-ish globals come from, one JSON
    line per module, so the runner can check that the rewrite pointed a file at the target it names."""
    path = os.environ.get("CONFORMANCE_ORIGINS")
    if not path or not _is_controller:
        return
    seen = {}
    for item in session.items:
        module = getattr(item, "module", None)
        if module is None or module.__name__ in seen:
            continue
        origins = {}
        for name, value in vars(module).items():
            origin = _origin(value)
            if origin and (origin == "numba" or origin.startswith(("numba.", "numba_cuda_c", "cuda_testing"))):
                origins[name] = origin
        seen[module.__name__] = {"file": item.nodeid.split("::")[0], "origins": origins}
    with open(path, "w", encoding="utf-8") as f:
        for entry in seen.values():
            f.write(json.dumps(entry) + "\n")
