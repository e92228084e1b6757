"""A differential kernel fuzzer: random @cuda.jit kernels run by numba-cuda (the oracle) and by numba_cuda_c on one
GPU with the same inputs; their results' types and bits compared.

    python3 tests/fuzz/kernel_fuzzer.py --seed 1 --cases 1000 --jobs 14 [--out DIR] [--families a,b] [--types-only]
    python3 tests/fuzz/kernel_fuzzer.py --seed 1 --case 17          # one case alone, in this process, reduced
    python3 tests/fuzz/kernel_fuzzer.py --seed 1 --only 3,17,40     # these cases, in parallel

Modules: fuzz_generator.py (kernels and inputs from (seed, case) alone), fuzz_runner.py (compile, launch, compare),
fuzz_reducer.py (shrinks a failure), this file (processes, the report).

What is compared, and why. Each result r<j> of a kernel is assigned once (so numba's typemap names it r<j>) and stored
twice: into a float64 array and into an int64 array (a complex one into complex128). After numba compiled the kernel,
its typemap says which column holds the result exactly: int64 for integers and booleans (uint64 values keep their
bits), float64 for floats (float16 and float32 widen exactly), complex128 for complex; that column is compared bit for
bit (the other may hold a float converted out of range: undefined, ignored). And each result's type in numba's typemap
is compared with ours (numba_cuda_c.pyjit.translate.variable_types): a typing difference is found even where the
values happen to agree, so a kernel needs no per-type output arrays and compiles once per compiler. NaNs are compared
bitwise too, but where only NaN payloads or signs differ the case is counted apart ("nan-bits") and fails the run
only with --strict-nan.

Verdicts: same; known (a difference listed in known_differences.txt, with its reason); undefined (the same apart from elements where a signed +, - or * overflowed: numba marks them
nsw, so its result there is undefined; our build for the fuzzer flags those threads); different (types or bits); nan-bits; refused (numba compiled it, we raised: a failure); numba-refused
(skipped, not counted); error (a launch failed or the fuzzer itself did). Exit status 1 on any different, refused or
error case. Kernels avoid what is undefined in numba (LLVM poison): floats converted to integers come from "tame"
inputs within [-100, 100], shift counts are in [0, 63] (the `shiftedge` family, opt-in, tries others), integer
exponents of integers are non-negative outside `divzero`.

--types-only needs no GPU: numba-cuda types and lowers a kernel on the CPU (numba.cuda.compiler.compile_cuda given a
compute capability; it needs numba-cuda and llvmlite, not a driver), and ours is translated and compiled by NVRTC
(compile_ptx); the result types are compared. Without numba-cuda it checks that every kernel translates and compiles.
"""

import argparse
import concurrent.futures as futures
import json
import multiprocessing
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from fuzz_generator import EXTRA_FAMILIES, FAMILIES, generate  # noqa: E402

STATUSES = ["same", "undefined", "known", "different", "nan-bits", "refused", "numba-refused", "error", "compiled"]
FAILING = ("different", "refused", "error")


KNOWN = os.path.join(HERE, "known_differences.txt")


def known_differences(path=KNOWN):
    """{(seed, case): reason} of known_differences.txt: differences from numba-cuda we accept, each with its reason."""
    found = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            where, _, reason = line.partition(" ")
            seed, _, case = where.partition(":")
            found[(int(seed), int(case))] = reason.strip()
    return found


def mark_known(seed, records, known):
    """A listed case that differs (or that we refuse) is 'known', with its reason."""
    for r in records:
        reason = known.get((seed, r["case"]))
        if reason and r["status"] in ("different", "refused"):
            r["status"], r["known"] = "known", reason


def make_runner(options, workdir):
    import fuzz_runner

    if options["types_only"]:
        return fuzz_runner.TypeRunner(workdir, use_numba=not options["ours_only"])
    return fuzz_runner.Runner(workdir, strict_nan=options["strict_nan"])


