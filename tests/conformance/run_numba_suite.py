#!/usr/bin/env python3
"""Runs numba-cuda's own tests against numba_cuda_c and against numba-cuda itself, side by side.

    python tests/conformance/run_numba_suite.py cudadrv doc_examples [-n 8] [--out DIR]

Takes the test folders from the installed numba-cuda package, writes two rewritten copies to a temporary directory
(their user-facing imports pointed at numba_cuda_c in one, at numba.cuda in the other: rewrite.py), runs each with
pytest (and pytest-xdist), and prints a per-file table: numba-cuda's passes beside ours, with the failures of ours
that numba-cuda passes and known_differences.txt does not list. Exits 1 when there is any such failure, 2 when a
run could not be made. Needs a GPU for meaningful results; see README.md.
"""

import argparse
import fnmatch
import importlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from rewrite import USER_SUBMODULES, rewrite_source  # noqa: E402

FOLDERS = ("cudadrv", "doc_examples", "cudapy")
RUNS = (("numba-cuda", "numba.cuda"), ("numba_cuda_c", "numba_cuda_c"))
PASSED = ("passed",)


def _numpy_shim():
    import numpy

    if not hasattr(numpy, "row_stack"):
        numpy.row_stack = numpy.vstack


def numba_tests_dir():
    """The installed numba-cuda package's tests folder (numba.cuda.tests), or None."""
    _numpy_shim()
    try:
        spec = importlib.util.find_spec("numba.cuda.tests")
    except ImportError:
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def our_package_parent():
    """The folder to put on PYTHONPATH so that `import numba_cuda_c` finds the package this runner belongs to's
    build: the installed one if it imports, else this checkout (built in place)."""
    try:
        module = importlib.import_module("numba_cuda_c")
    except ImportError:
        sys.path.insert(0, REPO)
        module = importlib.import_module("numba_cuda_c")
    return os.path.dirname(os.path.dirname(os.path.abspath(module.__file__)))


def build_tree(root, tests_dir, folders, target):
    """Writes `folders` of numba-cuda's tests under `root`, rewritten for `target`, with the conformance
    harness (conftest, sitecustomize, the numba.cuda.testing shim, the name of the target)."""
    os.makedirs(root)
    for folder in folders:
        src_dir = os.path.join(tests_dir, folder)
        shutil.copytree(src_dir, os.path.join(root, folder), ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for dirpath, _, filenames in os.walk(os.path.join(root, folder)):
            for name in filenames:
                if not name.endswith(".py"):
                    continue
                path = os.path.join(dirpath, name)
                if name == "__init__.py":
                    text = '"""numba-cuda test package, rewritten for %s."""\n' % target
                else:
                    with open(path, encoding="utf-8") as f:
                        text = rewrite_source(f.read(), target, folders)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    shutil.copy(os.path.join(HERE, "tree_conftest.py"), os.path.join(root, "conftest.py"))
    shutil.copy(os.path.join(HERE, "tree_sitecustomize.py"), os.path.join(root, "sitecustomize.py"))
    shutil.copy(os.path.join(HERE, "cuda_testing.py"), os.path.join(root, "cuda_testing.py"))
    with open(os.path.join(root, "_conformance_target.py"), "w") as f:
        f.write("MODULE = %r\n" % target)
    with open(os.path.join(root, "pytest.ini"), "w") as f:
        f.write("[pytest]\naddopts =\npython_files = test_*.py\n")


def run_pytest(root, folders, args, extra_path, work, label):
    """Runs pytest on a tree; returns (exit code, seconds, log path, results path)."""
    results = os.path.join(work, label + ".results.jsonl")
    log = os.path.join(work, label + ".log")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root] + extra_path + [p for p in [env.get("PYTHONPATH")] if p])
    env["CONFORMANCE_RESULTS"] = results
    env["CONFORMANCE_TIMEOUT"] = str(args.timeout)
    env.pop("CONFORMANCE_ORIGINS", None)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-c",
        os.path.join(root, "pytest.ini"),
        "--rootdir",
        root,
        "-p",
        "no:cacheprovider",
        "--continue-on-collection-errors",
        "-q",
    ]
    if args.collect_only:
        env["CONFORMANCE_ORIGINS"] = os.path.join(work, label + ".origins.jsonl")
        cmd.append("--collect-only")
    elif args.n > 0:
        cmd += ["-n", str(args.n)]
    if args.k:
        cmd += ["-k", args.k]
    if args.out and not args.collect_only:
        cmd += ["--junitxml", os.path.join(args.out, label + ".junit.xml")]
    cmd += list(folders)
    start = time.monotonic()
    with open(log, "w") as f:
        rc = subprocess.call(cmd, cwd=root, env=env, stdout=f, stderr=subprocess.STDOUT)
    return rc, time.monotonic() - start, log, results


