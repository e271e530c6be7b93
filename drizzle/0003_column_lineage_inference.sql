CREATE TABLE "infer_cache" (
	"workspace" text NOT NULL,
	"cache_key" text NOT NULL,
	"data" jsonb NOT NULL,
	"used_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "infer_cache_workspace_cache_key_pk" PRIMARY KEY("workspace","cache_key")
);
--> statement-breakpoint
CREATE TABLE "lineage_plan" (
	"job_id" uuid PRIMARY KEY NOT NULL,
	"workspace" text NOT NULL,
	"data" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "dbt_column_edge" ADD COLUMN "provenance" text DEFAULT 'engine' NOT NULL;--> statement-breakpoint
ALTER TABLE "dbt_graph_snapshot" ADD COLUMN "lineage_job_id" uuid;--> statement-breakpoint
ALTER TABLE "dbt_node" ADD COLUMN "column_lineage" jsonb;--> statement-breakpoint
ALTER TABLE "infer_cache" ADD CONSTRAINT "infer_cache_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lineage_plan" ADD CONSTRAINT "lineage_plan_job_id_job_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."job"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "infer_cache_used_idx" ON "infer_cache" USING btree ("workspace","used_at");--> statement-breakpoint
CREATE INDEX "lineage_plan_ws_idx" ON "lineage_plan" USING btree ("workspace");