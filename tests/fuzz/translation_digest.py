"""The CUDA C our translator writes for the fuzzer's kernels, one digest a kernel: a refactor of the translator that
must not change what it writes is checked without a GPU by comparing two commits' digests.

    python3 tests/fuzz/translation_digest.py --seeds 1 2 3 --cases 1000 --out before.json
    (change the translator)
    python3 tests/fuzz/translation_digest.py --seeds 1 2 3 --cases 1000 --compare before.json

A kernel we refuse has the refusal's message as its text; --show N prints the C of the first N that differ."""

import argparse
import hashlib
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))

import fuzz_generator  # noqa: E402
import fuzz_runner  # noqa: E402

import numba_cuda_c  # noqa: E402


def translation(case, workdir):
    """The C written for a case's kernel (with its prelude), or the refusal's message."""
    function = fuzz_runner.bind(fuzz_runner.load(case, workdir), numba_cuda_c)
    signature = fuzz_runner.argtypes(case, numba_cuda_c.types)
    try:
        return numba_cuda_c.jit(function).inspect_source(signature)
    except Exception as exc:  # noqa: BLE001  (a refusal is what we write for it)
        message = re.sub(r"\S*fuzz_s\d+_c\d+_\d+\.py", "kernel.py", str(exc))  # the file's name varies by run
        return "refused: %s: %s" % (type(exc).__name__, message)


def digests(seeds, cases):
    """{"seed:case": (sha256 of the translation, the translation)}."""
    found = {}
    with tempfile.TemporaryDirectory() as workdir:
        for seed in seeds:
            for index in range(cases):
                case = fuzz_generator.generate(seed, index)
                text = translation(case, workdir)
                found["%d:%d" % (seed, index)] = (hashlib.sha256(text.encode()).hexdigest(), text)
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--out", help="write the digests (and texts) to this JSON file")
    parser.add_argument("--compare", help="compare with the digests of this JSON file; exit 1 where any differs")
    parser.add_argument("--show", type=int, default=1, help="print the C of this many that differ")
    args = parser.parse_args(argv)
    found = digests(args.seeds, args.cases)
    refused = sum(text.startswith("refused: ") for _, text in found.values())
    print("%d kernels translated, %d refused" % (len(found), refused))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(found, f)
    if args.compare:
        with open(args.compare) as f:
            before = json.load(f)
        changed = [key for key in found if key in before and before[key][0] != found[key][0]]
        print("%d of %d compared differ%s" % (len(changed), len(set(found) & set(before)), ": " if changed else ""))
        print(" ".join(changed))
        for key in changed[: args.show]:
            print("=" * 100, "\n%s before:\n%s\n%s after:\n%s" % (key, before[key][1], key, found[key][1]))
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
