"""Dask's transport for our device arrays: `distributed` serializes what tasks return and exchange through
families of serializers; this registers DeviceNDArray (and DeviceRecord) with two of them, as distributed does
itself for CuPy's and numba's arrays:

    cuda  frames that are device memory (a uint8 device array over the bytes the array spans, no copy), so that
          a GPU-aware transport (UCX) moves them GPU to GPU;
    dask  to a process of the same host that offered it: a CUDA IPC handle of the memory, no frame, the receiver
          copying device to device (numba_cuda_c/dask/ipc.py says when, and how the memory stays valid);
          otherwise frames in host memory (the same bytes, copied to the host): any transport, TCP included.

Pickling (DeviceNDArray.__reduce__) stays the fallback of the `pickle` family. The registration runs when
`distributed.protocol` is imported, the handshake entry that offers IPC (dask_ipc.patch_handshake) when
`distributed.comm.core` is, and the pool's check for connections made before it (dask_ipc.patch_connection_pool)
when `distributed.core` is, before or after numba_cuda_c, never importing distributed itself: the package puts a
small finder first on sys.meta_path (numba_cuda_c/__init__.py) that, for those modules only, loads this one and
wraps the module's loading (spec_registering_after).

The functions import the package's modules when they run: this module is loaded by that finder, also under the
CUDA simulator, whose numba_cuda_c.cudadrv.devicearray is another module (without the helpers used here)."""

import sys


def _span(array):
    """(low, nbytes): where the bytes an array spans start, relative to its element (0, ..., 0) (<= 0), and how
    many there are (gaps between elements included)."""
    if array.size == 0:
        return 0, 0
    low = sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(array.shape, array.strides) if s > 0)
    return low, high - low + array.dtype.itemsize


def _layout_header(kind, low, shape, strides, dtype):
    import pickle

    # msgpack carries the header: lists and bytes, no tuples or dtypes
    return {"kind": kind, "low": low, "shape": list(shape), "strides": list(strides), "dtype": pickle.dumps(dtype)}


def _bytes_as_device_array(frame, owner):
    """A 1-d uint8 device array over a frame's device memory (ours, CuPy's, an RMM buffer: anything with
    __cuda_array_interface__ that is contiguous), keeping `owner` alive."""
    from numba_cuda_c import _cuda

    interface = frame.__cuda_array_interface__
    raw = _cuda.from_cuda_array_interface(interface, owner=owner)
    if raw.ndim == 1 and raw.dtype.itemsize == 1 and raw.flags["C_CONTIGUOUS"]:
        return raw
    if not raw.flags["C_CONTIGUOUS"]:
        raise ValueError("a device frame must be contiguous, not strides %s" % (raw.strides,))
    flat = {"shape": (raw.nbytes,), "strides": None, "typestr": "|u1", "data": interface["data"], "version": 3}
    return _cuda.from_cuda_array_interface(flat, owner=owner)


def serialize_on_device(array):
    """cuda family: the header and one device frame, the array's own memory (its stream finished first, as the
    transport reads it on its own)."""
    from numba_cuda_c import _cuda

    low, nbytes = _span(array)
    stream = getattr(array, "stream", 0)
    if stream:
        stream.synchronize()
    kind = "record" if isinstance(array, _cuda.DeviceRecord) else "array"
    interface = {
        "shape": (nbytes,),
        "strides": None,
        "typestr": "|u1",
        "version": 3,
        "data": (array.device_ctypes_pointer.value + low if nbytes else 0, False),
    }
    frame = _cuda.from_cuda_array_interface(interface, owner=array)
    return _layout_header(kind, low, array.shape, array.strides, array.dtype), [frame]


def deserialize_on_device(header, frames):
    (frame,) = frames
    return _from_device_span(header, _bytes_as_device_array(frame, frame))


def _from_device_span(header, raw):
    """The array a header describes, over `raw`: the device bytes it spans (a 1-d uint8 device array)."""
    import pickle

    from numba_cuda_c.cudadrv.devicearray import DeviceNDArray, DeviceRecord, _view_of_span

    dtype = pickle.loads(header["dtype"])
    if header["kind"] == "record":
        return DeviceRecord(dtype, gpu_data=raw.gpu_data)
    shape, strides = tuple(header["shape"]), tuple(header["strides"])
    if raw.size == 0:
        return DeviceNDArray(shape, strides, dtype)
    return _view_of_span(raw, header["low"], shape, strides, dtype)


def serialize_on_host(array, context=None):
    """dask family: to a process of this host that offered IPC (`context`, distributed's: who receives), the
    array's IPC handle in the header and no frame; otherwise the bytes the array spans, copied to the host (what
    pickling copies), as one frame."""
    from numba_cuda_c import _cuda
    from numba_cuda_c.dask import ipc as dask_ipc

    low, nbytes = _span(array)
    ipc = dask_ipc.send(array, low, nbytes, context)
    if ipc is not None:
        kind = "record" if isinstance(array, _cuda.DeviceRecord) else "array"
        header = _layout_header(kind, low, array.shape, array.strides, array.dtype)
        header["ipc"] = ipc
        return header, []
    _rebuild, (kind, span, low, shape, strides, dtype) = array.__reduce__()
    return _layout_header(kind, low, shape, strides, dtype), [memoryview(span)]


