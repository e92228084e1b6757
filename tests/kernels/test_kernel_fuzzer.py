"""The differential kernel fuzzer (tests/fuzz/kernel_fuzzer.py): its generator is deterministic, every kernel it
makes translates and compiles with NVRTC (no GPU), its reducer and comparison work, and, where a GPU and numba-cuda
are, 100 random kernels give numba-cuda's results bit for bit."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import numba_cuda_c as cuda
from gpu import needs_nvrtc, requires_gpu

FUZZ = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fuzz")
sys.path.insert(0, FUZZ)

import fuzz_generator  # noqa: E402
import fuzz_reducer  # noqa: E402
import fuzz_runner  # noqa: E402

SEED = 20250101


def test_the_generator_is_deterministic():
    for index in (0, 1, 57, 199):
        a, b = fuzz_generator.generate(SEED, index), fuzz_generator.generate(SEED, index)
        assert a.source == b.source and a.family == b.family and a.outputs == b.outputs
        assert list(a.arrays) == list(b.arrays)
        for name in a.arrays:
            assert a.arrays[name].dtype == b.arrays[name].dtype
            assert a.arrays[name].tobytes() == b.arrays[name].tobytes()
    sources = {fuzz_generator.generate(SEED, index).source for index in range(20)}
    assert len(sources) == 20
    assert fuzz_generator.generate(SEED + 1, 0).source != fuzz_generator.generate(SEED, 0).source


def test_the_families_are_covered_and_selectable():
    families = {f for index in range(300) for f in fuzz_generator.generate(SEED, index).families}
    assert families == set(fuzz_generator.FAMILIES)
    for index in range(30):
        case = fuzz_generator.generate(SEED, index, ["cmath"])
        assert case.families == ["cmath"]
        assert any(a.dtype.startswith("complex") for a in case.inputs)
    assert any(
        "<< 64" in c.source or ">> 64" in c.source or "<<= 64" in c.source or ">>= 64" in c.source
        for c in (fuzz_generator.generate(SEED, index, ["shiftedge"]) for index in range(60))
    )


def test_inputs_hold_the_edge_values():
    seen = {}
    for index in range(60):
        case = fuzz_generator.generate(SEED, index)
        for a in case.inputs:
            seen.setdefault(a.dtype, []).append(case.arrays[a.name])
            assert case.arrays[a.name].size == case.arrays["a0"].size
            assert 64 <= case.arrays[a.name].size <= 256
            if a.tame:
                assert np.all(np.abs(case.arrays[a.name]) <= fuzz_generator.TAME)
    floats = np.concatenate(seen["float64"])
    assert np.isnan(floats).any() and np.isinf(floats).any() and (floats == np.finfo(np.float64).max).any()
    assert (np.signbit(floats) & (floats == 0)).any()  # -0.0
    assert ((floats != 0) & (np.abs(floats) < np.finfo(np.float64).tiny)).any()  # subnormals
    ints = np.concatenate(seen["int64"])
    assert ints.min() == np.iinfo(np.int64).min and ints.max() == np.iinfo(np.int64).max and (ints == -1).any()


@needs_nvrtc
def test_every_generated_kernel_translates_and_compiles(tmp_path, monkeypatch):
    """Our translator and NVRTC take every kernel of 200 cases, but those of constructs numba refuses too
    (fuzz_generator.NUMBA_REFUSES_TOO: bitwise operators given floats the generator took for integers)."""
    monkeypatch.setenv("NUMBA_CUDA_C_CACHE_DIR", str(tmp_path / "cache"))
    runner = fuzz_runner.TypeRunner(str(tmp_path), use_numba=False)
    statuses = {}
    for index in range(200):
        record = runner.run(fuzz_generator.generate(SEED, index))
        statuses.setdefault(record["status"], []).append((index, record.get("error")))
        if record["status"] == "compiled":
            assert set(record["our_types"]) == {r for r, _ in fuzz_generator.generate(SEED, index).results}
    refused = [(i, e) for i, e in statuses.pop("refused", []) if not fuzz_generator.numba_refuses_too(e)]
    assert not refused, "\n\n".join("case %d: %s" % r for r in refused)
    assert set(statuses) == {"compiled"} and len(statuses["compiled"]) >= 190


def test_the_reducer_keeps_the_failure_and_drops_the_rest():
    source = (
        "def k(f0, n0, f1, n1, a0, a1):\n"
        "    i = cuda.grid(1)\n"
        "    if i < a0.size:\n"
        "        v1 = a0[i] + 3\n"
        "        v2 = (v1 * 2 if a1[i] else 7) ** (-2)\n"
        "        v3 = a1[i] - 1\n"
        "        r0 = v2 + v3\n"
        "        f0[i] = r0\n"
        "        n0[i] = r0\n"
        "        r1 = a1[i]\n"
        "        f1[i] = r1\n"
        "        n1[i] = r1\n"
    )
    tries = []

    def still_fails(text):
        tries.append(text)
        compile(text, "<reduced>", "exec")  # every candidate is Python
        return "** (-2)" in text and "r0" in text

    reduced, count = fuzz_reducer.reduce_source(source, still_fails, ["r0"], ["r0", "r1"], budget=200)
    assert count == len(tries) and count < 200
    assert "** (-2)" in reduced and "r1" not in reduced and "v3" not in reduced and "v1 =" not in reduced
    assert "if i < a0.size:" in reduced  # the guard stays
    assert reduced.count("\n") < source.count("\n")


def test_the_comparison_reads_the_column_of_numbas_type():
    case = fuzz_generator.generate(SEED, 0)
    case.results = [("r0", {"f": "f0", "n": "n0"})]
    big = np.array([2**62 + 1, 5], np.int64)
    theirs = {"f0": big.astype(np.float64), "n0": big}
    mine = {"f0": big.astype(np.float64), "n0": big + np.array([1, 0])}  # the float64 column cannot tell them apart
    diffs, undefined = fuzz_runner.compare(case, theirs, mine, {"r0": "int64"}, {"r0": "int64"})
    assert [(d["what"], d["column"], d["count"], d["element"]) for d in diffs] == [("value", "n0 (int64)", 1, 0)]
    assert undefined == 0
    assert fuzz_runner.compare(case, theirs, mine, {"r0": "float64"}, {"r0": "float64"}) == ([], 0)
    diffs, _ = fuzz_runner.compare(case, theirs, theirs, {"r0": "uint64"}, {"r0": "int64"})
    assert [d["what"] for d in diffs] == ["type"]
    nan, other_nan = np.array([np.nan, 1.0]), np.array([-np.nan, 1.0])
    diffs, _ = fuzz_runner.compare(case, {"f0": nan}, {"f0": other_nan}, {"r0": "float64"}, {"r0": "float64"})
    assert [d["what"] for d in diffs] == ["nan-bits"]


def test_elements_whose_thread_overflowed_are_left_out():
    """numba's signed + - * are nsw: where one overflowed, its result is undefined and not compared (counted)."""
    case = fuzz_generator.generate(SEED, 0)
    case.results = [("r0", {"f": "f0", "n": "n0"})]
    theirs = {"n0": np.array([7, 8, 9], np.int64)}
    mine = {"n0": np.array([7, 1, 2], np.int64)}
    overflowed = np.array([False, True, False])
    diffs, undefined = fuzz_runner.compare(case, theirs, mine, {"r0": "int64"}, {"r0": "int64"}, overflowed)
    assert undefined == 1 and [(d["count"], d["element"]) for d in diffs] == [(1, 2)]
    overflowed[2] = True
    assert fuzz_runner.compare(case, theirs, mine, {"r0": "int64"}, {"r0": "int64"}, overflowed) == ([], 2)


