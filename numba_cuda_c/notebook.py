"""Notebook display: the `_repr_html_` of devices, contexts, streams, events, graphs, device arrays and
kernels (a small table each), and cuda.detect() as a table where it runs in a notebook. Imported at the
first such display, never at `import numba_cuda_c`. Nothing here copies device data to the host, creates a
context or compiles a kernel: what is not known without that is left out.
"""

import html
import sys

_STYLE = "border-collapse:collapse;text-align:left;font-family:monospace"


def _table(title, rows):
    """An HTML table: a caption and (name, value) rows; values are escaped."""
    cells = "".join(
        "<tr><th style='padding:0 1em 0 0'>%s</th><td>%s</td></tr>" % (html.escape(str(k)), html.escape(str(v)))
        for k, v in rows
    )
    return "<table style='%s'><caption style='text-align:left'><b>%s</b></caption>%s</table>" % (
        _STYLE,
        html.escape(title),
        cells,
    )


def _bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return ("%d %s" if unit == "B" else "%.1f %s") % (n, unit)
        n /= 1024.0


def _device_rows(device):
    rows = [
        ("id", device.id),
        ("compute capability", "%d.%d" % device.compute_capability),
        ("multiprocessors", device.MULTIPROCESSOR_COUNT),
        ("PCI bus", device.PCI_BUS_ID),
    ]
    context = device.primary_context  # only one that exists: a display must not create one
    if context is not None:
        free, total = context.get_memory_info()
        rows.append(("memory used / total", "%s / %s" % (_bytes(total - free), _bytes(total))))
    return rows


def _device(device):
    return _table("CUDA device: %s" % device.name, _device_rows(device))


def _context(context):
    device = context.device
    if not context.handle:
        return _table("CUDA context (reset or closed)", [("device", device.id)])
    return _table("CUDA context of device %d (%s)" % (device.id, device.name), _device_rows(device)[1:])


def _stream(stream):
    return _table(
        repr(stream).strip("<>"),
        [("handle", hex(stream.handle)), ("device", stream.context.device.id), ("idle", stream.query())],
    )


def _event(event):
    return _table(
        "CUDA event",
        [("handle", hex(event.handle)), ("device", event.context.device.id), ("reached", event.query())],
    )


def _graph(graph):
    return _table(repr(graph).strip("<>"), [("stream", hex(graph.stream.handle))])


def _layout(array):
    flags = array.flags
    if flags["C_CONTIGUOUS"]:
        return "C-contiguous"
    return "F-contiguous" if flags["F_CONTIGUOUS"] else "strided %s" % (array.strides,)


def _array(array):
    rows = [
        ("shape", array.shape),
        ("dtype", array.dtype),
        ("layout", _layout(array)),
        ("bytes", _bytes(array.nbytes)),
        ("device pointer", hex(array.device_ctypes_pointer.value or 0)),
    ]
    rows.insert(3, ("device", array.__dlpack_device__()[1]))
    return _table(type(array).__name__, rows)


def _kernel_rows(kernel):
    """Registers, shared and local memory, and the most threads a block may have (the occupancy limits)."""
    rows = []
    for name, method in (
        ("registers per thread", kernel.get_regs_per_thread),
        ("static shared memory per block", kernel.get_shared_mem_per_block),
        ("local memory per thread", kernel.get_local_mem_per_thread),
        ("max threads per block", kernel.get_max_threads_per_block),
    ):
        try:
            value = method()
        except Exception:  # noqa: BLE001 -- no GPU here: the attributes need the kernel loaded
            continue
        rows.append((name, _bytes(value) if "memory" in name else value))
    return rows


def _kernel(kernel):
    return _table("CUDA kernel %s" % kernel.name, _kernel_rows(kernel))


def _dispatcher(dispatcher):
    rows = [("kind", "device function" if dispatcher.device else "kernel")]
    for signature in dispatcher.signatures:
        args = ", ".join(str(t) for t in signature)
        try:
            rows.append(
                (
                    "(%s)" % args,
                    "%d registers, %s shared, %s local per thread"
                    % (
                        dispatcher.get_regs_per_thread(signature),
                        _bytes(dispatcher.get_shared_mem_per_block(signature)),
                        _bytes(dispatcher.get_local_mem_per_thread(signature)),
                    ),
                )
            )
        except Exception:  # noqa: BLE001 -- a device function, or no GPU: its types only
            rows.append(("(%s)" % args, "compiled"))
    if len(rows) == 1:
        rows.append(("compiled for", "nothing yet (compiled at its first launch)"))
    return _table("@cuda.jit %s" % dispatcher.__name__, rows)


_BY_TYPE = {
    "Device": _device,
    "Context": _context,
    "Stream": _stream,
    "Event": _event,
    "Graph": _graph,
    "Kernel": _kernel,
}


def html_of(obj):
    """The `_repr_html_` of one of the package's objects."""
    for cls in type(obj).__mro__:
        render = _BY_TYPE.get(cls.__name__)
        if render is not None:
            return render(obj)
    if hasattr(obj, "__cuda_array_interface__") and hasattr(obj, "copy_to_host"):
        return _array(obj)
    if hasattr(obj, "py_func"):
        return _dispatcher(obj)
    return "<pre>%s</pre>" % html.escape(repr(obj))


def in_notebook():
    """Whether this runs in a Jupyter kernel (an IPython shell that displays HTML)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython() if hasattr(ipython, "get_ipython") else None
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def show_detect(devices, rows_of):
    """cuda.detect()'s report as an HTML table in a notebook: one row per device."""
    from IPython.display import HTML, display

    rows = [rows_of(device) for device in devices]
    names = [name for name, _ in rows[0]] if rows else []
    head = "".join("<th style='padding:0 1em 0 0'>%s</th>" % html.escape(n) for n in ["device", "name"] + names)
    body = "".join(
        "<tr><td>%d</td><td>%s</td>%s</tr>"
        % (device.id, html.escape(device.name), "".join("<td>%s</td>" % html.escape(str(v)) for _, v in row))
        for device, row in zip(devices, rows)
    )
    display(
        HTML(
            "<table style='%s'><caption style='text-align:left'><b>Found %d CUDA devices</b></caption>"
            "<tr>%s</tr>%s</table>" % (_STYLE, len(devices), head, body)
        )
    )
