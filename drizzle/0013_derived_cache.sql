CREATE TABLE "derived_cache" (
	"key" text PRIMARY KEY NOT NULL,
	"workspace" text NOT NULL,
	"body" "bytea" NOT NULL,
	"bytes" integer NOT NULL,
	"used_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "derived_cache" ADD CONSTRAINT "derived_cache_workspace_workspace_id_fk" FOREIGN KEY ("workspace") REFERENCES "public"."workspace"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "derived_cache_used_idx" ON "derived_cache" USING btree ("used_at");