@needs_nvrtc
def test_the_fuzzers_build_flags_signed_overflow():
    """The option the fuzzer compiles with: each signed + - * and int ** product checks for overflow and sets its
    thread's byte; without it, no trace of the check."""
    from numba_cuda_c.pyjit import ptx as ptx_module
    from numba_cuda_c.pyjit.options import nvrtc_options

    def k(a, out):
        i = cuda.grid(1)
        out[i] = a[i] * a[i] + a[i] ** 3 - a[i]

    sig = (cuda.types.int64[::1], cuda.types.int64[::1])
    assert "-DNCC_SIGNED_OVERFLOW_FLAGS" in nvrtc_options(signed_overflow_flags=True)
    plain, _ = cuda.compile_ptx(k, sig)
    original = ptx_module.nvrtc_options
    ptx_module.nvrtc_options = lambda **kw: original(signed_overflow_flags=True, **kw)
    try:
        flagged, _ = cuda.compile_ptx(k, sig)
    finally:
        ptx_module.nvrtc_options = original
    assert "ncc_signed_overflow" not in plain and "mul.hi.s64" not in plain
    assert "ncc_signed_overflow" in flagged and "mul.hi.s64" in flagged
    jitted = cuda.jit(k, _signed_overflow_flags=True)
    from numba_cuda_c.pyjit.kernel_loader import nvrtc_options_of

    assert "-DNCC_SIGNED_OVERFLOW_FLAGS" in nvrtc_options_of(jitted.options)


