"""sqlglot's lineage tests (tests/test_lineage.py) transcribed as data, by hand.

    python3 sqlglot_cases.py > ../cases/sqlglot.json

sqlglot's tests walk the node tree `lineage(column, sql, schema, sources)` returns and assert the
names of the nodes. Each case below is one such call: its SQL, schema and `sources` (views given as
SQL: upstream models here), and the edges the test's assertions name, one model at a time (a chain
`a ← z.a ← y.a ← x.a` is three edges: x.a → y.a, y.a → z.a, z.a → a). `columns` lists the output
columns the test asserts: only those are scored. Tests whose assertions do not name the input
columns (cycle checks, hooks, performance, copy flags, HTML) are left out; so are the three whose
answer is "cannot tell" by sqlglot's own choice of a name (listed in `left_out`).
"""
import json

F = "tests/test_lineage.py"
cases = []


def case(test, sql, expected, dialect="generic", schema=None, upstream=None, columns=None, constructs=(), form="model"):
    n = sum(1 for c in cases if c["origin"]["test"] == test) + 1
    cases.append(
        {
            "id": f"sqlglot:{test}#{n}",
            "origin": {"file": F, "test": test},
            "dialect": dialect,
            "form": form,
            "sql": sql,
            "schema": schema or {},
            "upstream": upstream or [],
            "expected": expected,
            "columns": columns,
            "constructs": list(constructs),
        }
    )


case("test_lineage", "SELECT a FROM z", [["x", "a", "y", "a"], ["y", "a", "z", "a"], ["z", "a", None, "a"]],
     schema={"x": ["a"]}, upstream=[{"name": "y", "sql": "SELECT * FROM x"}, {"name": "z", "sql": "SELECT a FROM y"}],
     columns=["a", "y.a", "z.a"], constructs=["star", "models"])
case("test_lineage_sql_with_cte", "WITH z AS (SELECT a FROM y) SELECT a FROM z", [["x", "a", "y", "a"], ["y", "a", None, "a"]],
     schema={"x": ["a"]}, upstream=[{"name": "y", "sql": "SELECT * FROM x"}], columns=["a", "y.a"], constructs=["cte", "star"])
case("test_lineage_source_with_cte", "SELECT a FROM z", [["x", "a", "z", "a"], ["z", "a", None, "a"]],
     schema={"x": ["a"]}, upstream=[{"name": "z", "sql": "WITH y AS (SELECT * FROM x) SELECT a FROM y"}], columns=["a", "z.a"], constructs=["cte", "star"])
case("test_lineage_source_with_star", "WITH y AS (SELECT * FROM x) SELECT a FROM y", [["x", "a", None, "a"]], columns=["a"], constructs=["cte", "star"])
case("test_lineage_join_with_star", "SELECT * from x JOIN y USING (uid)", [["x", "*", None, "*"], ["y", "*", None, "*"]], columns=["*"], constructs=["star", "join"])
case("test_lineage_join_with_qualified_star", "SELECT x.* from x JOIN y USING (uid)", [["x", "*", None, "*"]], columns=["*"], constructs=["star", "join"])
case("test_lineage_external_col", "WITH y AS (SELECT * FROM x) SELECT a FROM y JOIN z USING (uid)", [[None, "a", None, "a"]], columns=["a"], constructs=["cte", "star", "join"])
case("test_lineage_values", "SELECT a FROM y", [["y", "a", None, "a"]], upstream=[{"name": "y", "sql": "SELECT a FROM (VALUES (1), (2)) AS t (a)"}],
     columns=["a", "y.a"], constructs=["values"])
case("test_lineage_cte_name_appears_in_schema", "WITH t1 AS (SELECT * FROM a.b.t2), inter AS (SELECT * FROM t1) SELECT * FROM inter",
     [["a.b.t2", "c2", None, "c2"]], schema={"a.b.t1": ["c1"], "a.b.t2": ["c2"]}, columns=["c2"], constructs=["cte", "star", "case_names"])
case("test_lineage_union", "SELECT ax AS x FROM a UNION SELECT bx FROM b UNION SELECT cx FROM c",
     [["a", "ax", None, "x"], ["b", "bx", None, "x"], ["c", "cx", None, "x"]], columns=["x"], constructs=["set_operation"])
case("test_lineage_union", "SELECT x FROM (SELECT ax AS x FROM a UNION SELECT bx FROM b UNION SELECT cx FROM c)",
     [["a", "ax", None, "x"], ["b", "bx", None, "x"], ["c", "cx", None, "x"]], columns=["x"], constructs=["set_operation", "subquery"])
