-- Column edges by id (issue 18; bench/README.md "storage-designs"): every graph's rows carry its
-- marker's id instead of the 4-part key, and name their ends by integer ids from a per-graph
-- column dictionary. The existing edges move: each graph's dictionary is built from its edges'
-- ends, then the edges are rewritten in ids. Every stored graph has its marker (replaceGraph
-- writes it first, in the same transaction), so the joins on the marker keep every edge.
CREATE TABLE "dbt_graph_column" (
	"graph_id" bigint NOT NULL,
	"column_id" integer NOT NULL,
	"unique_id" text NOT NULL,
	"column_name" text NOT NULL,
	CONSTRAINT "dbt_graph_column_pk" PRIMARY KEY("graph_id","column_id")
);
--> statement-breakpoint
ALTER TABLE "dbt_column_edge" RENAME TO "dbt_column_edge_by_text";
--> statement-breakpoint
CREATE TABLE "dbt_column_edge" (
	"graph_id" bigint NOT NULL,
	"parent_col" integer NOT NULL,
	"child_col" integer NOT NULL,
	"lineage_kind" text NOT NULL,
	"provenance" text DEFAULT 'engine' NOT NULL,
	"component" integer
);
--> statement-breakpoint
INSERT INTO "dbt_graph_column" ("graph_id", "column_id", "unique_id", "column_name")
SELECT ends.graph_id, (row_number() OVER (PARTITION BY ends.graph_id ORDER BY ends.u COLLATE "C", ends.c COLLATE "C") - 1)::int, ends.u, ends.c
  FROM (
        SELECT DISTINCT g.id AS graph_id, col.u, col.c
          FROM "dbt_column_edge_by_text" e
          JOIN "dbt_graph_snapshot" g
            ON g.workspace = e.workspace AND g.job_id = e.job_id
           AND ((g.script_hash IS NULL AND e.script_hash IS NULL)
                OR (g.script_path = e.script_path AND g.script_hash = e.script_hash))
         CROSS JOIN LATERAL (VALUES (e.parent_unique_id, e.parent_column), (e.child_unique_id, e.child_column)) AS col(u, c)
       ) ends;
--> statement-breakpoint
INSERT INTO "dbt_column_edge" ("graph_id", "parent_col", "child_col", "lineage_kind", "provenance", "component")
SELECT g.id, p.column_id, ch.column_id, e.lineage_kind, e.provenance, e.component
  FROM "dbt_column_edge_by_text" e
  JOIN "dbt_graph_snapshot" g
    ON g.workspace = e.workspace AND g.job_id = e.job_id
   AND ((g.script_hash IS NULL AND e.script_hash IS NULL)
        OR (g.script_path = e.script_path AND g.script_hash = e.script_hash))
  JOIN "dbt_graph_column" p ON p.graph_id = g.id AND p.unique_id = e.parent_unique_id AND p.column_name = e.parent_column
  JOIN "dbt_graph_column" ch ON ch.graph_id = g.id AND ch.unique_id = e.child_unique_id AND ch.column_name = e.child_column;
--> statement-breakpoint
DROP TABLE "dbt_column_edge_by_text";
--> statement-breakpoint
CREATE UNIQUE INDEX "dbt_graph_column_name_uq" ON "dbt_graph_column" USING btree ("graph_id","unique_id","column_name");--> statement-breakpoint
CREATE UNIQUE INDEX "dbt_column_edge_uq" ON "dbt_column_edge" USING btree ("graph_id","parent_col","child_col","lineage_kind");--> statement-breakpoint
CREATE INDEX "dbt_column_edge_component_idx" ON "dbt_column_edge" USING btree ("graph_id","component") WHERE component IS NOT NULL;--> statement-breakpoint
CREATE INDEX "dbt_column_edge_child_idx" ON "dbt_column_edge" USING btree ("graph_id","child_col");--> statement-breakpoint
-- A graph's rows go with its marker (deleted, swept, or cascaded from its script version): one
-- statement per delete instead of a foreign-key check per stored row.
CREATE FUNCTION "dbt_graph_rows_cascade"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM "dbt_column_edge" WHERE "graph_id" IN (SELECT "id" FROM gone);
	DELETE FROM "dbt_graph_column" WHERE "graph_id" IN (SELECT "id" FROM gone);
	RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "dbt_graph_rows_cascade" AFTER DELETE ON "dbt_graph_snapshot"
	REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION "dbt_graph_rows_cascade"();
