"""Fixed-size strings in kernels (rules of the passes, passes.py), as numba compiles them: an element of an array of
dtype S12 or U12, or a record's field of such a dtype (numba's CharSeq and UnicodeCharSeq, types.CharSeq) is
assigned a constant bytes or str (`arr[i] = b"XYZ"`, `rec["name"] = "ABC"`), or another such string of its kind:
its bytes are written, cut to the element's size or padded with zeros, as NumPy stores a shorter string. A unicode
string is UCS-4, each character 4 bytes in the machine's (little-endian) order."""

from numba_cuda_c import types


def assign_string(walk, address, chars, value, node):
    """The string `value` written into the CharSeq at `address`: a constant's bytes, or another string's."""
    if isinstance(value.type, types.CharSeq):
        copy_string(walk, address, chars, value, node)
        return
    data = string_bytes(walk, chars, value, node)
    literal = "".join("\\%03o" % byte for byte in data)  # every byte escaped: NULs and quotes too
    walk.emit('memcpy(%s, "%s", %d);' % (address, literal, chars.size))


def string_bytes(walk, chars, value, node):
    """A constant str or bytes as the bytes of a CharSeq (cut or padded with zeros to its size)."""
    text = value.obj if value.code is None else None
    if not isinstance(text, (str, bytes)):
        walk.fail(
            node,
            "a %s is assigned a constant string (bytes or str) or another %s, not %s"
            % (chars, chars, value.type if value.type is not None else type(value.obj).__name__),
        )
    try:
        if chars.kind == "S":
            data = text if isinstance(text, bytes) else text.encode("ascii")
        else:
            data = (text.decode("ascii") if isinstance(text, bytes) else text).encode("utf-32-le")
    except UnicodeError as exc:  # NumPy's words: a str of non-ASCII characters does not fit bytes
        walk.fail(node, "the string %r cannot be stored in a %s: %s" % (text, chars, exc))
    return data[: chars.size].ljust(chars.size, b"\0")


def copy_string(walk, address, chars, value, node):
    """A string of the same kind copied (its first bytes, the rest of the target zeroed)."""
    if value.type.kind != chars.kind:
        walk.fail(node, "a %s cannot be assigned a %s" % (chars, value.type))
    common = min(chars.size, value.type.size)
    source, target = walk.module.unique("from"), walk.module.unique("to")
    walk.emit("{")
    walk.emit("    const unsigned char *%s = %s; unsigned char *%s = %s;" % (source, value.code, target, address))
    walk.emit("    for (int k = 0; k < %d; ++k) %s[k] = k < %d ? %s[k] : 0;" % (chars.size, target, common, source))
    walk.emit("}")