case("test_lineage_lateral_flatten", "SELECT FLATTENED.VALUE FROM TEST_TABLE, LATERAL FLATTEN(INPUT => RESULT, OUTER => TRUE) FLATTENED",
     [["test_table", "result", None, "value"]], dialect="snowflake", columns=["value"], constructs=["unnest"])
case("test_lineage_lateral_flatten",
     "SELECT FLATTENED.VALUE:field::text AS FIELD FROM SNOWFLAKE.SCHEMA.MODEL AS MODEL_ALIAS, LATERAL FLATTEN(INPUT => MODEL_ALIAS.A) AS FLATTENED",
     [["snowflake.schema.table", "a", "snowflake.schema.model", "a"], ["snowflake.schema.model", "a", None, "field"]], dialect="snowflake",
     schema={"snowflake.schema.table": ["a"]}, upstream=[{"name": "snowflake.schema.model", "sql": "SELECT A FROM SNOWFLAKE.SCHEMA.TABLE"}],
     columns=["field", "snowflake.schema.model.a"], constructs=["unnest", "struct_access"])
case("test_subquery", "SELECT (SELECT max(t3.my_column) my_column FROM foo t3) AS output FROM table3", [["foo", "my_column", None, "output"]],
     columns=["output"], constructs=["scalar_subquery"])
case("test_subquery", "SELECT SUM((SELECT max(a) a from x) + (SELECT min(b) b from x) + c) AS y FROM x",
     [["x", "a", None, "y"], ["x", "b", None, "y"], ["x", "c", None, "y"]], columns=["y"], constructs=["scalar_subquery"])
case("test_subquery", "WITH cte AS (SELECT a, b FROM z) SELECT sum(SELECT a FROM cte) AS x, (SELECT b FROM cte) as y FROM cte",
     [["z", "a", None, "x"]], columns=["x"], constructs=["scalar_subquery", "cte"])
case("test_subquery", """
            WITH foo AS (
              SELECT
                1 AS a
            ), bar AS (
              (
                SELECT
                  a + 1 AS a
                FROM foo
              )
            )
            (
              SELECT
                a + b AS a
              FROM bar
              CROSS JOIN (
                SELECT
                  2 AS b
              ) AS baz
            )
            """, [], columns=["a"], constructs=["cte", "subquery"])
case("test_subquery", "SELECT a FROM (SELECT a FROM x) subquery", [["x", "a", None, "a"]], columns=["a"], constructs=["subquery"])
case("test_subquery", "SELECT a FROM (SELECT a FROM x)", [["x", "a", None, "a"]], columns=["a"], constructs=["subquery"])
case("test_select_star", "SELECT x from (SELECT * from table_a)", [["table_a", "x", None, "x"]], columns=["x"], constructs=["star", "subquery"])
case("test_unnest", "with _data as (select [struct(1 as a, 2 as b)] as col) select b from _data cross join unnest(col)", [], columns=["b"],
     constructs=["unnest", "struct_access"])
case("test_ddl_lineage", """
        INSERT /*+ HINT1 */
        INTO target (x, y)
        SELECT subq.x, subq.y
        FROM (
          SELECT /*+ HINT2 */
            t.x AS x,
            TO_DATE('2023-12-19', 'YYYY-MM-DD') AS y
          FROM s.t t
          WHERE 1 = 1 AND y = TO_DATE('2023-12-19', 'YYYY-MM-DD')
        ) subq
        """, [], dialect="oracle", columns=["target.y"], constructs=["insert_select"], form="script")
case("test_trim", "SELECT a, b, c FROM (select a, b, c from y) z", [["y", "a", None, "a"]], columns=["a"], constructs=["subquery"])
case("test_node_name_doesnt_contain_comment", "SELECT * FROM (SELECT x /* c */ FROM t1) AS t2", [["t1", "x", None, "x"]], columns=["x"], constructs=["star", "subquery"])
case("test_pivot_without_alias", """
        SELECT
            a as other_a
        FROM (select value,category from sample_data)
        PIVOT (
            sum(value)
            FOR category IN ('a', 'b')
        );
        """, [["sample_data", "value", None, "other_a"]], columns=["other_a"], constructs=["pivot"])
case("test_pivot_with_alias", """
            SELECT
                cat_a_s as other_as
            FROM sample_data
            PIVOT (
                sum(value) as s, max(price)
                FOR category IN ('a' as cat_a, 'b')
            )
        """, [["sample_data", "value", None, "other_as"]], columns=["other_as"], constructs=["pivot"])
