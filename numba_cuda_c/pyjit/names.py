"""C identifiers for a kernel's own Python names.

Python allows non-ASCII identifiers, and scientific code uses them (ρ, μ_Q, σ_Q, Σ_T); the C given
to NVRTC may not. A function's own names (its parameters and the locals it assigns) that are not
ASCII are renamed in its tree before translation, each to an ASCII name no other name of the
function has. Globals keep their names: they are looked up in Python, never written into C."""

import ast


def _escaped(name):
    # one-to-one: '_' is doubled, so '_x<hex>_' can only come from a non-ASCII character
    return "".join(c if c.isascii() and c.isalnum() else "__" if c == "_" else "_x%x_" % ord(c) for c in name)


def ascii_locals(funcdef):
    """Renames, in place, the non-ASCII parameters and locals of `funcdef` (an ast.FunctionDef)."""
    arguments = funcdef.args.args
    local = {a.arg for a in arguments}
    for node in ast.walk(funcdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            local.add(node.id)
    foreign = sorted(name for name in local if not name.isascii())
    if not foreign:
        return
    taken = local | {node.id for node in ast.walk(funcdef) if isinstance(node, ast.Name)}
    mapping = {}
    for name in foreign:
        new = "u_" + _escaped(name)
        while new in taken:
            new += "_"
        taken.add(new)
        mapping[name] = new
    for a in arguments:
        a.arg = mapping.get(a.arg, a.arg)
    for node in ast.walk(funcdef):
        if isinstance(node, ast.Name) and node.id in mapping:
            node.id = mapping[node.id]
