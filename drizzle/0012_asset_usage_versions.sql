CREATE TABLE "asset_usage_current" (
	"workspace" text NOT NULL,
	"script_path" text NOT NULL,
	"script_hash" bigint NOT NULL,
	CONSTRAINT "asset_usage_current_workspace_script_path_pk" PRIMARY KEY("workspace","script_path")
);
--> statement-breakpoint
ALTER TABLE "asset_usage" ADD COLUMN "script_hash" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "asset_usage" DROP CONSTRAINT "asset_usage_workspace_script_path_asset_kind_asset_path_pk";--> statement-breakpoint
ALTER TABLE "asset_usage" ADD CONSTRAINT "asset_usage_workspace_script_path_script_hash_asset_kind_asset_path_pk" PRIMARY KEY("workspace","script_path","script_hash","asset_kind","asset_path");--> statement-breakpoint
INSERT INTO "asset_usage_current" ("workspace", "script_path", "script_hash") SELECT DISTINCT "workspace", "script_path", 0 FROM "asset_usage";
