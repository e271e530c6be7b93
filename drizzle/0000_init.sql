CREATE TABLE "account" (
	"id" text PRIMARY KEY NOT NULL,
	"username" text NOT NULL,
	"password_hash" text,
	"instance_admin" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_username_unique" UNIQUE("username")
);
--> statement-breakpoint
CREATE TABLE "api_token" (
	"id" text PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"workspace" text NOT NULL,
	"owner" text NOT NULL,
	"label" text NOT NULL,
	"scopes" text[] DEFAULT '{}'::text[] NOT NULL,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "api_token_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "asset_usage" (
	"workspace" text NOT NULL,
	"asset_kind" text NOT NULL,
	"asset_path" text NOT NULL,
	"access" text NOT NULL,
	"script_path" text NOT NULL,
	CONSTRAINT "asset_usage_workspace_script_path_asset_kind_asset_path_pk" PRIMARY KEY("workspace","script_path","asset_kind","asset_path")
);
--> statement-breakpoint
CREATE TABLE "dbt_column_edge" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "dbt_column_edge_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"workspace" text NOT NULL,
	"script_path" text NOT NULL,
	"script_hash" bigint,
	"job_id" uuid NOT NULL,
	"parent_unique_id" text NOT NULL,
	"parent_column" text NOT NULL,
	"child_unique_id" text NOT NULL,
	"child_column" text NOT NULL,
	"lineage_kind" text NOT NULL,
	"component" integer
);
--> statement-breakpoint
CREATE TABLE "dbt_edge" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "dbt_edge_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"workspace" text NOT NULL,
	"script_path" text NOT NULL,
	"script_hash" bigint,
	"job_id" uuid NOT NULL,
	"parent_unique_id" text NOT NULL,
	"child_unique_id" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dbt_graph_snapshot" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "dbt_graph_snapshot_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"workspace" text NOT NULL,
	"script_path" text NOT NULL,
	"script_hash" bigint,
	"job_id" uuid NOT NULL,
	"digest" text NOT NULL,
	"relation_root_at_last_ingest" text,
	"permissioned_as" text NOT NULL,
	"stats" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dbt_node" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "dbt_node_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"workspace" text NOT NULL,
	"script_path" text NOT NULL,
	"script_hash" bigint,
	"job_id" uuid NOT NULL,
	"unique_id" text NOT NULL,
	"resource_type" text NOT NULL,
	"name" text NOT NULL,
	"asset_path" text,
	"materialized" text,
	"materialize_strategy" text,
	"unique_key" text,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"description" text,
	"test_kind" text,
	"test_column" text,
	"test_args" jsonb,
	"severity" text,
	"attached_node" text,
	"columns" jsonb,
	"column_schema" jsonb,
	"freshness" jsonb,
	"raw_code" text,
	"original_file_path" text,
	"ingested_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dbt_run_progress" (
	"workspace" text NOT NULL,
	"job_id" uuid NOT NULL,
	"asset_kind" text NOT NULL,
	"asset_path" text NOT NULL,
	"status" text NOT NULL,
	"row_count" bigint,
	"error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dbt_run_progress_workspace_job_id_asset_kind_asset_path_pk" PRIMARY KEY("workspace","job_id","asset_kind","asset_path")
);
--> statement-breakpoint
CREATE TABLE "folder" (
	"workspace" text NOT NULL,
	"name" text NOT NULL,
	"readers" text[] DEFAULT '{}'::text[] NOT NULL,
	"writers" text[] DEFAULT '{}'::text[] NOT NULL,
	CONSTRAINT "folder_workspace_name_pk" PRIMARY KEY("workspace","name")
);
--> statement-breakpoint
CREATE TABLE "group" (
	"workspace" text NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "group_workspace_name_pk" PRIMARY KEY("workspace","name")
);
--> statement-breakpoint
CREATE TABLE "group_member" (
	"workspace" text NOT NULL,
	"group_name" text NOT NULL,
	"username" text NOT NULL,
	CONSTRAINT "group_member_workspace_group_name_username_pk" PRIMARY KEY("workspace","group_name","username")
);
--> statement-breakpoint
CREATE TABLE "instance_setting" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job" (
	"id" uuid PRIMARY KEY NOT NULL,
	"workspace" text NOT NULL,
	"kind" text NOT NULL,
	"script_path" text,
	"script_hash" bigint,
	"created_by" text NOT NULL,
	"permissioned_as" text NOT NULL,
	"parent_job" uuid,
	"status" text DEFAULT 'queued' NOT NULL,
	"args" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"result" jsonb,
	"logs" text DEFAULT '' NOT NULL,
	"timeout_s" integer,
	"worker_id" text,
	"heartbeat_at" timestamp with time zone,
	"cancel_requested" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "member" (
	"workspace" text NOT NULL,
	"username" text NOT NULL,
	"account_id" text NOT NULL,
	"is_admin" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_workspace_username_pk" PRIMARY KEY("workspace","username")
);
--> statement-breakpoint
CREATE TABLE "producer_column_lineage" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "producer_column_lineage_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"workspace" text NOT NULL,
	"script_path" text NOT NULL,
	"script_hash" bigint NOT NULL,
	"output_asset_kind" text NOT NULL,
	"output_asset_path" text NOT NULL,
	"output_column" text NOT NULL,
	"input_asset_kind" text NOT NULL,
	"input_asset_path" text NOT NULL,
	"input_column" text NOT NULL,
	"source" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "script" (
	"workspace" text NOT NULL,
	"hash" bigint NOT NULL,
	"path" text NOT NULL,
	"language" text NOT NULL,
	"content" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	CONSTRAINT "script_workspace_hash_pk" PRIMARY KEY("workspace","hash")
);
--> statement-breakpoint
CREATE TABLE "script_archive" (
	"workspace" text NOT NULL,
	"hash" bigint NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "script_archive_workspace_hash_pk" PRIMARY KEY("workspace","hash")
);
--> statement-breakpoint
CREATE TABLE "session" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "warehouse" (
	"workspace" text NOT NULL,
	"name" text NOT NULL,
	"default_database" text,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"secrets" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "warehouse_workspace_name_pk" PRIMARY KEY("workspace","name")
);
--> statement-breakpoint
CREATE TABLE "workspace" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_token" ADD CONSTRAINT "api_token_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dbt_column_edge" ADD CONSTRAINT "dbt_column_edge_workspace_script_hash_script_workspace_hash_fk" FOREIGN KEY ("workspace","script_hash") REFERENCES "public"."script"("workspace","hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dbt_edge" ADD CONSTRAINT "dbt_edge_workspace_script_hash_script_workspace_hash_fk" FOREIGN KEY ("workspace","script_hash") REFERENCES "public"."script"("workspace","hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dbt_graph_snapshot" ADD CONSTRAINT "dbt_graph_snapshot_workspace_script_hash_script_workspace_hash_fk" FOREIGN KEY ("workspace","script_hash") REFERENCES "public"."script"("workspace","hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dbt_node" ADD CONSTRAINT "dbt_node_workspace_script_hash_script_workspace_hash_fk" FOREIGN KEY ("workspace","script_hash") REFERENCES "public"."script"("workspace","hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "folder" ADD CONSTRAINT "folder_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group" ADD CONSTRAINT "group_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "group_member" ADD CONSTRAINT "group_member_workspace_group_name_group_workspace_name_fk" FOREIGN KEY ("workspace","group_name") REFERENCES "public"."group"("workspace","name") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job" ADD CONSTRAINT "job_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member" ADD CONSTRAINT "member_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member" ADD CONSTRAINT "member_account_id_account_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."account"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "producer_column_lineage" ADD CONSTRAINT "producer_column_lineage_workspace_script_hash_script_workspace_hash_fk" FOREIGN KEY ("workspace","script_hash") REFERENCES "public"."script"("workspace","hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "script" ADD CONSTRAINT "script_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "script_archive" ADD CONSTRAINT "script_archive_workspace_hash_script_workspace_hash_fk" FOREIGN KEY ("workspace","hash") REFERENCES "public"."script"("workspace","hash") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "session" ADD CONSTRAINT "session_account_id_account_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."account"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "warehouse" ADD CONSTRAINT "warehouse_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_token_owner_idx" ON "api_token" USING btree ("workspace","owner");--> statement-breakpoint
CREATE INDEX "asset_usage_asset_idx" ON "asset_usage" USING btree ("workspace","asset_kind","asset_path");--> statement-breakpoint
CREATE UNIQUE INDEX "dbt_column_edge_version_uq" ON "dbt_column_edge" USING btree ("workspace","script_path","script_hash","job_id","parent_unique_id","parent_column","child_unique_id","child_column","lineage_kind") WHERE script_hash IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "dbt_column_edge_preview_uq" ON "dbt_column_edge" USING btree ("workspace","job_id","parent_unique_id","parent_column","child_unique_id","child_column","lineage_kind") WHERE script_hash IS NULL;--> statement-breakpoint
CREATE INDEX "dbt_column_edge_component_idx" ON "dbt_column_edge" USING btree ("workspace","job_id","script_hash","component");--> statement-breakpoint
CREATE INDEX "dbt_column_edge_child_idx" ON "dbt_column_edge" USING btree ("workspace","job_id","script_hash","child_unique_id");--> statement-breakpoint
CREATE INDEX "dbt_column_edge_parent_idx" ON "dbt_column_edge" USING btree ("workspace","job_id","script_hash","parent_unique_id");--> statement-breakpoint
CREATE UNIQUE INDEX "dbt_edge_version_uq" ON "dbt_edge" USING btree ("workspace","script_path","script_hash","job_id","parent_unique_id","child_unique_id") WHERE script_hash IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "dbt_edge_preview_uq" ON "dbt_edge" USING btree ("workspace","job_id","parent_unique_id","child_unique_id") WHERE script_hash IS NULL;--> statement-breakpoint
CREATE INDEX "dbt_edge_job_idx" ON "dbt_edge" USING btree ("job_id");--> statement-breakpoint
CREATE UNIQUE INDEX "dbt_graph_snapshot_version_uq" ON "dbt_graph_snapshot" USING btree ("workspace","script_path","script_hash","job_id") WHERE script_hash IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "dbt_graph_snapshot_preview_uq" ON "dbt_graph_snapshot" USING btree ("workspace","job_id") WHERE script_hash IS NULL;--> statement-breakpoint
CREATE INDEX "dbt_graph_snapshot_path_idx" ON "dbt_graph_snapshot" USING btree ("workspace","script_path","ingested_at");--> statement-breakpoint
CREATE INDEX "dbt_graph_snapshot_job_idx" ON "dbt_graph_snapshot" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "dbt_graph_snapshot_ingested_idx" ON "dbt_graph_snapshot" USING btree ("ingested_at");--> statement-breakpoint
CREATE UNIQUE INDEX "dbt_node_version_uq" ON "dbt_node" USING btree ("workspace","script_path","script_hash","job_id","unique_id") WHERE script_hash IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "dbt_node_preview_uq" ON "dbt_node" USING btree ("workspace","job_id","unique_id") WHERE script_hash IS NULL;--> statement-breakpoint
CREATE INDEX "dbt_node_asset_idx" ON "dbt_node" USING btree ("workspace","asset_path");--> statement-breakpoint
CREATE INDEX "dbt_node_job_idx" ON "dbt_node" USING btree ("job_id");--> statement-breakpoint
CREATE INDEX "dbt_node_ingested_idx" ON "dbt_node" USING btree ("ingested_at");--> statement-breakpoint
CREATE INDEX "dbt_run_progress_updated_idx" ON "dbt_run_progress" USING btree ("updated_at");--> statement-breakpoint
CREATE INDEX "group_member_user_idx" ON "group_member" USING btree ("workspace","username");--> statement-breakpoint
CREATE INDEX "job_ws_created_idx" ON "job" USING btree ("workspace","created_at");--> statement-breakpoint
CREATE INDEX "job_ws_path_idx" ON "job" USING btree ("workspace","script_path","created_at");--> statement-breakpoint
CREATE INDEX "job_queue_idx" ON "job" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "job_parent_idx" ON "job" USING btree ("parent_job");--> statement-breakpoint
CREATE INDEX "member_account_idx" ON "member" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "producer_column_lineage_version_idx" ON "producer_column_lineage" USING btree ("workspace","script_hash");--> statement-breakpoint
CREATE INDEX "producer_column_lineage_input_idx" ON "producer_column_lineage" USING btree ("workspace","input_asset_kind","input_asset_path");--> statement-breakpoint
CREATE INDEX "producer_column_lineage_output_idx" ON "producer_column_lineage" USING btree ("workspace","output_asset_kind","output_asset_path");--> statement-breakpoint
CREATE INDEX "script_path_idx" ON "script" USING btree ("workspace","path","created_at");--> statement-breakpoint
CREATE INDEX "session_account_idx" ON "session" USING btree ("account_id");