"""Dask's transport for our device arrays: the serializers distributed uses (serializers.py), CUDA IPC between a
host's workers (ipc.py), and the import hooks that register them when distributed is imported (hooks.py). Nothing
here imports dask or distributed until they are."""
