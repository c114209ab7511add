"""``.. eigensparse-methods::``: the table of methods, generated from the code's registry.

Each row comes from the solver registry (:data:`eigensparse.solvers.SOLVERS` and the joint
methods of :mod:`eigensparse.multi`): the method's name, its one-line summary, whether it
accepts a penalty alone, and its options (the keyword-only parameters of the solver).
"""
from docutils import nodes
from docutils.parsers.rst import Directive


def _rows():
    from eigensparse import solvers

    solvers._load_all()
    rows = []
    for name, spec in sorted(solvers.SOLVERS.items()):
        opts = [o for o in spec.options if o not in ("random_state",)]
        rows.append((name, spec.summary, "yes" if spec.penalized else "",
                     ", ".join(opts)))
    try:
        from eigensparse import multi

        multi._load_all()
        for name, spec in sorted(getattr(multi, "JOINT_METHODS", {}).items()):
            if name not in {r[0] for r in rows}:
                rows.append((name, getattr(spec, "summary", ""), "", "(joint)"))
    except (ImportError, AttributeError):
        pass
    return rows


def _cell(text, literal=False):
    entry = nodes.entry()
    para = nodes.paragraph()
    para += nodes.literal(text=text) if literal else nodes.Text(text)
    entry += para
    return entry


class MethodsTable(Directive):
    has_content = False

    def run(self):
        header = ("method", "what it does", "penalty alone", "options")
        table = nodes.table(classes=["eigensparse-methods"])
        group = nodes.tgroup(cols=len(header))
        table += group
        for width in (12, 50, 8, 30):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        row = nodes.row()
        for h in header:
            row += _cell(h)
        head += row
        group += head
        body = nodes.tbody()
        for name, summary, penalized, opts in _rows():
            row = nodes.row()
            row += _cell(name, literal=True)
            row += _cell(summary)
            row += _cell(penalized)
            row += _cell(opts)
            body += row
        group += body
        return [table]


def setup(app):
    app.add_directive("eigensparse-methods", MethodsTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
