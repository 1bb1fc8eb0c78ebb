ALTER TABLE "allowance_counters" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "allowance_counters_expiry" ON "allowance_counters" USING btree ("expires_at");--> statement-breakpoint
-- Day counters written before this column expire at the end of the UTC day their name ends with.
UPDATE "allowance_counters" SET "expires_at" = (substring("bucket" from '(\d{4}-\d{2}-\d{2})$')::date + 1)::timestamp AT TIME ZONE 'UTC' WHERE "bucket" ~ ':\d{4}-\d{2}-\d{2}$';
