CREATE TABLE "openlineage_dataset" (
	"workspace" text NOT NULL,
	"asset_path" text NOT NULL,
	"namespace" text NOT NULL,
	"name" text NOT NULL,
	"fields" jsonb,
	"fields_event_time" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "openlineage_dataset_workspace_asset_path_pk" PRIMARY KEY("workspace","asset_path")
);
--> statement-breakpoint
CREATE TABLE "openlineage_event" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "openlineage_event_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"workspace" text NOT NULL,
	"event_key" text NOT NULL,
	"event_type" text,
	"run_id" uuid,
	"job_namespace" text,
	"job_name" text,
	"event_time" timestamp with time zone NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_by" text NOT NULL,
	"body" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "openlineage_job" (
	"workspace" text NOT NULL,
	"namespace" text NOT NULL,
	"name" text NOT NULL,
	"script_path" text NOT NULL,
	"lineage_event_time" timestamp with time zone,
	"lineage_from_complete" boolean DEFAULT false NOT NULL,
	"lineage_digest" text,
	"facets" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"facets_event_time" timestamp with time zone,
	"warnings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "openlineage_job_workspace_namespace_name_pk" PRIMARY KEY("workspace","namespace","name")
);
--> statement-breakpoint
CREATE TABLE "openlineage_namespace" (
	"workspace" text NOT NULL,
	"namespace" text NOT NULL,
	"folder" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "openlineage_namespace_workspace_namespace_pk" PRIMARY KEY("workspace","namespace")
);
--> statement-breakpoint
ALTER TABLE "openlineage_dataset" ADD CONSTRAINT "openlineage_dataset_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "openlineage_job" ADD CONSTRAINT "openlineage_job_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "openlineage_namespace" ADD CONSTRAINT "openlineage_namespace_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "openlineage_event_key_uq" ON "openlineage_event" USING btree ("workspace","event_key");--> statement-breakpoint
CREATE INDEX "openlineage_event_run_idx" ON "openlineage_event" USING btree ("workspace","run_id");--> statement-breakpoint
CREATE INDEX "openlineage_event_received_idx" ON "openlineage_event" USING btree ("workspace","received_at");--> statement-breakpoint
CREATE UNIQUE INDEX "openlineage_job_path_uq" ON "openlineage_job" USING btree ("workspace","script_path");