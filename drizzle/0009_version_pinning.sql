ALTER TABLE "script" ADD COLUMN "pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "script" ADD COLUMN "lock" jsonb;