def read_outcomes(results_path, collected_files):
    """test id -> (outcome, message) from a run's JSON lines: 'failed' if any phase failed, else 'skipped' or
    'xfailed', else 'passed'. A file that did not collect is returned in `errors` (file -> message)."""
    outcomes, errors = {}, {}
    if not os.path.exists(results_path):
        return outcomes, errors
    rank = {"passed": 0, "skipped": 1, "xfailed": 1, "failed": 2}
    with open(results_path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["when"] == "collect":
                errors[r["id"]] = r["message"]
                continue
            outcome = "xfailed" if r.get("xfail") and r["outcome"] == "skipped" else r["outcome"]
            old = outcomes.get(r["id"])
            if old is None or rank[outcome] > rank[old[0]]:
                outcomes[r["id"]] = (outcome, r["message"])
    return outcomes, errors


def load_known(path):
    """Known differences: (pattern, reason) pairs. A line is a test id, a file or class prefix of one, or an
    fnmatch pattern, then its reason; '#' starts a comment line."""
    known = []
    if not os.path.exists(path):
        return known
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            pattern, _, reason = line.partition(" ")
            if not reason.strip():
                raise SystemExit("%s:%d: a known difference needs a reason: %r" % (path, number, line))
            known.append((pattern, reason.strip()))
    return known


def known_reason(test_id, known):
    for pattern, reason in known:
        if test_id == pattern or test_id.startswith(pattern + "::") or fnmatch.fnmatchcase(test_id, pattern):
            return reason
    return None


def compare(theirs, ours, our_errors, known):
    """One row per test that either run saw: (id, numba-cuda's outcome, ours, ours' message, status), status
    being 'new' (numba-cuda passes, we do not, not listed), 'known', 'stale' (listed but passes), or ''."""
    rows = []
    for test_id in sorted(set(theirs) | set(ours)):
        t = theirs.get(test_id, ("absent", ""))[0]
        o, message = ours.get(test_id, ("absent", ""))
        if o == "absent":
            file = test_id.split("::")[0]
            o, message = "failed", our_errors.get(file, "not run by numba_cuda_c (its worker crashed?)")
            if file in our_errors:
                message = "collection failed: " + message
        reason = known_reason(test_id, known)
        status = ""
        if t in PASSED and o not in PASSED:
            status = "known" if reason else "new"
        elif o in PASSED and any(pattern == test_id for pattern, _ in known):
            # only an entry naming this very test is stale: a file or class listed for numba's internals
            # may hold tests that touch nothing of ours, and pass
            status = "stale"
        rows.append((test_id, t, o, message, status))
    return rows


def table(rows):
    """The per-file table, with totals, as lines."""
    per_file = {}
    for test_id, t, o, _, status in rows:
        counts = per_file.setdefault(test_id.split("::")[0], [0, 0, 0, 0, 0])
        counts[0] += t in PASSED
        counts[1] += o in PASSED
        counts[2] += o == "failed"
        counts[3] += status == "known"
        counts[4] += status == "new"
    head = ("file", "numba-cuda passed", "ours passed", "ours failed", "known differences", "new failures")
    body = [(f,) + tuple(c) for f, c in sorted(per_file.items())]
    totals = ("total",) + tuple(sum(r[i] for r in body) for i in range(1, 6))
    width = max([len(head[0])] + [len(r[0]) for r in body])
    fmt = "%-" + str(width) + "s | %17s | %11s | %11s | %17s | %12s"
    rule = "-" * len(fmt % head)
    return [rule, fmt % head, rule] + [fmt % r for r in body] + [rule, fmt % totals, rule]


def write_out(out, rows, lines):
    with open(os.path.join(out, "results.tsv"), "w", encoding="utf-8") as f:
        f.write("test\tnumba-cuda\tnumba_cuda_c\tstatus\tmessage\n")
        for test_id, t, o, message, status in rows:
            f.write("\t".join([test_id, t, o, status or "-", " ".join(message.split())[:500]]) + "\n")
    with open(os.path.join(out, "table.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def check_origins(path, target):
    """Collect-only check: which test modules bind `cuda`, a driver name or a type to the other run's module
    (numba.cuda or one of its user-facing submodules, or numba_cuda_c). Returns lines to print."""
    bad, count = [], 0
    if not os.path.exists(path):
        return ["no module was collected"]
    with open(path, encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            count += 1
            for name, origin in entry["origins"].items():
                parts = origin.split(".")
                user = origin == "numba.cuda" or parts[0] == "numba_cuda_c"
                user = user or (parts[:2] == ["numba", "cuda"] and len(parts) > 2 and parts[2] in USER_SUBMODULES)
                if user and not (origin == target or origin.startswith(target + ".")):
                    bad.append("%s: %s is %s" % (entry["file"], name, origin))
    return ["%d modules imported, %d names pointing elsewhere than %s" % (count, len(bad), target)] + bad


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", choices=FOLDERS, help="numba-cuda test folders to run")
    parser.add_argument("-n", type=int, default=8, help="pytest-xdist workers per run (0: none; default 8)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds one test may take (default 120)")
    parser.add_argument("--out", help="folder for the per-test list, the table, pytest's logs and JUnit files")
    parser.add_argument("--known", default=os.path.join(HERE, "known_differences.txt"))
    parser.add_argument("-k", help="pytest -k expression, for both runs")
    parser.add_argument("--only", choices=[label for label, _ in RUNS], help="make one run only")
    parser.add_argument(
        "--collect-only",
        action="store_true",
        help="collect and import only (no GPU needed): counts, and that each run's files point at " "its target",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (its path is printed)")
    args = parser.parse_args(argv)
    folders = list(dict.fromkeys(args.folders))

    tests_dir = numba_tests_dir()
    if tests_dir is None:
        print("numba-cuda is not installed (numba.cuda.tests not found): pip install -e '.[conformance]'")
        return 2
    if args.n > 0 and not args.collect_only and importlib.util.find_spec("xdist") is None:
        print("pytest-xdist is not installed: pass -n 0, or pip install pytest-xdist")
        return 2
    try:
        ours_path = our_package_parent()
    except ImportError as e:
        print(
            "numba_cuda_c does not import (%s): install it, or build this checkout in place "
            "(python setup.py build_ext --inplace)" % e
        )
        return 2
    known = load_known(args.known)
    work = tempfile.mkdtemp(prefix="numba-conformance-")
    if os.path.commonpath([work, REPO]) == REPO:
        raise SystemExit("the temporary directory %s is inside the repository" % work)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    print("numba-cuda tests from %s; numba_cuda_c from %s; trees in %s" % (tests_dir, ours_path, work))

    outcomes, exit_codes = {}, {}
    try:
        for label, target in RUNS:
            if args.only and args.only != label:
                continue
            root = os.path.join(work, label)
            build_tree(root, tests_dir, folders, target)
            extra = [ours_path] if target == "numba_cuda_c" else []
            rc, seconds, log, results = run_pytest(root, folders, args, extra, work, label)
            exit_codes[label] = rc
            if args.out:
                shutil.copy(log, os.path.join(args.out, label + ".log"))
            with open(log, encoding="utf-8", errors="replace") as f:
                tail = f.read().strip().splitlines()[-1:] or ["(no output)"]
            print("%s: pytest exit %d in %.0f s: %s" % (label, rc, seconds, tail[0]))
            if args.collect_only:
                for line in check_origins(os.path.join(work, label + ".origins.jsonl"), target):
                    print("  " + line)
                continue
            outcomes[label] = read_outcomes(results, folders)
            if rc not in (0, 1) and not outcomes[label][0]:
                print("  %s made no test run; the end of its log:" % label)
                print("  " + "\n  ".join(open(log, errors="replace").read().splitlines()[-30:]))
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.collect_only:
        return 0 if all(rc in (0, 1) for rc in exit_codes.values()) else 2
    theirs, their_errors = outcomes.get("numba-cuda", ({}, {}))
    ours, our_errors = outcomes.get("numba_cuda_c", ({}, {}))
    if args.only == "numba_cuda_c":
        theirs = {}
    rows = compare(theirs, ours, our_errors, known)
    for file, message in sorted(their_errors.items()):
        print("numba-cuda could not collect %s: %s" % (file, message.strip().splitlines()[-1:]))
    new = [r for r in rows if r[4] == "new"]
    stale = [r for r in rows if r[4] == "stale"]
    if stale:
        print("\nListed in %s but passing now (remove them):" % os.path.basename(args.known))
        for r in stale:
            print("  " + r[0])
    if new:
        print("\nNew failures (numba-cuda passes, numba_cuda_c does not, not a known difference):")
        for r in new[:80]:
            print("  %s: %s: %s" % (r[0], r[2], " ".join(r[3].split())[:160]))
        if len(new) > 80:
            print("  ... and %d more%s" % (len(new) - 80, " (see results.tsv)" if args.out else " (use --out)"))
    lines = table(rows)
    if args.out:
        write_out(args.out, rows, lines)
        lines.append("per-test results: %s" % os.path.join(args.out, "results.tsv"))
    print()
    print("\n".join(lines))
    if not theirs and args.only != "numba_cuda_c":
        print("numba-cuda's run produced no result: nothing to compare")
        return 2
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main())
