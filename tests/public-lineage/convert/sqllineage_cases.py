"""Extracts sqllineage's column-lineage test cases as data (SQL, dialect, metadata, expected pairs).

Run with the repository's commit checked out into a folder (see ../README.md):

    python3 sqllineage_cases.py <folder with sqllineage's tests/> > ../cases/sqllineage.json

Their test modules are imported with the helpers they call replaced by recorders, so every
`assert_column_lineage_equal(sql, pairs, ...)` call yields one case: nothing of sqllineage runs.
"""
import importlib
import inspect
import json
import os
import sys
import types
from collections import namedtuple

root = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.dirname(root))

# ── stand-ins for the modules the tests import ────────────────────────────────
ColumnQualifierTuple = namedtuple("ColumnQualifierTuple", ["column", "qualifier"])


class Provider:
    def __init__(self, schemas=None):
        self.schemas = dict(schemas or {})


def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


module("sqllineage")
module("sqllineage.utils")
module("sqllineage.utils.entities", ColumnQualifierTuple=ColumnQualifierTuple)
module("sqllineage.core")
module("sqllineage.core.metadata_provider", MetaDataProvider=Provider)


class Mark:
    def __getattr__(self, name):
        def deco(*args, **kwargs):
            def wrap(f):
                f.__dict__.setdefault("_marks", []).append((name, args, kwargs))
                return f

            return wrap

        return deco


def fixture(*args, **kwargs):
    def wrap(f):
        f._fixture = kwargs
        return f

    return wrap if not (args and callable(args[0])) else wrap(args[0])


module("pytest", mark=Mark(), fixture=fixture, raises=None)

recorded = []
current = {}


def assert_column_lineage_equal(sql, column_lineages=None, dialect="ansi", metadata_provider=None, test_sqlfluff=True, test_sqlparse=True):
    recorded.append(
        {
            **current,
            "dialect": dialect,
            "sql": sql,
            "schema": metadata_provider.schemas if metadata_provider else {},
            "expected": [
                [None if s.qualifier is None else s.qualifier, s.column, t.qualifier, t.column] for s, t in (column_lineages or [])
            ],
            "sqlparse_too": bool(test_sqlparse),
        }
    )


def generate_metadata_providers(schemas):
    return [Provider(schemas)]


helpers = module(
    "tests.helpers",
    assert_column_lineage_equal=assert_column_lineage_equal,
    assert_table_lineage_equal=lambda *a, **k: None,
    generate_metadata_providers=generate_metadata_providers,
)

# The session fixture `provider` of their conftest: its schemas.
conftest_globals = {"__name__": "tests.conftest", "__package__": "tests"}
src = open(os.path.join(root, "conftest.py")).read()
exec(compile(src, "conftest.py", "exec"), conftest_globals)
schemas = conftest_globals["_data_warehouse_schemas"]

column_dir = os.path.join(root, "sql", "column")
for dirpath, _, files in sorted(os.walk(column_dir)):
    for f in sorted(files):
        if not f.startswith("test_") or not f.endswith(".py"):
            continue
        rel = os.path.relpath(os.path.join(dirpath, f), os.path.dirname(root))
        mod = importlib.import_module(rel[:-3].replace(os.sep, "."))
        local_fixtures = {n: v for n, v in vars(mod).items() if callable(v) and hasattr(v, "_fixture")}
        for name, fn in vars(mod).items():
            if not name.startswith("test_") or not callable(fn):
                continue
            params = inspect.signature(fn).parameters
            combos = [{}]
            for mark, args, _ in getattr(fn, "_marks", []):
                if mark != "parametrize":
                    continue
                names = [n.strip() for n in args[0].split(",")] if isinstance(args[0], str) else list(args[0])
                values = list(args[1])
                combos = [dict(c, **dict(zip(names, v if len(names) > 1 else (v,)))) for c in combos for v in values]
            for combo in combos:
                kwargs = dict(combo)
                for p in params:
                    if p in kwargs:
                        continue
                    if p == "provider":
                        kwargs[p] = Provider(schemas)
                    elif p in local_fixtures:
                        produced = local_fixtures[p]()
                        kwargs[p] = produced
                current.clear()
                current.update({"file": rel.replace(os.sep, "/"), "test": name, "params": {k: v for k, v in combo.items() if isinstance(v, (str, int))}})
                before = len(recorded)
                try:
                    fn(**kwargs)
                except Exception as e:  # a test this extraction cannot run is listed, not guessed
                    print(f"skipped {rel}::{name} {combo}: {e!r}", file=sys.stderr)
                    del recorded[before:]

CONSTRUCTS = {
    "merge": "merge", "procedure": "procedure", "case_when": "case_when", "cast": "cast", "specified_in_dml": "insert_column_list",
    "select_column": "select", "expression": "expression", "from_cte": "cte", "from_join": "join", "from_subquery": "subquery",
    "function": "function", "lateral_alias_ref": "lateral_alias", "union": "set_operation", "update": "update",
    "target_column": "insert_by_position", "unqualified_column": "unqualified_column", "wildcard": "star", "session_metadata": "multi_statement",
}
cases = []
for r in recorded:
    base = f"sqllineage:{r['file'].split('/')[-1][:-3]}::{r['test']}" + "".join(f"[{v}]" for v in r["params"].values())
    n = sum(1 for c in cases if c["id"].rsplit("#", 1)[0] == base) + 1
    constructs = [v for k, v in CONSTRUCTS.items() if k in r["file"]][:1] or ["select"]
    # Only the tables the statement names: the metadata of the other tests' tables is not needed.
    text = r["sql"].lower()
    schema = {t: cols for t, cols in r["schema"].items() if t.split(".")[-1] in text}
    cases.append({
        "id": f"{base}#{n}",
        "origin": {"file": r["file"], "test": r["test"], **({"params": r["params"]} if r["params"] else {})},
        "dialect": r["dialect"],
        "form": "script",
        "sql": r["sql"],
        "schema": schema,
        "upstream": [],
        "expected": r["expected"],
        "columns": None,
        "constructs": constructs,
        # sqllineage's helper compares (first, last) of each path: a script's lineage end to end.
        "path_ends": True,
    })
json.dump({"cases": cases}, sys.stdout, indent=1)
