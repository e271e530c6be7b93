"""The Python peers on the public suite's inputs (bench/lineage-peers.ts runs this in its virtualenv).

    python peers.py suite <job.json> <out.json>    every run of the suite with sqlglot, sqllineage, dbt-colibri
    python peers.py speed <manifest> <catalog> <out.json>
                                                   sqlglot's lineage of every column of every model, one process

Each peer is called through its documented entry: sqlglot's `lineage(column, sql, schema, dialect)`
on a statement's query, sqllineage's `LineageRunner(sql, dialect, metadata_provider)`, dbt-colibri's
`DbtColumnLineageExtractor(manifest, catalog).extract_project_lineage()`. Answers are edges
`[from table, from column, to table (None: the case's model), to column]`, as the suite's truth.
"""
import json
import os
import signal
import sys
import tempfile
import time
import traceback

import sqlglot
from sqlglot import exp
from sqlglot.lineage import lineage
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import build_scope
from sqlglot.schema import MappingSchema

PER_RUN_SECONDS = 20


class Timeout(Exception):
    pass


def _alarm(*_):
    raise Timeout()


signal.signal(signal.SIGALRM, _alarm)

SQLGLOT_DIALECT = {"generic": None, "spark": "spark", "databricks": "databricks", "hive": "hive"}
SQLLINEAGE_DIALECT = {"generic": "ansi", "spark": "sparksql", "postgres": "postgres"}


def sg_dialect(d):
    return SQLGLOT_DIALECT.get(d, d)


def table_name(t):
    return ".".join(p for p in (t.catalog, t.db, t.name) if p).lower()


def schema_of(tables):
    """{'a.b.t': [cols]} → sqlglot's nested mapping."""
    out = {}
    for name, cols in tables.items():
        parts = name.split(".")
        node = out
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = {c: "text" for c in cols}
    return out


def _leaves(node, out):
    if not node.downstream:
        if isinstance(node.source, exp.Table):
            out.append((table_name(node.source), node.name.split(".")[-1]))
        return
    for d in node.downstream:
        _leaves(d, out)


def sqlglot_query_edges(query, dialect, tables, to, names=None):
    """Edges of one query's output columns (renamed by `names`, by position, when given)."""
    schema = schema_of(tables)
    q = qualify(query.copy(), schema=schema, dialect=sg_dialect(dialect), validate_qualify_columns=False, identify=False)
    scope = build_scope(q)
    outputs = q.named_selects
    edges = []
    for k, col in enumerate(outputs):
        target = names[k] if names and k < len(names) else col
        try:
            node = lineage(col, q, schema=schema, dialect=sg_dialect(dialect), scope=scope, trim_selects=False)
        except Exception:
            continue
        leaves = []
        _leaves(node, leaves)
        for t, c in leaves:
            edges.append([t, c, to, target])
    return edges, outputs


def sqlglot_run(case, dialect):
    tables = {k.lower(): v for k, v in case["schema"].items()}
    edges = []
    if case["form"] == "model":
        for m in case["upstream"] + [dict(name=None, sql=case["sql"])]:
            tree = sqlglot.parse_one(m["sql"], read=sg_dialect(dialect))
            e, outputs = sqlglot_query_edges(tree, dialect, tables, m["name"].lower() if m["name"] else None)
            edges += e
            if m["name"]:
                tables[m["name"].lower()] = outputs
        return edges
    for st in sqlglot.parse(case["sql"], read=sg_dialect(dialect)):
        if st is None:
            continue
        query = st.expression if isinstance(st, (exp.Insert, exp.Create)) else None
        if not isinstance(query, exp.Query):
            continue
        target = st.this
        names = None
        if isinstance(target, exp.Schema):
            names = [c.name for c in target.expressions]
            target = target.this
        to = table_name(target) if isinstance(target, exp.Table) else None
        if names is None and isinstance(st, exp.Insert) and to in tables:
            names = tables[to]
        e, outputs = sqlglot_query_edges(query, dialect, tables, to, names)
        edges += e
        if to and isinstance(st, exp.Create):
            tables[to] = names or outputs
    return edges


