"""numba.cuda's LinkableCode objects: code to link held in memory (PTXSource, CUSource, Fatbin,
Cubin, Archive, Object, LTOIR), for cuda.jit(link=[...]) and cuda.declare_device(link=...), and the
map from a file's extension to the driver's input kind (CUjitInputType)."""

import io
import os

# numba's FILE_EXTENSION_MAP: extension -> CUjitInputType (CU_JIT_INPUT_NVVM for LTO-IR)
FILE_EXTENSION_MAP = {"o": 3, "ptx": 1, "a": 4, "lib": 4, "cubin": 0, "fatbin": 2, "ltoir": 5}


class LinkableCode:
    """An object that holds code to be linked from memory.

    data: a buffer, str, StringIO or BytesIO holding the code (a file object is read when `data` is
    asked for); name: the file name errors name; setup_callback / teardown_callback: kept, as
    numba's (numba_cuda_c does not call them yet); nrt: as numba's (unused)."""

    def __init__(self, data, name=None, setup_callback=None, teardown_callback=None, nrt=False):
        if setup_callback and not callable(setup_callback):
            raise TypeError("setup_callback must be callable")
        if teardown_callback and not callable(teardown_callback):
            raise TypeError("teardown_callback must be callable")
        self.nrt = nrt
        self._name = name
        self._data = data
        self.setup_callback = setup_callback
        self.teardown_callback = teardown_callback

    @property
    def name(self):
        """The name errors and the linker use: the one given, else the kind's default name."""
        return self._name or self.default_name

    @property
    def data(self):
        """The code: the buffer or string given (the contents of a StringIO or BytesIO)."""
        if isinstance(self._data, (io.StringIO, io.BytesIO)):
            return self._data.getvalue()
        return self._data

    @staticmethod
    def from_path(path):
        """The LinkableCode of a file, its class from the extension (ValueError for an unknown one)."""
        root, extension = os.path.splitext(path)
        cls = _extension_to_linkable_code_kind(extension)
        with open(path, "r" if extension in (".cu", ".ptx") else "rb") as f:
            data = f.read()
        return cls(data, name=os.path.basename(root))

    @classmethod
    def from_path_or_obj(cls, path_or_obj):
        """A path (str) read as from_path() does; anything else (a LinkableCode) as it is."""
        if isinstance(path_or_obj, str):
            return cls.from_path(path_or_obj)
        return path_or_obj

    def __repr__(self):
        return "<%s %s>" % (type(self).__name__, self.name)


def _code_kind(name, doc, kind, default_name):
    """One kind of code in memory: a LinkableCode subclass that says its kind and its default name."""
    return type(
        name, (LinkableCode,), {"__doc__": doc, "__module__": __name__, "kind": kind, "default_name": default_name}
    )


PTXSource = _code_kind("PTXSource", "PTX source code in memory.", FILE_EXTENSION_MAP["ptx"], "<unnamed-ptx>")
CUSource = _code_kind("CUSource", "CUDA C/C++ source code in memory.", "cu", "<unnamed-cu>")
Fatbin = _code_kind("Fatbin", "An ELF Fatbin in memory.", FILE_EXTENSION_MAP["fatbin"], "<unnamed-fatbin>")
Cubin = _code_kind("Cubin", "An ELF Cubin in memory.", FILE_EXTENSION_MAP["cubin"], "<unnamed-cubin>")
Archive = _code_kind("Archive", "An archive of objects in memory.", FILE_EXTENSION_MAP["a"], "<unnamed-archive>")
Object = _code_kind("Object", "An object file in memory.", FILE_EXTENSION_MAP["o"], "<unnamed-object>")
LTOIR = _code_kind("LTOIR", "An LTOIR file in memory.", FILE_EXTENSION_MAP["ltoir"], "<unnamed-ltoir>")


_BY_EXTENSION = {
    ".cu": CUSource,
    ".ptx": PTXSource,
    ".fatbin": Fatbin,
    ".cubin": Cubin,
    ".a": Archive,
    ".o": Object,
    ".ltoir": LTOIR,
}


def _extension_to_linkable_code_kind(extension):
    try:
        return _BY_EXTENSION[extension]
    except KeyError:
        raise ValueError(f"Unknown extension: {extension}") from None
