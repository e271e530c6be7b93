"""dbt-colibri's dialect tests transcribed as data, by hand.

    python3 colibri_cases.py > ../cases/colibri.json

tests/test_dialect_matrix.py and tests/test_case_sensitivity.py build one source and one model per
dialect with tests/dbt_test_factory.py's rules (unquoted names upper-case on Snowflake and Oracle,
lower elsewhere; quoted names keep their case on Snowflake, Postgres, Oracle and ClickHouse;
relations `test_db.raw_schema.source_table`, without the database on Oracle and ClickHouse) and
assert the model's parents. The same inputs and asserted parents are written out here per dialect.
tests/test_pivot_support.py's project is transcribed as it is. `scans` are the columns the tests
assert as `__colibri_filter__` parents (read to filter, join or group).
"""
import json

cases = []
DIALECTS = {
    # name: (upper-case unquoted, quoted keeps case, quote)
    "snowflake": (True, True, '"'),
    "postgres": (False, True, '"'),
    "oracle": (True, True, '"'),
    "clickhouse": (False, True, '"'),
    "bigquery": (False, False, "`"),
    "duckdb": (False, False, '"'),
    "redshift": (False, False, '"'),
    "trino": (False, False, '"'),
    "tsql": (False, False, "["),
    "databricks": (False, False, "`"),
}


def ident(d, name, quote=False):
    upper, _, q = DIALECTS[d]
    if quote:
        return f"[{name}]" if q == "[" else f"{q}{name}{q}"
    return name.upper() if upper else name.lower()


def stored(d, name, quote=False):
    upper, keeps, _ = DIALECTS[d]
    if quote and keeps:
        return name
    return name.upper() if upper else name.lower()


def table(d):
    parts = ["raw_schema", "source_table"] if d in ("clickhouse", "oracle") else ["test_db", "raw_schema", "source_table"]
    return ".".join(p.upper() if DIALECTS[d][0] else p for p in parts)


def case(d, file, test, sql, source_cols, expected, columns, constructs, scans=None, case_sensitive=False, model_columns=None):
    src = table(d)
    quoted = {n for n, q in source_cols if q} | {"orderitem id", "quotedMixedCase"}
    name = lambda n: stored(d, n, n in quoted)  # noqa: E731
    outputs = [name(o) for o in (model_columns or list(dict.fromkeys(t for _, t in expected)))]
    if case_sensitive:
        expected = [(name(s), name(t)) for s, t in expected]
    cases.append(
        {
            "id": f"colibri:{test}[{d}]",
            "origin": {"file": file, "test": test},
            "dialect": d,
            "form": "model",
            "sql": sql,
            "schema": {src.lower(): [stored(d, n, q) for n, q in source_cols]},
            "model_columns": outputs,
            "upstream": [],
            "expected": [[src.lower(), s, None, t] for s, t in expected],
            "scans": [[src.lower(), c] for c in scans] if scans is not None else None,
            "columns": columns,
            "constructs": constructs,
            "case_sensitive": case_sensitive,
        }
    )


M = "tests/test_dialect_matrix.py"
for d in DIALECTS:
    c = lambda n, q=False: ident(d, n, q)  # noqa: E731
    case(d, M, "test_relation_name_resolution_by_dialect", f"SELECT {c('id')} FROM {table(d)}", [("id", False)], [("id", "id")], None, ["select"])
    case(d, M, "test_lineage_types_by_dialect",
         f"SELECT {c('id')}, {c('id')} AS {c('customer_id')}, {c('gross_amount')} - {c('discount_amount')} AS {c('net_amount')} FROM {table(d)}",
         [("id", False), ("gross_amount", False), ("discount_amount", False)],
         [("id", "id"), ("id", "customer_id"), ("gross_amount", "net_amount"), ("discount_amount", "net_amount")], None, ["select", "expression"])
    case(d, M, "test_select_star_expands_by_dialect", f"SELECT * FROM {table(d)}", [("id", False), ("status", False), ("amount", False)],
         [("id", "id"), ("status", "status"), ("amount", "amount")], None, ["star"])
    case(d, M, "test_structural_filter_and_having_by_dialect",
         f"SELECT {c('category')} FROM {table(d)} WHERE {c('status')} = 'active' GROUP BY {c('category')} HAVING SUM({c('amount')}) > 100",
         [("category", False), ("amount", False), ("status", False)], [("category", "category")], None, ["filter"],
         scans=["status", "amount", "category"])
    case(d, M, "test_report_edges_by_dialect", f"SELECT {c('id')} AS {c('customer_id')}, {c('amount')} FROM {table(d)}",
         [("id", False), ("amount", False)], [("id", "customer_id"), ("amount", "amount")], None, ["select"])
    # tests/test_case_sensitivity.py: quoted names, with spaces and in mixed case.
    keeps = DIALECTS[d][1]
    case(d, "tests/test_case_sensitivity.py", "test_quoted_column_with_spaces_rename_by_dialect",
         f"SELECT {c('order item_id', True)} AS {c('orderitem id', True)}, {c('order_id')}, {c('product_id')} FROM {table(d)}",
         [("order item_id", True), ("order_id", False), ("product_id", False)],
         [("order item_id", "orderitem id"), ("order_id", "order_id"), ("product_id", "product_id")], None,
         ["quoted_identifiers"], case_sensitive=keeps)
    case(d, "tests/test_case_sensitivity.py", "TestQuotedColumnsByDialect",
         f"SELECT {c('quotedMixedCase', True)}, {c('normal_col')} FROM {table(d)}",
         [("quotedMixedCase", True), ("normal_col", False)],
         [("quotedMixedCase", "quotedMixedCase"), ("normal_col", "normal_col")], None,
         ["quoted_identifiers", "case_folding"], case_sensitive=keeps)

# tests/test_pivot_support.py: its two-model project as it is (Snowflake).
cases.append(
    {
        "id": "colibri:test_pivot_column_lineage_traces_through_cte",
        "origin": {"file": "tests/test_pivot_support.py", "test": "test_pivot_column_lineage_traces_through_cte"},
        "dialect": "snowflake",
        "form": "model",
        "sql": """
                    WITH prep AS (
                        SELECT location_id, value, category, date
                        FROM TEST_DB.TEST_SCHEMA.base_data
                    )
                    SELECT 
                        location_id,
                        date,
                        sales,
                        returns,
                        profit
                    FROM prep
                    PIVOT (SUM(value) FOR category IN ('Sales', 'Returns', 'Profit'))
                """,
        "schema": {"test_db.test_schema.base_data": ["location_id", "value", "category", "date"]},
        "model_columns": ["location_id", "date", "sales", "returns", "profit"],
        "upstream": [],
        "expected": [["test_db.test_schema.base_data", "value", None, c] for c in ("sales", "returns", "profit")]
        + [["test_db.test_schema.base_data", "location_id", None, "location_id"]],
        "scans": None,
        "columns": ["sales", "returns", "profit", "location_id"],
        "constructs": ["pivot", "cte"],
        "case_sensitive": False,
    }
)
json.dump({"cases": cases}, __import__("sys").stdout, indent=1)