def sqllineage_run(case, dialect):
    from sqllineage.core.metadata.dummy import DummyMetaDataProvider
    from sqllineage.runner import LineageRunner

    d = SQLLINEAGE_DIALECT.get(dialect, dialect)
    schemas = {}
    for name, cols in case["schema"].items():
        parts = name.lower().split(".")
        schemas[".".join(parts[-2:]) if len(parts) > 1 else name.lower()] = cols
    provider = DummyMetaDataProvider(schemas)
    statements = []
    if case["form"] == "model":
        for m in case["upstream"]:
            statements.append((f"INSERT INTO {m['name']}\n{m['sql']}", m["name"].lower()))
        statements.append((f"INSERT INTO tributary_model\n{case['sql']}", None))
    else:
        statements.append((case["sql"], "script"))
    edges = []
    for sql, name in statements:
        runner = LineageRunner(sql, dialect=d, metadata_provider=provider, silent_mode=True)
        for path in runner.get_column_lineage():
            src, dst = path[0], path[-1]
            fix = lambda s: str(s).replace("<default>.", "").lower()  # noqa: E731
            to = fix(dst.parent) if dst.parent is not None else None
            if name != "script":
                to = None if name is None else name
            edges.append([fix(src.parent) if src.parent is not None else "", src.raw_name, to, dst.raw_name])
    return edges


COLIBRI_ADAPTERS = {"spark": "spark", "generic": "postgres", "tsql": "sqlserver"}


def colibri_run(case, dialect, project):
    """dbt-colibri on the case's own slice of its project (names repeat across cases)."""
    from dbt_colibri.lineage_extractor.extractor import DbtColumnLineageExtractor

    manifest, catalog = project
    nodes = {k: v for k, v in manifest["nodes"].items() if v["meta"]["case_id"] == case["id"]}
    deps = {d for n in nodes.values() for d in n["depends_on"]["nodes"]}
    sources = {k: dict(v, config=v.get("config", {"enabled": True})) for k, v in manifest["sources"].items() if k in deps}
    m = dict(manifest, nodes=nodes, sources=sources, metadata=dict(manifest["metadata"], adapter_type=COLIBRI_ADAPTERS.get(dialect, dialect)))
    m["parent_map"] = {k: v["depends_on"]["nodes"] for k, v in nodes.items()}
    m["child_map"] = {}
    c = {"metadata": catalog["metadata"], "nodes": {k: v for k, v in catalog["nodes"].items() if k in nodes}, "sources": {k: v for k, v in catalog["sources"].items() if k in sources}}
    # dbt-colibri lineages the columns the catalog lists (`dbt docs generate`); where the case gives
    # none for a model, sqlglot's reading of its output stands in, as a catalog would have it.
    tables = {k.lower(): v for k, v in case["schema"].items()}
    for uid, n in nodes.items():
        if uid in c["nodes"]:
            continue
        try:
            q = qualify(sqlglot.parse_one(n["compiled_code"], read=sg_dialect(dialect)), schema=schema_of(tables), dialect=sg_dialect(dialect), validate_qualify_columns=False)
            outputs = q.named_selects
        except Exception:
            outputs = []
        if n["meta"]["case_table"]:
            tables[n["meta"]["case_table"].lower()] = outputs
        c["nodes"][uid] = {"unique_id": uid, "metadata": {"type": "BASE TABLE", "database": n["database"], "schema": n["schema"], "name": n["alias"]}, "columns": {o: {"type": "TEXT", "index": k + 1, "name": o} for k, o in enumerate(outputs)}, "stats": {}}
    names = {k: v["meta"]["case_table"] for k, v in list(nodes.items()) + list(sources.items())}
    with tempfile.TemporaryDirectory() as tmp:
        mp, cp = os.path.join(tmp, "manifest.json"), os.path.join(tmp, "catalog.json")
        json.dump(m, open(mp, "w"))
        json.dump(c, open(cp, "w"))
        parents = DbtColumnLineageExtractor(mp, cp).extract_project_lineage()["lineage"]["parents"]
    edges = []
    for uid, cols in parents.items():
        if uid not in nodes:
            continue
        for col, ins in cols.items():
            if col.startswith("__colibri"):
                continue
            for i in ins:
                node = i.get("dbt_node", "")
                edges.append([names.get(node, node.split("___")[-1]), i.get("column", ""), names.get(uid), col])
    return edges


