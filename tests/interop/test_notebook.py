"""Notebook display (numba_cuda_c/notebook.py): `_repr_html_` tables for devices, contexts, streams, events,
graphs, device arrays and kernels, read without copying device data; readable reprs; cuda.detect() as a table
in a Jupyter kernel; slow compiles logged at INFO. On the mock driver."""

from mock_driver import mock_driver, run_mock  # noqa: F401  (mock_driver is a fixture)


def test_html_tables_of_the_objects_read_no_device_data(mock_driver):
    run_mock("""
        dev = cuda.get_current_device()
        ctx = cuda.current_context()
        s, e = cuda.stream(), cuda.event()
        d = cuda.to_device(np.arange(12, dtype=np.float32).reshape(3, 4))
        copies = mock.calls("cuMemcpyDtoH")
        page = {name: obj._repr_html_() for name, obj in
                [("device", dev), ("context", ctx), ("stream", s), ("event", e), ("array", d), ("view", d[:, ::2])]}
        assert mock.calls("cuMemcpyDtoH") == copies, "a display must not copy device data"
        assert "<table" in page["device"] and dev.name in page["device"] and "9.0" in page["device"]
        assert "memory used / total" in page["device"] and "GiB" in page["device"]
        assert "CUDA context of device 0" in page["context"]
        assert hex(s.handle) in page["stream"] and "idle" in page["stream"]
        assert "reached" in page["event"]
        for text in ("(3, 4)", "float32", "C-contiguous", "48 B"):
            assert text in page["array"], (text, page["array"])
        assert "strided" in page["view"]
        text = repr(d)
        for part in ("shape=(3, 4)", "float32", "C-contiguous", "48 bytes", "device 0"):
            assert part in text, (part, text)
        assert "F-contiguous" in repr(cuda.device_array((2, 3), order="F"))
        # escaped: a name is text, not markup
        from numba_cuda_c import notebook
        assert "&lt;b&gt;" in notebook._table("<b>", [("<b>", "<b>")])
    """)


def test_kernel_and_dispatcher_tables(mock_driver):
    out = run_mock("""
        import logging
        from numba_cuda_c.pyjit import kernel_loader
        logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(name)s %(message)s")
        module = cuda.load_module(b".version 8.0\\n.target sm_90\\n.address_size 64\\n"
                                  b".visible .entry k(.param .u64 k_param_0) { ret; }\\n")
        page = module.get_function("k")._repr_html_()
        assert "CUDA kernel" in page and "registers per thread" in page and "max threads per block" in page, page

        @cuda.jit
        def axpy(out, x):  # straight-line: a -c program keeps no source, its bytecode is translated
            out[0] = 2 * x[0]

        assert "nothing yet" in axpy._repr_html_()
        kernel_loader.SLOW_COMPILE_SECONDS = 0.0   # every compile counts as slow: it is logged
        d = cuda.device_array(8, np.float32)
        axpy[1, 8](d, d)
        page = axpy._repr_html_()
        assert "(float32[:], float32[:])" in page and "16 registers" in page, page
    """)
    assert "numba_cuda_c compiled and loaded kernel axpy(float32[:], float32[:]) in" in out


def test_detect_is_a_table_in_a_jupyter_kernel(mock_driver):
    out = run_mock(
        """
        import types
        shown = []
        class ZMQInteractiveShell:
            pass
        ipython = types.ModuleType("IPython")
        ipython.get_ipython = lambda: ZMQInteractiveShell()
        display = types.ModuleType("IPython.display")
        display.HTML = lambda text: ("html", text)
        display.display = shown.append
        sys.modules.update({"ipykernel": types.ModuleType("ipykernel"), "IPython": ipython,
                            "IPython.display": display})
        assert cuda.detect() is True
        assert len(shown) == 1 and shown[0][0] == "html", shown
        table = shown[0][1]
        assert "Found 1 CUDA devices" in table and "Compute Capability" in table and "9.0" in table, table
        del sys.modules["ipykernel"]
        assert cuda.detect() is True  # a plain console: the text report
    """,
        MOCK_CUDA_DEVICES="1",
    )
    assert "Found 1 CUDA devices" in out and "Summary:" in out and "<table" not in out
