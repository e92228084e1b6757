"""numba's configuration where numba_cuda_c follows it while running: a CUDA-array-interface object's stream is
waited for unless NUMBA_CUDA_ARRAY_INTERFACE_SYNC=0, or numba's loaded config says CUDA_ARRAY_INTERFACE_SYNC is
off (numba_cuda_c/config.py's rule: numba's live config wins where a program has it loaded)."""

from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)

CONSUME = """
d = cuda.device_array(4)
exporter = cuda.stream()  # the stream the foreign object says its data is written on
desc = dict(d.__cuda_array_interface__, stream=int(exporter.handle))

class Foreign:
    __cuda_array_interface__ = desc

@cuda.jit
def k(a):
    a[0] = 1

before = mock.calls("cuStreamSynchronize")
cuda.from_cuda_array_interface(desc)
k[128, 1](Foreign())
print(mock.calls("cuStreamSynchronize") - before)
"""


def consume(mock_driver, numba_config=None, **env):
    code = CONSUME
    if numba_config is not None:  # numba's config module loaded, as a program using numba has it
        code = (
            "import sys, types as pytypes\n"
            "sys.modules['numba.core.config'] = pytypes.SimpleNamespace(CUDA_ARRAY_INTERFACE_SYNC=%r)\n"
            % numba_config
        ) + code
    return int(run_mock(code, **env).split()[-1])


def test_foreign_streams_are_waited_for_unless_numbas_setting_says_not(mock_driver):
    assert consume(mock_driver) == 2  # the view, then the launch argument
    assert consume(mock_driver, NUMBA_CUDA_ARRAY_INTERFACE_SYNC="0") == 0
    assert consume(mock_driver, numba_config=False) == 0
    assert (
        consume(mock_driver, numba_config=True, NUMBA_CUDA_ARRAY_INTERFACE_SYNC="0") == 2
    )  # numba's live value wins