PEERS = {"sqlglot": sqlglot_run, "sqllineage": sqllineage_run, "dbt-colibri": colibri_run}


def suite(job_path, out_path):
    job = json.load(open(job_path))
    cases = {c["id"]: c for c in job["cases"]}
    projects = {}
    only = [p for p in os.environ.get("PEERS_ONLY", "").split(",") if p] or list(PEERS)
    out = {p: {} for p in only}
    for r in job["runs"]:
        case = cases[r["case"]]
        for peer in only:
            fn = PEERS[peer]
            if peer == "dbt-colibri" and case["form"] != "model":
                continue
            args = (case, r["dialect"])
            if peer == "dbt-colibri":
                if r["project"] not in projects:
                    d = os.path.join(job["suite_dir"], "projects", r["project"])
                    projects[r["project"]] = (json.load(open(os.path.join(d, "manifest.json"))), json.load(open(os.path.join(d, "catalog.json"))))
                args = (case, r["dialect"], projects[r["project"]])
            t0 = time.perf_counter()
            signal.alarm(PER_RUN_SECONDS)
            try:
                res = {"edges": fn(*args)}
            except Timeout:
                res = {"edges": [], "error": f"over {PER_RUN_SECONDS} s"}
            except Exception as e:  # a peer's failure on one case is that case's answer
                res = {"edges": [], "error": f"{type(e).__name__}: {str(e)[:200]}"}
            finally:
                signal.alarm(0)
            res["seconds"] = time.perf_counter() - t0
            out[peer][r["id"]] = res
    json.dump(out, open(out_path, "w"))


def speed(manifest_path, catalog_path, out_path):
    """sqlglot's column lineage of a whole project, cold, in this one process: the schema built once,
    then per model, parse and qualify once, then `lineage` of each output column over the built
    scope (dbt-colibri's way)."""
    t0 = time.perf_counter()
    manifest = json.load(open(manifest_path))
    catalog = json.load(open(catalog_path))
    dialect = {"duckdb": "duckdb"}.get(manifest["metadata"].get("adapter_type"), manifest["metadata"].get("adapter_type"))
    schema = {}
    for section in ("nodes", "sources"):
        for uid, entry in catalog.get(section, {}).items():
            md = entry["metadata"]
            schema.setdefault(md["database"], {}).setdefault(md["schema"], {})[md["name"]] = {c: v.get("type") or "text" for c, v in entry["columns"].items()}
    # Built once: given as a dict, `qualify` and every `lineage` call would rebuild it from all the
    # project's tables (ensure_schema), a cost that grows with the project per column, which
    # dbt-colibri avoids by giving each model only its parents' tables.
    schema = MappingSchema(schema, dialect=dialect)
    models = [n for n in manifest["nodes"].values() if n.get("resource_type") == "model" and n.get("compiled_code")]
    edges = failures = 0
    for n in models:
        try:
            q = qualify(sqlglot.parse_one(n["compiled_code"], read=dialect), schema=schema, dialect=dialect, validate_qualify_columns=False)
            scope = build_scope(q)
            for col in q.named_selects:
                node = lineage(col, q, schema=schema, dialect=dialect, scope=scope, trim_selects=False)
                leaves = []
                _leaves(node, leaves)
                edges += len(leaves)
        except Exception:
            failures += 1
    json.dump({"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time(), "models": len(models), "edges": edges, "failures": failures}, open(out_path, "w"))


if __name__ == "__main__":
    try:
        if sys.argv[1] == "suite":
            suite(sys.argv[2], sys.argv[3])
        else:
            speed(sys.argv[2], sys.argv[3], sys.argv[4])
    except Exception:
        traceback.print_exc()
        sys.exit(1)
