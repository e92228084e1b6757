"""numba.cuda.launchconfig: the launch configuration a compilation runs under, for code that compiles kernels
differently for different launches (numba's cuda.coop does). While a launch makes the dispatcher compile, the
configured launch (`kernel[griddim, blockdim, stream, sharedmem]`) is this thread's current one, and its `args`
are the launch's arguments; at any other time there is none.

    cfg = current_launch_config()          # the configured launch, or None
    cfg.dispatcher.mark_launch_config_sensitive()   # its kernels are compiled once per launch configuration

The state is this thread's alone: two threads launching at once each see their own launch.
"""

import contextlib
import threading
from functools import wraps
from types import MethodType

_state = threading.local()  # .launches: this thread's launches in progress, innermost last


class Launch:
    """One launch in progress in this thread: its configured launch, its arguments, and whether the compilation
    it made was marked launch-config sensitive (the dispatcher's mark_launch_config_sensitive())."""

    __slots__ = ("config", "args", "sensitive")

    def __init__(self, config, args):
        self.config, self.args, self.sensitive = config, args, False


def _launches():
    launches = getattr(_state, "launches", None)
    if launches is None:
        launches = _state.launches = []
    return launches


@contextlib.contextmanager
def launching(config, args):
    """The block runs with `config` this thread's current launch configuration and `args` its arguments (the
    dispatcher, around what a launch runs in Python: compiling, pre-launch callbacks). Yields the Launch."""
    launches = _launches()
    launch = Launch(config, args)
    launches.append(launch)
    try:
        yield launch
    finally:
        launches.remove(launch)


def current_launch():
    """This thread's innermost Launch in progress, or None."""
    launches = getattr(_state, "launches", None)
    return launches[-1] if launches else None


def current_launch_config():
    """Return the current launch configuration, or None if not set."""
    launch = current_launch()
    return None if launch is None else launch.config


def ensure_current_launch_config():
    """Return the current launch configuration or raise if not set."""
    config = current_launch_config()
    if config is None:
        raise RuntimeError("No launch config set for this thread")
    return config


class LaunchAttributes:
    """What numba's _LaunchConfiguration has beyond a configured launch's own attributes (dispatcher, griddim,
    blockdim, stream, sharedmem, pre_launch_callbacks): a configured launch reads these here."""

    __slots__ = ()

    @property
    def args(self):
        """The arguments of the launch in progress in this thread (numba's: not of one configuration), or None."""
        launch = current_launch()
        return None if launch is None else launch.args

    def _is_kernel_launch_config_sensitive(self):
        launch = current_launch()
        return bool(launch is not None and launch.sensitive)


ATTRIBUTES = LaunchAttributes()


@contextlib.contextmanager
def capture_compile_config(dispatcher):
    """Capture the launch config seen during compilation for a dispatcher.

    The returned dict has a single key, ``"config"``, which is populated when a compilation is triggered by a
    kernel launch. If the kernel is already compiled, the dict value may remain ``None``.
    """
    if dispatcher is None:
        raise TypeError("dispatcher is required")

    record = {"config": None}
    missing = object()
    original_attr = dispatcher.__dict__.get("_compile_for_args", missing)
    original = dispatcher._compile_for_args

    @wraps(original)
    def wrapped(self, *args, **kws):
        record["config"] = current_launch_config()
        return original(*args, **kws)

    dispatcher._compile_for_args = MethodType(wrapped, dispatcher)
    try:
        yield record
    finally:
        if original_attr is missing:
            del dispatcher._compile_for_args
        else:
            dispatcher._compile_for_args = original_attr


__all__ = ["current_launch_config", "ensure_current_launch_config", "capture_compile_config"]
