"""numba's kernel argument hints: cuda.In(x) copies a host array to the device only, cuda.Out(x) copies
it back only (the device array starts uninitialised), cuda.InOut(x) both (what a plain host array
gets). Device arrays pass through untouched. numba's own hint objects (numba.cuda.args, used by
libraries) are read the same way, by their class's name and value."""

from numba_cuda_c import _cuda


class ArgHint:
    """A host array wrapped to say which way a launch copies it (numba's cuda.args.ArgHint): `value` is the array;
    In, Out and InOut set copy_in and copy_out."""

    copy_in = True
    copy_out = True

    def __init__(self, value):
        self.value = value

    def to_device(self, retr, stream=0, arrays=_cuda):
        """The device array the kernel gets; `retr` receives what to do after the launch (a copy back). `arrays`:
        the module whose is_cuda_array, as_cuda_array, to_device and device_array_like make it (the simulator's
        launch passes its own)."""
        import numpy as np

        if arrays.is_cuda_array(self.value):
            return arrays.as_cuda_array(self.value)
        host = np.asarray(self.value)
        if self.copy_in:
            device = arrays.to_device(host, stream=stream)
        else:
            device = arrays.device_array_like(host, stream=stream)
        if self.copy_out:
            retr.append(lambda: device.copy_to_host(host, stream=stream))
        else:
            retr.append(lambda: device)  # alive until the launch is done
        return device


class In(ArgHint):
    """cuda.In(ary): a launch copies the host array to the device before the kernel runs, and not back."""

    copy_out = False


class Out(ArgHint):
    """cuda.Out(ary): a launch gives the kernel an uninitialised device array of the host array's shape and copies it
    back into the host array after the kernel ran."""

    copy_in = False


class InOut(ArgHint):
    """cuda.InOut(ary): a launch copies the host array to the device and back (what a bare host array gets)."""


def wrap_arg(value, default=InOut):
    """numba's wrap_arg: a hint as it is, anything else in `default`."""
    return value if as_hint(value) is not None else default(value)


HINTS = {"In": In, "Out": Out, "InOut": InOut}


def as_hint(value):
    """Ours, or numba's own hint (matched by class name and module) as ours; None for anything else."""
    if isinstance(value, ArgHint):
        return value
    cls = type(value)
    if cls.__name__ in HINTS and cls.__module__.startswith("numba.") and hasattr(value, "value"):
        return HINTS[cls.__name__](value.value)
    return None
