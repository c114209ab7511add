"""``.. eigensparse-methods::``: the table of methods, generated from the code's registry.

The rows come from the one method registry, :func:`eigensparse.registry.methods`. Columns: the name, the one-line summary, any ``guarantee`` and
``cost`` the specs carry, whether a penalty alone is accepted, and the options (the
keyword-only parameters of the solver).
"""
from docutils import nodes
from docutils.parsers.rst import Directive


def _specs() -> dict:
    from eigensparse import registry

    return {spec.name: spec for spec in registry.methods()}


def _columns(specs):
    cols = [("method", lambda n, s: n), ("what it does", lambda n, s: getattr(s, "description", ""))]
    for extra in ("guarantee", "cost"):
        if any(getattr(s, extra, None) for s in specs.values()):
            cols.append((extra, lambda n, s, e=extra: str(getattr(s, e, "") or "")))
    cols.append(("penalty alone", lambda n, s: "yes" if getattr(s, "penalized", False) else ""))
    cols.append(("options", lambda n, s: ", ".join(
        o for o in getattr(s, "options", ()) if o != "random_state")))
    return cols


def _cell(text, literal=False):
    entry = nodes.entry()
    para = nodes.paragraph()
    para += nodes.literal(text=text) if literal else nodes.Text(text)
    entry += para
    return entry


class MethodsTable(Directive):
    has_content = False

    def run(self):
        specs = _specs()
        cols = _columns(specs)
        table = nodes.table(classes=["eigensparse-methods"])
        group = nodes.tgroup(cols=len(cols))
        table += group
        for title, _ in cols:
            group += nodes.colspec(colwidth=40 if title == "what it does" else 15)
        head, row = nodes.thead(), nodes.row()
        for title, _ in cols:
            row += _cell(title)
        head += row
        group += head
        body = nodes.tbody()
        for name in sorted(specs):
            row = nodes.row()
            for j, (_, value) in enumerate(cols):
                row += _cell(value(name, specs[name]), literal=(j == 0))
            body += row
        group += body
        return [table]


def setup(app):
    app.add_directive("eigensparse-methods", MethodsTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
