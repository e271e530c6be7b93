"""Adds to each model-form case the tables its SQL reads (`tables`), so the case's dbt project can
declare them as sources. Read with sqlglot (any recent version); CTE names are not tables.

    <venv>/bin/python tables.py ../cases/*.json
"""
import json
import sys

import sqlglot
from sqlglot import exp

DIALECT = {"generic": None, "ansi": None, "sparksql": "spark", "postgres": "postgres"}


def tables_of(sql, dialect):
    tree = sqlglot.parse_one(sql, read=DIALECT.get(dialect, dialect))
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    out = []
    for t in tree.find_all(exp.Table):
        if not t.name or isinstance(t.this, exp.Func):
            continue
        parts = [p for p in (t.catalog, t.db, t.name) if p]
        name = ".".join(parts).lower()
        if len(parts) == 1 and name in ctes:
            continue
        if name not in out:
            out.append(name)
    return out


for path in sys.argv[1:]:
    doc = json.load(open(path))
    for c in doc["cases"]:
        if c["form"] != "model":
            continue
        for m in c["upstream"] + [c]:
            m["tables"] = sorted(set(tables_of(m["sql"], c["dialect"])))
    json.dump(doc, open(path, "w"), indent=1)
    open(path, "a").write("\n")
