"""What keeps the documentation site (docs/) true to the code, checked without Sphinx (CI also builds the site with
warnings as errors, .ci/run): the kernel-language tables are made from the translator's registries and name every
library entry, every public name of the package has an entry in docs/api.rst and a docstring, and every environment
variable the package reads is on docs/environment.rst."""

import importlib.util
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = os.path.join(ROOT, "docs")


def _extension(name):
    spec = importlib.util.spec_from_file_location("docs_ext_" + name, os.path.join(DOCS, "_ext", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


kernel_language = _extension("kernel_language")
api_coverage = _extension("api_coverage")


def test_the_syntax_tables_name_every_rule_the_translator_registers():
    from numba_cuda_c.pyjit import rules

    text = "\n".join(kernel_language.syntax_rst())
    kinds = kernel_language.python_kinds(rules.STATEMENTS) + kernel_language.python_kinds(rules.TYPING)
    assert len(kinds) > 25
    for kind in kinds:
        assert re.search(r"^   \* - %s$" % kind.__name__, text, re.M), kind
    for kind in set(rules.CALL_TYPING) | set(rules.CALL_C):
        assert "``%s``" % kind in text, kind
    assert "``Try``" in text and "``ListComp``" in text  # what has no rule is listed too


def test_the_library_tables_name_every_entry_of_the_table():
    from numba_cuda_c.pyjit import lib

    text = "\n".join(kernel_language.library_rst())
    entries = kernel_language.documented_entries(lib.TABLE)
    assert "has %d entries" % len(entries) in text and len(entries) > 700
    for path, _ in entries:
        assert kernel_language.spelling(path).split(",")[0] in text, path


def test_a_registered_kind_without_words_fails_the_build(monkeypatch):
    """The tables cannot drift: a rule the translator gains without words on the page is an error (the docs build
    turns it into a failure), as are words for a rule it lost."""
    monkeypatch.delitem(kernel_language.NOTES, "While")
    with pytest.raises(kernel_language.Drift, match="While"):
        kernel_language.syntax_rst()
    monkeypatch.setitem(kernel_language.NOTES, "While", ("w", "n"))
    monkeypatch.setitem(kernel_language.CALL_NOTES, "no such kind", "gone")
    with pytest.raises(kernel_language.Drift, match="no such kind"):
        kernel_language.syntax_rst()
    with pytest.raises(kernel_language.Drift, match="no spelling"):
        kernel_language.spelling(("unheard_of", "f"))


def _documented_in_api_page():
    """The objects docs/api.rst documents: autodoc directives and py:data entries, as numba_cuda_c.<name>."""
    text = open(os.path.join(DOCS, "api.rst"), encoding="utf8").read()
    names = re.findall(r"^\.\. (?:auto\w+|py:\w+):: ([\w.]+)", text, re.M)
    return {name if name.startswith("numba_cuda_c.") else "numba_cuda_c." + name for name in names}


def test_every_public_name_is_in_the_api_reference_with_a_docstring():
    undocumented, no_docstring = api_coverage.missing(_documented_in_api_page())
    assert undocumented == [], "public names without an entry in docs/api.rst: %s" % undocumented
    assert no_docstring == [], "public names without a docstring: %s" % no_docstring
    assert len(api_coverage.public_objects()) > 80  # the lazy names (jit, compile_ptx, ...) are among them
    assert {"jit", "compile_ptx", "LinkableCode", "reduce"} <= set(api_coverage.public_objects())


def test_every_method_and_property_of_a_public_class_has_a_docstring(monkeypatch):
    assert api_coverage.members_without_docstrings() == []
    from numba_cuda_c.args import In

    monkeypatch.setattr(In, "undocumented", lambda self: None, raising=False)
    assert api_coverage.members_without_docstrings() == ["In.undocumented"]


def test_the_type_names_are_listed_from_the_package():
    text = "".join(api_coverage.type_names_rst())
    for name in ("``float32`` (``f4``, ``float_``)", "``void`` (``none``)", "``bfloat16``"):
        assert name in text, text


def test_a_docstring_that_opens_with_its_call_gives_the_signature():
    """C functions carry no signature Python can read: their docstrings open with it, which the API reference
    shows as the signature."""
    import numba_cuda_c

    assert api_coverage.signature_from_docstring(
        None, "function", "numba_cuda_c.to_device", numba_cuda_c.to_device, {}, None, None
    ) == ("(obj, stream=0, copy=True, to=None)", None)
    lines = (numba_cuda_c.to_device.__doc__ or "").splitlines()
    api_coverage.docstring_without_call(
        None, "function", "numba_cuda_c.to_device", numba_cuda_c.to_device, {}, lines
    )
    assert lines[0].startswith("Copy a host array"), lines[0]


def test_every_environment_variable_the_package_reads_is_documented():
    read = set()
    for folder in ("numba_cuda_c", "src"):
        for path, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                if name.endswith((".py", ".c", ".h")):
                    text = open(os.path.join(path, name), encoding="utf8").read()
                    read |= set(
                        re.findall(r'"(NUMBA_[A-Z0-9_]+|CUDA_HOME|CUDA_PATH|CONDA_PREFIX|XDG_CACHE_HOME)"', text)
                    )
    read |= set(re.findall(r'"(NUMBA_[A-Z0-9_]+)"', open(os.path.join(ROOT, "numba_cuda_c_alias.pth")).read()))
    assert len(read) > 20, read
    page = open(os.path.join(DOCS, "environment.rst"), encoding="utf8").read()
    assert sorted(v for v in read if v not in page) == []
