"""Dask's hooks, put in place when numba_cuda_c is imported and costing nothing until Dask is: the serializers of
our device arrays (serializers.py) and CUDA IPC between a host's workers (ipc.py)."""

import sys


class _DistributedProtocolFinder:
    """Dask's serializers for our arrays (numba_cuda_c/dask/serializers.py) are registered once
    distributed.protocol is imported, and what offers CUDA IPC between workers of one host once
    distributed.comm.core and distributed.core are (numba_cuda_c/dask/ipc.py), never importing them here: this
    finder, first on sys.meta_path, answers for those modules (loading the serializers only then); every other
    import costs it one set lookup."""

    hooked = frozenset(("distributed.protocol", "distributed.comm.core", "distributed.core"))

    def find_spec(self, fullname, path=None, target=None):
        if fullname not in self.hooked:
            return None
        from numba_cuda_c.dask import serializers

        return serializers.spec_registering_after(self, fullname, path, target)


def install():
    """At the package's import: register the serializers now where Dask's modules are in already, else put the
    finder first on sys.meta_path (once, though the package be imported again)."""
    if any(name in sys.modules for name in _DistributedProtocolFinder.hooked):
        from numba_cuda_c.dask import serializers

        serializers.register_if_loaded()
    if not all(name in sys.modules for name in _DistributedProtocolFinder.hooked) and not any(
        type(finder).__name__ == "_DistributedProtocolFinder" for finder in sys.meta_path
    ):
        sys.meta_path.insert(0, _DistributedProtocolFinder())