def deserialize_on_host(header, frames):
    import pickle

    import numpy as np

    from numba_cuda_c.dask import ipc as dask_ipc
    from numba_cuda_c.cudadrv.devicearray import _rebuild_device_array

    if "ipc" in header:
        return _from_device_span(header, dask_ipc.receive(header["ipc"]))
    dask_ipc.count("host received")
    (frame,) = frames
    span = np.frombuffer(frame, dtype=np.uint8)
    return _rebuild_device_array(
        header["kind"],
        span,
        header["low"],
        tuple(header["shape"]),
        tuple(header["strides"]),
        pickle.loads(header["dtype"]),
    )


def serialize_host_reachable(array):
    """dask family, for mapped and managed arrays (NumPy arrays the device reaches): their data as one host frame,
    rebuilt in memory of the same kind (distributed's NumPy serializer would give an ordinary array)."""
    import pickle

    from numba_cuda_c.cudadrv.devicearray import _layout_order

    order = _layout_order(array)
    data = array.copy_to_host().ravel(order=order)
    header = {"kind": array._kind, "order": order, "shape": list(array.shape), "dtype": pickle.dumps(array.dtype)}
    return header, [memoryview(data.view("u1"))]


def deserialize_host_reachable(header, frames):
    import pickle

    import numpy as np

    from numba_cuda_c.cudadrv.devicearray import _rebuild_host_array

    (frame,) = frames
    dtype = pickle.loads(header["dtype"])
    data = np.frombuffer(frame, dtype=np.uint8).view(dtype).reshape(tuple(header["shape"]), order=header["order"])
    return _rebuild_host_array(header["kind"], data, header["order"])


def register():
    """Registers the serializers with distributed (imported by now). Dispatch follows the class hierarchy, so
    DeviceRecord and the array subclasses of numba_cuda_c.cudadrv.devicearray use DeviceNDArray's."""
    from distributed.protocol.cuda import cuda_deserialize, cuda_serialize
    from distributed.protocol.serialize import dask_deserialize, dask_serialize

    from numba_cuda_c._cuda import DeviceNDArray

    cuda_serialize.register(DeviceNDArray)(serialize_on_device)
    cuda_deserialize.register(DeviceNDArray)(deserialize_on_device)
    dask_serialize.register(DeviceNDArray)(serialize_on_host)
    dask_deserialize.register(DeviceNDArray)(deserialize_on_host)
    from numba_cuda_c.cudadrv.devicearray import _host_array_classes

    for cls in _host_array_classes().values():  # mapped, managed: more specific than NumPy's registration
        dask_serialize.register(cls)(serialize_host_reachable)
        dask_deserialize.register(cls)(deserialize_host_reachable)


def patch_handshake():
    """Adds our entry to distributed's connection handshakes (dask_ipc.patch_handshake): it offers IPC."""
    from numba_cuda_c.dask import ipc as dask_ipc

    dask_ipc.patch_handshake(sys.modules["distributed.comm.core"])


def patch_connection_pool():
    """Connections made before our handshake entry existed are not pooled (dask_ipc.patch_connection_pool)."""
    from numba_cuda_c.dask import ipc as dask_ipc

    dask_ipc.patch_connection_pool(sys.modules["distributed.core"])


# What runs once each of these modules of distributed has loaded, and what is lost where it fails
_BYTES = "they travel between workers of one host as bytes, not by CUDA IPC"
HOOKS = {
    "distributed.protocol": ("register", "they travel by pickling"),
    "distributed.comm.core": ("patch_handshake", _BYTES),
    "distributed.core": (
        "patch_connection_pool",
        _BYTES + ", on connections made before numba_cuda_c was imported",
    ),
}


def _run_hook(fullname):
    hook, otherwise = HOOKS[fullname]
    try:
        globals()[hook]()  # by name: the function this module has when the import happens
    except Exception as exc:  # a distributed we do not know: its import must still work, with a slower path
        import warnings

        warnings.warn(
            "numba_cuda_c could not register its device arrays with distributed (%s: %s); %s"
            % (type(exc).__name__, exc, otherwise),
            RuntimeWarning,
            stacklevel=3,
        )


class _RegisterAfterLoading:
    """A loader that runs the real one, then the module's hook: its registries exist from then on."""

    def __init__(self, loader, fullname):
        self.loader = loader
        self.fullname = fullname

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _run_hook(self.fullname)

    def __getattr__(self, name):  # get_resource_reader, is_package, ...: the real loader's
        return getattr(self.loader, name)


def spec_registering_after(watcher, fullname, path, target):
    """The spec the finders after `watcher` (numba_cuda_c's finder for the modules of HOOKS, first on
    sys.meta_path) give for the module, its loader wrapped to run its hook once the module has run."""
    for finder in sys.meta_path:
        if finder is watcher or not hasattr(finder, "find_spec"):
            continue
        spec = finder.find_spec(fullname, path, target)
        if spec is not None:
            if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _RegisterAfterLoading(spec.loader, fullname)
            return spec
    return None


def register_if_loaded():
    """The hooks of the modules of HOOKS loaded already (numba_cuda_c imported after them)."""
    if "distributed.protocol" in sys.modules:
        try:
            register()
        except ImportError:  # distributed.protocol part way through its own import: the finder sees it finish
            pass
    if hasattr(sys.modules.get("distributed.comm.core"), "Comm"):
        _run_hook("distributed.comm.core")
    if hasattr(sys.modules.get("distributed.core"), "ConnectionPool"):
        _run_hook("distributed.core")
