ALTER TABLE "ledger_entries" ADD COLUMN "charge_id" text;--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_charge_id" ON "ledger_entries" USING btree ("charge_id") WHERE charge_id is not null;