def _numba_cuda_installed():
    return importlib.util.find_spec("numba") is not None and importlib.util.find_spec("numba_cuda") is not None


@requires_gpu
@pytest.mark.skipif(not _numba_cuda_installed(), reason="numba-cuda is not installed")
def test_random_kernels_give_numba_cudas_results(tmp_path):
    """100 random kernels run by numba-cuda and by us on the GPU: the same types, the same bits."""
    env = dict(os.environ, NUMBA_CUDA_C_CACHE_DIR=str(tmp_path / "cache"))
    env.pop("NUMBA_CUDA_C_AS_NUMBA_CUDA", None)
    jobs = str(max(1, min(8, (os.cpu_count() or 2) - 1)))
    command = [sys.executable, os.path.join(FUZZ, "kernel_fuzzer.py"), "--seed", str(SEED), "--cases", "100"]
    command += ["--jobs", jobs, "--out", str(tmp_path), "--reduce", "5"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    with open(tmp_path / "summary.json") as f:
        totals = json.load(f)["summary"]["all"]
    assert totals["cases"] == 100, done.stdout[-4000:] + done.stderr[-4000:]
    assert totals["same"] + totals["nan-bits"] >= 80, totals  # most kernels run: numba refuses few
    failed = {s: totals[s] for s in ("different", "refused", "error") if totals[s]}
    assert not failed and done.returncode == 0, "%s\n%s" % (failed, done.stdout[-12000:])


def test_the_reducer_never_makes_a_loop_that_does_not_end():
    """A reduced kernel runs on the GPU: `while j < 3` must not become `while 3`, lose its `j += 1`, nor a
    `range(x & 7)` become `range(x)` (each would hang the device)."""
    source = (
        "def k(f0, a0):\n    i = cuda.grid(1)\n    if i < a0.size:\n        acc = a0[i]\n        j = 0\n"
        "        while j < 3:\n            j += 1\n            acc = acc * 2\n"
        "        for m in range(a0[i] & 7):\n            acc = acc + m\n        r0 = acc\n        f0[i] = r0\n"
    )
    tried = []

    def still_fails(text):
        tried.append(text)
        return "acc * 2" in text and "acc + m" in text  # the loops' bodies stay: their heads get reduced

    fuzz_reducer.reduce_source(source, still_fails, ["r0"], ["r0"], budget=300)
    assert len(tried) > 5
    for text in tried:
        assert "while 3" not in text and "while j:" not in text and "range(a0[i])" not in text
        assert "while j < 3" not in text or "while j < 3:\n            j += 1" in text


def test_listed_differences_are_known_with_their_reason(tmp_path):
    import kernel_fuzzer

    listing = tmp_path / "known.txt"
    listing.write_text("# comment\n\n3:505 numba's constraint order\n")
    known = kernel_fuzzer.known_differences(str(listing))
    assert known == {(3, 505): "numba's constraint order"}
    records = [
        {"case": 505, "status": "different"},
        {"case": 506, "status": "different"},
        {"case": 7, "status": "same"},
    ]
    kernel_fuzzer.mark_known(3, records, known)
    assert [r["status"] for r in records] == ["known", "different", "same"]
    assert records[0]["known"] == "numba's constraint order"
    assert all(isinstance(reason, str) and reason for reason in kernel_fuzzer.known_differences().values())


def test_translation_digests_tell_a_changed_translation(tmp_path, capsys):
    import translation_digest

    before = tmp_path / "before.json"
    assert translation_digest.main(["--seeds", str(SEED), "--cases", "20", "--out", str(before)]) == 0
    assert translation_digest.main(["--seeds", str(SEED), "--cases", "20", "--compare", str(before)]) == 0
    assert "0 of 20 compared differ" in capsys.readouterr().out
    digests = json.loads(before.read_text())
    key = sorted(digests)[3]
    digests[key] = ["0" * 64, "another translation"]
    before.write_text(json.dumps(digests))
    assert translation_digest.main(["--seeds", str(SEED), "--cases", "20", "--compare", str(before)]) == 1
    out = capsys.readouterr().out
    assert "1 of 20 compared differ" in out and "another translation" in out