def work(seed, indices, families, options, reduce=False):
    """A worker's chunk: records for the cases (reduced where `reduce`), and the cases it left (context lost)."""
    import fuzz_reducer
    import fuzz_runner

    workdir = tempfile.mkdtemp(prefix="kfuzz-")
    os.environ.setdefault("NUMBA_CUDA_C_CACHE_DIR", os.path.join(workdir, "cache"))
    runner = make_runner(options, workdir)
    records = []
    for position, index in enumerate(indices):
        case = generate(seed, index, families)
        try:
            record = fuzz_runner.safe_run(runner, case)
            if reduce and record["status"] in ("different", "refused"):
                source, tries, final = fuzz_reducer.reduce_record(runner, case, record, options["reduce_budget"])
                record.update(reduced=source, reduce_tries=tries, reduced_record=final)
                record["reduced_types"] = full_types(runner, case, source)
        except fuzz_runner.ContextLost as exc:
            records.append(base(case, "error", "launch failed (the worker stops): %s" % exc))
            return records, list(indices[position + 1 :])
        record.update(source=case.source, dtypes={a.name: a.dtype for a in case.inputs}, n=case.arrays["a0"].size)
        records.append(record)
    return records, []


def base(case, status, error):
    return {"case": case.index, "family": case.family, "status": status, "error": error, "source": case.source}


def full_types(runner, case, source):
    """{variable: (numba's type, ours)} of a (reduced) kernel, user variables only, where cheap."""
    import fuzz_runner

    try:
        case = fuzz_runner.case_with_source(case, source)
        function = fuzz_runner.load(case, runner.workdir)
        ours = fuzz_runner.our_types(function, case)
        theirs = {}
        if getattr(runner, "ncuda", None) is not None:
            from numba.cuda.compiler import compile_cuda

            nt = runner.ntypes
            cres = compile_cuda(
                fuzz_runner.bind(function, runner.ncuda), nt.void, fuzz_runner.argtypes(case, nt), cc=(8, 0)
            )
            theirs = {k: fuzz_runner.norm_type(v) for k, v in cres.type_annotation.typemap.items()}
        names = [k for k in theirs if not k.startswith(("$", "arg."))] + [
            k for k in ours if k not in theirs and "__" not in k
        ]
        return {k: (theirs.get(k), ours.get(k)) for k in names if not str(ours.get(k, "")).endswith("[::1]")}
    except Exception as exc:  # noqa: BLE001
        return {"?": ("%s: %s" % (type(exc).__name__, exc), None)}


