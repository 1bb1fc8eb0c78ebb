DROP INDEX "sessions_account_time";--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "sessions_open_expiry" ON "sessions" USING btree ("expires_at") WHERE status = 'open';--> statement-breakpoint
CREATE INDEX "sessions_account_time" ON "sessions" USING btree ("account_id","opened_at","id");