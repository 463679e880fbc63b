"""Write docs/api.md, the API reference, from the docstrings of smiclust.

Usage (from the repository root)::

    python docs/build_api.py              # rewrites docs/api.md
    python docs/build_api.py --out FILE   # writes FILE instead

Every public name of the modules listed in ``MODULES`` (their ``__all__``) gets a
heading, its signature and its docstring, verbatim (numpydoc text in a text
block); public methods and properties defined by a class follow the class.
Constants get their value and their ``#:`` comment from the source. The output
depends only on the code, so tests/test_docs.py regenerates it and compares it
with the committed file.
"""

import argparse
import importlib
import inspect
import re
from pathlib import Path

#: Modules documented, in this order, with a one-line role each.
MODULES = [
    ("smiclust", "the estimator, its function twin and the most used helpers"),
    ("smiclust.constraints", "must-links and cannot-links"),
    ("smiclust.datasets", "the data sets of the paper's experiments"),
    ("smiclust.lsmi", "least-squares mutual information (LSMI)"),
    ("smiclust.model_selection", "the automatic choice of n_neighbors, gamma, eta"),
    ("smiclust.neighbors", "the neighbour graph (exact or approximate search)"),
    ("smiclust.kernels", "the sparse local-scaling kNN kernel and K'"),
    ("smiclust.link_operator", "the matrix-free 3SMIC operator U"),
    ("smiclust.eigensolvers", "leading eigenvectors, shared by SMIC, SL and CSC"),
    ("smiclust.labeling", "from eigenvectors to clusters (the paper's rule)"),
    ("smiclust.link_groups", "closed links: must-link groups, lifted cannot-links"),
    ("smiclust.score_spreading", "the final scores spread over the kernel graph"),
    ("smiclust.consensus", "the vote of the best candidate of every n_neighbors"),
    ("smiclust.classifier_vote", "a classifier on the linked samples votes on the others"),
    ("smiclust.link_test", "do the links help? the held-out test of the links"),
    ("smiclust.solver", "one SMIC / 3SMIC solve for fixed parameters"),
    ("smiclust.n_clusters", "the choice of the number of clusters"),
    ("smiclust.io", "reading tables, links and labels; writing assignments"),
    ("smiclust.plotting", "plots of a clustering (needs matplotlib)"),
]

OUT = Path(__file__).resolve().parent / "api.md"


def anchor(text):
    """GitHub's anchor of a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return [n for n in names if n != "__version__"]


def signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def constant_comment(module, name):
    """The ``#:`` comment lines right above ``name = ...`` in the module source."""
    try:
        lines = inspect.getsource(module).splitlines()
    except (OSError, TypeError):
        return ""
    for i, line in enumerate(lines):
        if re.match(rf"{re.escape(name)}\s*[:=]", line):
            comment = []
            j = i - 1
            while j >= 0 and lines[j].startswith("#:"):
                comment.insert(0, lines[j][2:].strip())
                j -= 1
            return " ".join(comment)
    return ""


def constant_value(value):
    if isinstance(value, dict):
        return f"dict with keys {list(value)!r}"
    if isinstance(value, (set, frozenset)):  # sorted: set order varies by process
        text = f"{type(value).__name__}({sorted(value, key=repr)!r})"
    else:
        text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def docstring_block(obj):
    doc = inspect.getdoc(obj)
    if not doc:
        return ["*(no docstring)*", ""]
    return ["```text", doc, "```", ""]


def class_members(cls):
    """Public methods and properties defined by ``cls`` itself, in source order."""
    members = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property) or inspect.isfunction(value):
            members.append((name, value))
        elif isinstance(value, (classmethod, staticmethod)):
            members.append((name, value.__func__))
    return members


def inherited_note(cls):
    """One line naming the public methods a class inherits from scikit-learn."""
    if issubclass(cls, BaseException):
        return []
    own = set(vars(cls))
    inherited = sorted(
        name
        for name in dir(cls)
        if not name.startswith("_")
        and name not in own
        and callable(getattr(cls, name))
        and not getattr(getattr(cls, name), "__module__", "").startswith("smiclust")
    )
    bases = [b for b in cls.__bases__ if not b.__module__.startswith("smiclust")]
    if not inherited or not bases:
        return []
    where = ", ".join(f"`{b.__module__}.{b.__name__}`" for b in bases)
    names = ", ".join(f"`{n}`" for n in inherited)
    return [f"Inherited from {where}: {names}.", ""]


def document(module_name, name, obj, module):
    qualified = f"{module_name}.{name}"
    out = [f"### {qualified}", ""]
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            out += [f"*exception* `{qualified}`", ""]
        else:
            sig = signature(obj).removesuffix(" -> None")
            out += [f"*class* `{qualified}{sig}`", ""]
        out += docstring_block(obj)
        for member, value in class_members(obj):
            if isinstance(value, property):
                out += [f"#### {name}.{member}", "", "*property*", ""]
                out += docstring_block(value)
            else:
                sig = signature(value).replace("(self, ", "(").replace("(self)", "()")
                out += [f"#### {name}.{member}", "", f"`{member}{sig}`", ""]
                out += docstring_block(value)
        out += inherited_note(obj)
    elif callable(obj):
        out += [f"*function* `{qualified}{signature(obj)}`", ""]
        out += docstring_block(obj)
    else:
        out += [f"*constant* `{qualified} = {constant_value(obj)}`", ""]
        comment = constant_comment(module, name)
        if comment:
            out += [comment, ""]
    return out


def homes():
    """Where each object is documented in full: its first module in MODULES
    other than the top-level package, which re-exports it."""
    home = {}
    for module_name, _ in MODULES[1:]:
        module = importlib.import_module(module_name)
        for name in public_names(module):
            home.setdefault(id(getattr(module, name)), f"{module_name}.{name}")
    return home


def build():
    """The text of docs/api.md."""
    import smiclust

    lines = [
        "# API reference",
        "",
        f"smiclust {smiclust.__version__}. Generated from the docstrings by "
        "`python docs/build_api.py`; do not edit by hand (tests/test_docs.py "
        "checks that this file is up to date). The docstrings follow numpydoc "
        "and are reproduced as they are; `:func:`/`:class:` roles and "
        "`.. math::` blocks are reStructuredText.",
        "",
        "See the [user guide](user-guide.md) for what the method does and how to "
        "use it.",
        "",
        "## Contents",
        "",
    ]
    home = homes()
    sections = []
    for module_name, role in MODULES:
        module = importlib.import_module(module_name)
        names = public_names(module)
        heading = f"`{module_name}`: {role}"
        lines.append(f"- [{heading}](#{anchor(heading)})")
        lines.append(
            "  - " + ", ".join(f"[{n}](#{anchor(f'{module_name}.{n}')})" for n in names)
        )
        section = [f"## {heading}", ""]
        summary = (inspect.getdoc(module) or "").split("\n\n")[0]
        if summary:
            section += ["```text", summary, "```", ""]
        for name in names:
            obj = getattr(module, name)
            full = home.get(id(obj))
            if module_name == "smiclust" and full is not None:
                section += [
                    f"### {module_name}.{name}",
                    "",
                    f"`{module_name}.{name}{signature(obj)}`: re-export of "
                    f"[`{full}`](#{anchor(full)}).",
                    "",
                ]
            else:
                section += document(module_name, name, obj, module)
        sections.append(section)
    lines.append("")
    for section in sections:
        lines += section
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="file to write")
    args = parser.parse_args(argv)
    args.out.write_text(build(), encoding="utf-8")
    print(f"API reference written to {args.out}")


if __name__ == "__main__":
    main()
