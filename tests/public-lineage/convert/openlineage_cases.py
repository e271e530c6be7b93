"""Extracts the column-lineage cases of OpenLineage's SQL parser tests (Rust) as data.

    python3 openlineage_cases.py <integration/sql/impl/tests/column_lineage> > ../cases/openlineage.json

Each `#[test]` function that parses one statement and asserts `output.column_lineage` yields one
case: the SQL string, the dialect (`test_sql` parses as postgres), and the expected
(input table, input column) → output column pairs. Nothing of OpenLineage runs.
"""
import json
import os
import re
import sys

folder = sys.argv[1]


def rust_string(s, i):
    """The Rust string literal starting at s[i] (plain or raw) → (value, end)."""
    if s[i] == "r":
        m = re.compile(r'r(#*)"').match(s, i)
        close = '"' + m.group(1)
        j = s.index(close, m.end())
        return s[m.end() : j], j + len(close)
    assert s[i] == '"'
    out, j = [], i + 1
    while s[j] != '"':
        if s[j] == "\\":
            nxt = s[j + 1]
            if nxt == "\n":  # a line continuation eats the newline and the next line's indent
                j += 2
                while s[j] in " \t":
                    j += 1
                continue
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}[nxt])
            j += 2
            continue
        out.append(s[j])
        j += 1
    return "".join(out), j + 1


def block(s, i, open_ch, close_ch):
    depth, j = 0, i
    while True:
        c = s[j]
        if c == '"' or (c == "r" and re.match(r'r#*"', s[j:j + 4]) and not s[j - 1].isalnum()):
            _, j = rust_string(s, j)
            continue
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return s[i : j + 1], j + 1
        j += 1


META = re.compile(r'ColumnMeta\s*\{\s*origin:\s*(None|Some\(table\("([^"]*)"\)\))\s*,\s*name:\s*"([^"]*)"\.to_string\(\)\s*,?\s*\}')

cases = []
for f in sorted(os.listdir(folder)):
    if not f.endswith(".rs") or f == "mod.rs":
        continue
    src = open(os.path.join(folder, f)).read()
    for m in re.finditer(r"#\[test\]\s*fn\s+(\w+)\s*\(\)\s*", src):
        body, _ = block(src, m.end(), "{", "}")
        call = re.search(r"test_sql(_dialect)?\(\s*", body)
        if not call or "output.column_lineage" not in body:
            continue
        sql, k = rust_string(body, call.end())
        dialect = "postgres"
        if call.group(1):
            dialect, _ = rust_string(body, re.compile(r',\s*').match(body, k).end())
        at = body.index("output.column_lineage")
        vec_start = body.index("vec!", at)
        vec, _ = block(body, body.index("[", vec_start), "[", "]")
        expected = []
        for cl in re.finditer(r"ColumnLineage\s*\{", vec):
            entry, _ = block(vec, cl.end() - 1, "{", "}")
            metas = META.findall(entry)
            (_, _, out_name), inputs = metas[0], metas[1:]
            for origin, table, name in inputs:
                expected.append([table if origin != "None" else None, name, None, out_name])
        cases.append({
            "id": f"openlineage:{f[:-3]}::{m.group(1)}",
            "origin": {"file": f"integration/sql/impl/tests/column_lineage/{f}", "test": m.group(1)},
            "dialect": dialect,
            "form": "model",
            "sql": sql,
            "schema": {},
            "upstream": [],
            "expected": expected,
            "columns": None,
            "constructs": [{"tests_aliases.rs": "alias", "tests_cte.rs": "cte", "tests_select.rs": "subquery", "tests_simple.rs": "select"}[f]],
        })

json.dump({"cases": cases}, sys.stdout, indent=1)