case("test_pivot_with_cte", """
        WITH t as (
            SELECT
                a as other_a
            FROM sample_data
            PIVOT (
                sum(value)
                FOR category IN ('a', 'b')
            )
        )
        select other_a from t
        """, [["sample_data", "value", None, "other_a"]], columns=["other_a"], constructs=["pivot", "cte"])
case("test_pivot_with_implicit_column_of_pivoted_source", """
        SELECT empid
        FROM quarterly_sales
            PIVOT(SUM(amount) FOR quarter IN (
            '2023_Q1',
            '2023_Q2',
            '2023_Q3'))
        ORDER BY empid;
        """, [["quarterly_sales", "empid", None, "empid"]], columns=["empid"], constructs=["pivot"])
case("test_pivot_with_implicit_column_of_pivoted_source_and_cte", """
        WITH t as (
            SELECT empid
            FROM quarterly_sales
            PIVOT(SUM(amount) FOR quarter IN (
                '2023_Q1',
                '2023_Q2',
                '2023_Q3'))
        )
        select empid from t
        """, [["quarterly_sales", "empid", None, "empid"]], columns=["empid"], constructs=["pivot", "cte"])
SALES = {"sales": ["id", "jan", "feb"]}
UNPIVOT = """
        SELECT id, metric_name, score
        FROM sales UNPIVOT (score FOR metric_name IN (jan, feb))
        """
case("test_unpivot", UNPIVOT, [["sales", "jan", None, "score"], ["sales", "feb", None, "score"], ["sales", "jan", None, "metric_name"],
                               ["sales", "feb", None, "metric_name"], ["sales", "id", None, "id"]], dialect="snowflake", schema=SALES,
     columns=["score", "metric_name", "id"], constructs=["unpivot"])
case("test_unpivot_with_cte", """
        WITH src AS (
          SELECT id, jan, feb FROM sales
        )
        SELECT id, metric_name, score
        FROM src UNPIVOT (score FOR metric_name IN (jan, feb))
        """, [["sales", "jan", None, "score"], ["sales", "feb", None, "score"], ["sales", "id", None, "id"]], dialect="snowflake", schema=SALES,
     columns=["score", "id"], constructs=["unpivot", "cte"])
case("test_unpivot_multi_column", """
        SELECT product, semesters, first_half_sales, second_half_sales
        FROM produce
        UNPIVOT((first_half_sales, second_half_sales) FOR semesters IN ((q1, q2) AS 'semester_1', (q3, q4) AS 'semester_2'))
        """, [["produce", "q1", None, "first_half_sales"], ["produce", "q3", None, "first_half_sales"],
              ["produce", "q2", None, "second_half_sales"], ["produce", "q4", None, "second_half_sales"],
              ["produce", "q1", None, "semesters"], ["produce", "q2", None, "semesters"], ["produce", "q3", None, "semesters"],
              ["produce", "q4", None, "semesters"], ["produce", "product", None, "product"]], dialect="bigquery",
     schema={"produce": ["product", "q1", "q2", "q3", "q4"]}, columns=["first_half_sales", "second_half_sales", "semesters", "product"],
     constructs=["unpivot"])
MONTHLY = {"monthly_sales": ["empid", "dept", "jan", "feb"]}
for sql in ("""
        WITH src AS (
          SELECT empid, dept, jan, feb FROM monthly_sales
        )
        SELECT m, s, e FROM src UNPIVOT(sales FOR month IN (jan, feb)) AS t(e, d, m, s)
        """, "SELECT m, s, e FROM monthly_sales UNPIVOT(sales FOR month IN (jan, feb)) AS t(e, d, m, s)"):
    case("test_unpivot_with_alias_columns", sql, [["monthly_sales", c, None, o] for o in ("s", "m") for c in ("jan", "feb")] + [["monthly_sales", "empid", None, "e"]],
         dialect="snowflake", schema=MONTHLY, columns=["s", "m", "e"], constructs=["unpivot", "alias_columns"])
SALES5 = {"sales": ["id", "jan", "feb", "north", "south"]}
case("test_chained_pivots", """
        SELECT id, score, headcount
        FROM sales UNPIVOT(score FOR month IN (jan, feb)) UNPIVOT(headcount FOR region IN (north, south))
        """, [["sales", "jan", None, "score"], ["sales", "feb", None, "score"], ["sales", "north", None, "headcount"],
              ["sales", "south", None, "headcount"], ["sales", "id", None, "id"]], dialect="snowflake", schema=SALES5,
     columns=["score", "headcount", "id"], constructs=["unpivot"])
case("test_chained_pivots_through_cte", """
        WITH src AS (SELECT id, jan, feb, north, south FROM sales)
        SELECT score FROM src
        UNPIVOT(score FOR month IN (jan, feb)) UNPIVOT(headcount FOR region IN (north, south))
        """, [["sales", "jan", None, "score"], ["sales", "feb", None, "score"]], dialect="snowflake", schema=SALES5, columns=["score"],
     constructs=["unpivot", "cte"])
