"""The kernel fuzzer's reducer: a failing kernel made small while it still fails the same way (bounded effort).

Greedy, on the kernel's AST: first the other results go, then each statement in turn (an `if` may also give way to
one of its branches), then each compound expression is replaced by one of its operands (the outermost first); every
change that keeps the failure is kept, and the search starts over from the smaller kernel. Each try compiles the
kernel with both compilers (a few tenths of a second), so the tries are counted (`budget`).
"""

import ast
import copy
import re

KEEP = ("i = cuda.grid(1)",)


def _statement_lists(node):
    """Every list of statements under `node` (bodies and else-branches)."""
    for sub in ast.walk(node):
        for name in ("body", "orelse"):
            value = getattr(sub, name, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield value


def _loads(tree):
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _stored(stmt):
    return {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _outer_if(tree):
    return tree.body[0].body[1]  # def k(...): i = cuda.grid(1); if i < a0.size: ...


def _protected(stmt, keep_results):
    """The stores and assignment of the results kept, and the kernel's frame: never deleted."""
    text = ast.unparse(stmt)
    if text in KEEP:
        return True
    return any(text.startswith(r + " = ") or text.endswith(" = " + r) for r in keep_results)


def _fill(stmts):
    if not stmts:
        stmts.append(ast.Pass())


def statement_variants(tree, keep_results):
    """Trees with one statement less, or an `if` replaced by a branch: cheapest first (names nobody reads)."""
    body = _outer_if(tree).body
    n_lists = len(list(_statement_lists(_outer_if(tree))))
    loads = _loads(tree)
    unused, used = [], []
    for li in range(n_lists):
        stmts = list(_statement_lists(_outer_if(tree)))[li]
        for si, stmt in enumerate(stmts):
            if _protected(stmt, keep_results):
                continue
            (used if _stored(stmt) & loads else unused).append((li, si))
    for li, si in unused + used:
        new = copy.deepcopy(tree)
        stmts = list(_statement_lists(_outer_if(new)))[li]
        del stmts[si]
        _fill(stmts)
        yield new
    del body
    for li in range(n_lists):
        for si, stmt in enumerate(list(_statement_lists(_outer_if(tree)))[li]):
            if isinstance(stmt, ast.If):
                for branch in ("body", "orelse"):
                    if getattr(stmt, branch):
                        new = copy.deepcopy(tree)
                        stmts = list(_statement_lists(_outer_if(new)))[li]
                        stmts[si : si + 1] = getattr(stmts[si], branch)
                        yield new


def _children(node):
    """The operands an expression may be replaced by."""
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, (ast.UnaryOp,)):
        return [node.operand]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.Compare):
        return [node.left] + list(node.comparators)
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse, node.test]
    if isinstance(node, ast.Call):
        return list(node.args)
    if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.BinOp, ast.Call, ast.Name, ast.Subscript)):
        return (
            [node.value] if node.value.__class__ is not ast.Name or node.value.id not in ("math", "cmath") else []
        )
    return []


def _replace(tree, target, new):
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if value is target:
                setattr(parent, name, new)
                return
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if item is target:
                        value[k] = new
                        return


def _body_nodes(tree):
    return [n for stmt in _outer_if(tree).body for n in ast.walk(stmt)]


def expression_variants(tree):
    """Trees with one compound expression replaced by one of its operands, outermost expressions first."""
    nodes = _body_nodes(tree)  # the guard `i < a0.size` stays: indexing out of range would fault
    for index, node in enumerate(nodes):
        if not isinstance(node, ast.expr):
            continue
        for ci in range(len(_children(node))):
            new = copy.deepcopy(tree)
            new_nodes = _body_nodes(new)
            target = new_nodes[index]
            _replace(new, target, _children(target)[ci])
            yield new


def drop_other_results(tree, keep_results, all_results):
    """The tree without the statements of the results not kept (their assignments and stores)."""
    new = copy.deepcopy(tree)
    body = _outer_if(new).body
    others = [r for r in all_results if r not in keep_results]
    body[:] = [s for s in body if not any(_protected(s, [r]) for r in others)]
    return new


def _loop_heads(tree):
    """Each loop's head as text: a while loop's test and first statement (its counter's increment), a for loop's
    iterable."""
    heads = []
    for node in ast.walk(tree):
        if isinstance(node, ast.While):
            heads.append((ast.unparse(node.test), ast.unparse(node.body[0]) if node.body else ""))
        elif isinstance(node, ast.For):
            heads.append((ast.unparse(node.iter), None))
    return heads


def _loops_kept(candidate, original):
    """Whether every loop of the candidate has a head of the original's: a reduction must not make a loop that
    never ends (`while j < 3` reduced to `while 3`, the increment dropped, `range(x & 7)` to `range(x)`), which
    would hang the GPU."""
    heads = _loop_heads(original)
    return all(head in heads for head in _loop_heads(candidate))


def reduce_source(source, still_fails, keep_results, all_results, budget=60):
    """The smallest source found for which still_fails(source) holds, and the tries it took."""
    tree = ast.parse(source)
    original = tree
    tries = 0
    candidate = drop_other_results(tree, keep_results, all_results)
    if ast.unparse(candidate) != ast.unparse(tree):
        tries += 1
        if still_fails(ast.unparse(candidate) + "\n"):
            tree = candidate
    progress = True
    while progress and tries < budget:
        progress = False
        for variants in (statement_variants(tree, keep_results), expression_variants(tree)):
            for new in variants:
                if tries >= budget:
                    break
                if not _loops_kept(new, original):
                    continue
                text = ast.unparse(new) + "\n"
                tries += 1
                if still_fails(text):
                    tree, progress = new, True
                    break
            if progress:
                break
    return ast.unparse(tree) + "\n", tries


def _message(error):
    """An error's first line without the file and line it names."""
    first = (error or "").splitlines()[0] if error else ""
    return re.sub(r"\S+\.py:\d+:\s*", "", first)


def reduce_record(runner, case, record, budget=60):
    """A failing record's kernel reduced: the reduced source and the record of its run (same failure)."""
    status = record["status"]
    first = [d for d in record.get("diffs", []) if d["what"] != "nan-bits"]
    keep = [first[0]["result"]] if first else []  # a refusal needs no result
    what = first[0]["what"] if first else None
    message = _message(record.get("error"))

    def still_fails(text):
        r = runner.run(case, text)
        if r["status"] != status:
            return False
        if what is None:
            return _message(r.get("error")) == message  # the same refusal
        return any(d["result"] in keep and d["what"] == what for d in r.get("diffs", []))

    source, tries = reduce_source(case.source, still_fails, keep, [r for r, _ in case.results], budget)
    final = runner.run(case, source)
    return source, tries, final