def run_parallel(seed, indices, families, options, jobs, reduce=False):
    """Records of all the cases, spread over `jobs` spawned processes (a fresh one per chunk: a lost CUDA context
    or a crash stays in its chunk; the cases after it run again elsewhere, a chunk that crashed is split)."""
    size = max(1, min(50, -(-len(indices) // (jobs * 2))))
    pending = [(indices[k : k + size], 0) for k in range(0, len(indices), size)]
    records = []
    context = multiprocessing.get_context("spawn")
    while pending:
        with futures.ProcessPoolExecutor(jobs, mp_context=context, max_tasks_per_child=1) as pool:
            running = {
                pool.submit(work, seed, chunk, families, options, reduce): (chunk, tries)
                for chunk, tries in pending
            }
            pending = []
            for future in futures.as_completed(running):
                chunk, tries = running[future]
                try:
                    done, left = future.result()
                    records += done
                    if left:
                        pending.append((left, 0))
                except Exception as exc:  # noqa: BLE001 -- a worker died (segfault, abort): split, retry, give up
                    if len(chunk) > 1:
                        half = len(chunk) // 2
                        pending += [(chunk[:half], 0), (chunk[half:], 0)]
                    elif tries < 2:
                        pending.append((chunk, tries + 1))
                    else:
                        records.append(
                            {"case": chunk[0], "family": "?", "status": "error", "error": "worker died: %r" % exc}
                        )
    seen, unique = set(), []
    for r in sorted(records, key=lambda r: r["case"]):
        if r["case"] not in seen:
            seen.add(r["case"])
            unique.append(r)
    return unique


def report(records, reduced, out=sys.stdout):
    import fuzz_runner

    by_case = {r["case"]: r for r in reduced}
    for r in records:
        if r["status"] == "known":
            print("case %d [%s] KNOWN: %s" % (r["case"], r["family"], r["known"]), file=out)
            continue
        if r["status"] not in FAILING and r["status"] != "nan-bits":
            continue
        r = by_case.get(r["case"], r)
        print("=" * 110, file=out)
        print(
            "case %d [%s] %s   inputs %s, %s elements"
            % (r["case"], r["family"], r["status"].upper(), r.get("dtypes"), r.get("n")),
            file=out,
        )
        if r.get("reduced"):
            print("reduced (%d tries) from %d lines:" % (r["reduce_tries"], r["source"].count("\n")), file=out)
            print(r["reduced"], file=out)
            print("\n".join(fuzz_runner.describe(r.get("reduced_record") or r)), file=out)
            types = r.get("reduced_types") or {}
            if types:
                print(
                    "  types (numba / ours): "
                    + ", ".join("%s: %s / %s" % (k, a, b) for k, (a, b) in types.items()),
                    file=out,
                )
        else:
            print(r.get("source", ""), file=out)
            print("\n".join(fuzz_runner.describe(r)), file=out)


def summary(records):
    table = {}
    for r in records:
        for family in ["all"] + r["family"].split("+"):
            row = table.setdefault(family, dict.fromkeys(["cases"] + STATUSES, 0))
            row["cases"] += 1
            row[r["status"]] = row.get(r["status"], 0) + 1
    return table


def print_summary(table, out=sys.stdout):
    columns = ["cases"] + [s for s in STATUSES if any(row.get(s) for row in table.values())]
    print("%-12s" % "family" + "".join("%14s" % c for c in columns), file=out)
    for family in sorted(table, key=lambda f: (f != "all", f)):
        print("%-12s" % family + "".join("%14d" % table[family].get(c, 0) for c in columns), file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--case", type=int, default=None, help="run this one case alone, in this process")
    parser.add_argument(
        "--only", default=None, help="these cases of the seed (i,j,k), in parallel: those a change touched"
    )
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    parser.add_argument("--families", default=",".join(FAMILIES), help="of: " + ",".join(FAMILIES + EXTRA_FAMILIES))
    parser.add_argument("--out", default=None, help="a folder for summary.json")
    parser.add_argument("--types-only", action="store_true", help="no GPU: compare types (numba-cuda on the CPU)")
    parser.add_argument(
        "--ours-only", action="store_true", help="with --types-only: translate and compile ours only"
    )
    parser.add_argument("--strict-nan", action="store_true", help="NaN payload and sign differences fail the run")
    parser.add_argument("--reduce", type=int, default=20, help="reduce at most this many failures (0: none)")
    parser.add_argument("--reduce-budget", type=int, default=60, help="compilations a reduction may try")
    parser.add_argument("--print-source", action="store_true", help="with --case: print the kernel and stop")
    args = parser.parse_args(argv)
    families = args.families.split(",")
    unknown = set(families) - set(FAMILIES + EXTRA_FAMILIES)
    if unknown:
        parser.error("unknown families: %s" % ", ".join(sorted(unknown)))
    os.environ.pop("NUMBA_CUDA_C_AS_NUMBA_CUDA", None)  # spawned workers must see numba-cuda as numba.cuda
    options = dict(
        types_only=args.types_only,
        ours_only=args.ours_only,
        strict_nan=args.strict_nan,
        reduce_budget=args.reduce_budget,
    )
    started = time.time()
    if args.case is not None:
        case = generate(args.seed, args.case, families)
        print(case.module_text())
        if args.print_source:
            return 0
        records, _ = work(args.seed, [args.case], families, options, reduce=args.reduce > 0)
        reduced = records
    else:
        indices = [int(i) for i in args.only.split(",")] if args.only else list(range(args.cases))
        records = run_parallel(args.seed, indices, families, options, args.jobs)
        failing = [r["case"] for r in records if r["status"] in ("different", "refused")][: args.reduce]
        reduced = run_parallel(args.seed, failing, families, options, args.jobs, reduce=True) if failing else []
    mark_known(args.seed, records, known_differences())
    report(records, reduced)
    table = summary(records)
    print(
        "\nseed %d, %d cases in %.1f s%s:"
        % (args.seed, len(records), time.time() - started, " (types only)" if args.types_only else "")
    )
    print_summary(table)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        by_case = {r["case"]: r for r in reduced}
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump(
                {"seed": args.seed, "families": families, "options": options, "summary": table,
                 "records": [by_case.get(r["case"], r) for r in records]},
                f, indent=1, default=str,
            )  # fmt: skip
    return 1 if any(table["all"].get(s) for s in FAILING) else 0


if __name__ == "__main__":
    sys.exit(main())