case("test_chained_pivots_mixed", """
        SELECT id, c, v FROM t
        PIVOT(SUM(val) FOR cat IN ('a' AS a, 'b' AS b)) UNPIVOT(v FOR c IN (a, b))
        """, [["t", "val", None, "v"], ["t", "id", None, "id"]], dialect="snowflake", schema={"t": ["id", "cat", "val"]}, columns=["v", "id"],
     constructs=["pivot", "unpivot"])
case("test_chained_pivots_with_alias_columns", """
        SELECT a, b, c, d, e, f FROM m
        UNPIVOT(sales FOR mon IN (jan, feb)) UNPIVOT(hc FOR reg IN (n, s)) AS t(a, b, c, d, e, f)
        """, [["m", "empid", None, "a"], ["m", "dept", None, "b"], ["m", "jan", None, "c"], ["m", "feb", None, "c"], ["m", "jan", None, "d"],
              ["m", "feb", None, "d"], ["m", "n", None, "e"], ["m", "s", None, "e"], ["m", "n", None, "f"], ["m", "s", None, "f"]],
     dialect="snowflake", schema={"m": ["empid", "dept", "jan", "feb", "n", "s"]}, columns=["a", "b", "c", "d", "e", "f"],
     constructs=["unpivot", "alias_columns"])
case("test_chained_pivots_consuming_alias_columns", """
        SELECT hc, region FROM sales
        UNPIVOT(score FOR month IN (jan, feb)) AS u1(a, b, c, d)
        UNPIVOT(hc FOR region IN (b, c))
        """, [["sales", c, None, o] for o in ("hc", "region") for c in ("north", "south")], dialect="duckdb", schema=SALES5,
     columns=["hc", "region"], constructs=["unpivot", "alias_columns"])
case("test_chained_pivots_consuming_alias_columns", """
        SELECT hi, lo FROM sales
        UNPIVOT(score FOR month IN (jan, feb)) AS u1(a, b, c, d)
        UNPIVOT((hi, lo) FOR region IN ((b, c)))
        """, [["sales", "north", None, "hi"], ["sales", "south", None, "lo"]], dialect="duckdb", schema=SALES5, columns=["hi", "lo"],
     constructs=["unpivot", "alias_columns"])
case("test_pivot_with_alias_columns", """
        SELECT x FROM (SELECT value, category FROM sample_data) AS sd
        PIVOT (SUM(value) FOR category IN ('a', 'b')) AS p(x, y)
        """, [["sample_data", "value", None, "x"]], columns=["x"], constructs=["pivot", "alias_columns"])
for sql in ("""
        SELECT f.value:external_id::string AS external_id
        FROM database_name.schema_name.table_name AS raw,
        LATERAL FLATTEN(events) AS f
        """, """
        SELECT f.value:external_id::string AS external_id
        FROM database_name.schema_name.table_name AS raw
        JOIN TABLE(FLATTEN(events)) AS f
        """):
    case("test_table_udtf_snowflake", sql, [["database_name.schema_name.table_name", "events", None, "external_id"]], dialect="snowflake",
         columns=["external_id"], constructs=["unnest", "struct_access", "table_function"])
case("test_pivot_with_subquery", """
        WITH cte AS (
            SELECT * FROM (
                SELECT product_type, month, loan_id
                FROM loan_ledger
            ) PIVOT (
                COUNT(loan_id) FOR month IN ('2024-10', '2024-11')
            )
        )
        SELECT
            cte.product_type AS product_type,
            cte."2024-10" AS "2024-10"
        FROM cte
        """, [["loan_ledger", "product_type", None, "product_type"], ["loan_ledger", "loan_id", None, "2024-10"]], dialect="duckdb",
     schema={"loan_ledger": ["product_type", "month", "loan_id"]}, columns=["product_type", "2024-10"], constructs=["pivot", "cte", "star"])

left_out = {
    "test_lineage_cte_union": "asserts only the branches' SELECT texts; no input column is named",
    "test_lineage_source_union": "the same, through `sources`",
    "test_unpivot_with_alias_columns (third query)": "without a schema sqlglot names the input SRC.D by its own choice",
    "test_multiple_pivoted_sources": "sqlglot stops at the pivot's own output (S2.HC) by its own choice",
    "test_lineage_normalize": "asserts the output's name and errors, no input column",
}
json.dump({"left_out": left_out, "cases": cases}, __import__("sys").stdout, indent=1)
