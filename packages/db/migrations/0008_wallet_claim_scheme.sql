ALTER TABLE "wallet_payments" ADD COLUMN "scheme" text;--> statement-breakpoint
ALTER TABLE "wallet_payments" ADD COLUMN "valid_before" timestamp with time zone;