"""The translator's two steps (pyjit/typedtree.py): the typing passes annotate every expression (its type and how its C
rule writes it: the call target resolved, the variable read); the emitting pass writes C from those annotations and
types nothing again. Checked on kernels that use each kind of expression and call target."""

import math
import operator

import numpy as np
import pytest

import numba_cuda_c as cuda
from numba_cuda_c import types
from numba_cuda_c.pyjit import passes, translate
from numba_cuda_c.pyjit.module import ModuleBuilder


@cuda.jit(device=True)
def scaled(x, k):
    return x * k, x + k


def every_kind(a, out, t):
    i = cuda.grid(1)
    s = cuda.shared.array(32, dtype=np.float64)
    loc = cuda.local.array((2, 2), np.int32)
    loc[0, 0] = 1
    s[0] = a[0]
    cuda.syncthreads()
    cuda.syncwarp(mask=0xFFFFFFFF)
    if i < a.shape[0]:
        x = a[i]
        y = math.sin(x) + abs(x) + min(x, 1.0) + pow(x, 2) + operator.add(x, 1.0)
        y += np.float32(x) + float(len(t)) + np.cos(x) + a.sum()
        p, q = scaled(x, 2.0)
        z = complex(x, y).conjugate().real + max(*t)
        cuda.atomic.add(out, 0, p + q + z + s[0] + loc[0, 0] + a.T[i] + a[1:].size)
        v = cuda.float32x2(1.0, x)
        out[i] = v.x + (y if x > 0 else -y) + a.reshape(a.size)[i]
        print("x", x)


ARGTYPES = [types.Array(types.float64, 1, "A"), types.Array(types.float64, 1, "A"), types.Tuple([types.int64] * 3)]


class RecordingEmitter(passes.EmittingPass):
    """Counts what the emitting pass does: typing rules it runs, and the nodes it found annotated."""

    def typing_only(self, rule, node):
        self.function.typed_while_emitting.append((rule.__name__, node))
        return super().typing_only(rule, node)

    def expr(self, node):
        self.function.written.append(self.tree.get(node) is not None)
        return super().expr(node)


class Recording(translate.FunctionTranslator):
    emitting_pass = RecordingEmitter

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.typed_while_emitting, self.written = [], []


def translated(pyfunc, argtypes):
    translator = Recording(pyfunc, argtypes, ModuleBuilder(translate.FunctionTranslator), device=False, name="k")
    source = translator.translate()
    return translator, source


def test_the_emitting_pass_types_nothing():
    translator, source = translated(every_kind, ARGTYPES)
    assert "ncc_dev_scaled" in source and "atomicAdd" in source and "printf" in source
    assert translator.typed_while_emitting == []
    assert translator.written and all(translator.written)  # every expression written had its annotation


def test_annotations_name_the_resolved_call_targets():
    translator, _ = translated(every_kind, ARGTYPES)
    kinds = {}
    for node, value in translator.tree.annotations.values():
        if type(node).__name__ == "Call" and value.how:
            kinds.setdefault(value.how[0], []).append(value)
    assert {
        "library",
        "device",
        "known",
        "rewrite",
        "new_array",
        "syncwarp",
        "print",
        "array_view",
        "ufunc",
        "spread",
    } <= set(kinds)
    device = kinds["device"][0]
    name = device.how[1][1]
    assert name.startswith("ncc_dev_scaled") and device.type == types.Tuple([types.float64, types.float64])
    known = [v for v in kinds["known"] if v.type == types.int64]  # len(t): a literal of the typing pass
    assert known and known[0].const == 3


def test_a_variable_whose_type_changes_while_emitting_is_a_translator_bug():
    """settle_variable: the emitting pass reads the settled type; one that differs is reported, not written."""

    def kernel(out):
        x = 0
        x = x + 0.5
        out[0] = x

    module = ModuleBuilder(translate.FunctionTranslator)
    translator = translate.FunctionTranslator(kernel, [types.Array(types.float64, 1, "A")], module, name="k")
    translator.translate()  # settles: x is float64
    with pytest.raises(translate.KernelTypeError, match="internal error: variable 'x'"):
        passes.EmittingPass(translator).settle_variable("x", types.complex128)


@cuda.jit(device=True)
def halved(x):
    return x / 2


def provisional(out, n):
    x = 0
    for i in range(n):
        out[i] = halved(x)  # the first typing pass calls halved(int64): x = 0; x is float64 once its types settle
        x = x + 0.5


def test_a_device_function_is_written_once_only_for_the_types_emitted_code_calls():
    """Each typing pass of the caller types the callee for the argument types it sees (provisional ones too); the C
    of a variant is written once, when the emitting pass calls it: halved(int64), which nothing calls, never."""
    module = ModuleBuilder(translate.FunctionTranslator)
    argtypes = [types.Array(types.float64, 1, "A"), types.int64]
    source = translate.FunctionTranslator(provisional, argtypes, module, name="k").translate()
    typed = {key[1]: name for key, (name, _) in module.functions.items() if key[0] is halved.py_func}
    assert set(typed) == {(types.int64,), (types.float64,)}
    assert list(module.function_text) == [typed[(types.float64,)]]
    assert "%s(v_x__p1)" % typed[(types.float64,)] in source  # x at the loop's head (numba's SSA phi)
