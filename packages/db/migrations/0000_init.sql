CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text,
	"balance_micros" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "balance_not_negative" CHECK ("accounts"."balance_micros" >= 0)
);
--> statement-breakpoint
CREATE TABLE "allowance_counters" (
	"client" text NOT NULL,
	"bucket" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "allowance_counters_client_bucket_pk" PRIMARY KEY("client","bucket")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"label" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "cache_entries" (
	"key" text PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"format" text NOT NULL,
	"body" jsonb NOT NULL,
	"title" text,
	"bytes" integer NOT NULL,
	"rendered_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "holds" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"route" text NOT NULL,
	"request_id" text,
	"amount_micros" bigint NOT NULL,
	"captured_micros" bigint DEFAULT 0 NOT NULL,
	"refunded_micros" bigint DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "hold_within_amount" CHECK ("holds"."captured_micros" + "holds"."refunded_micros" <= "holds"."amount_micros")
);
--> statement-breakpoint
CREATE TABLE "ledger_entries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text,
	"kind" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"held_micros" bigint DEFAULT 0 NOT NULL,
	"balance_after_micros" bigint,
	"hold_id" text,
	"route" text,
	"request_id" text,
	"payer" text,
	"network" text,
	"reference" text,
	"note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text,
	"payer" text,
	"client" text,
	"worker_id" text,
	"url" text,
	"status" text NOT NULL,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_active_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"close_reason" text,
	"billed_minutes" integer DEFAULT 1 NOT NULL,
	"charged_micros" bigint DEFAULT 0 NOT NULL,
	"actions" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "usage" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text,
	"payer" text,
	"client" text,
	"route" text NOT NULL,
	"status" integer NOT NULL,
	"price_micros" bigint DEFAULT 0 NOT NULL,
	"request_id" text,
	"ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "wallet_payments" (
	"id" text PRIMARY KEY NOT NULL,
	"network" text NOT NULL,
	"asset" text NOT NULL,
	"nonce" text NOT NULL,
	"payer" text NOT NULL,
	"amount_micros" bigint NOT NULL,
	"route" text NOT NULL,
	"request_id" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"transaction" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "holds" ADD CONSTRAINT "holds_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "usage" ADD CONSTRAINT "usage_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash" ON "api_keys" USING btree ("hash");--> statement-breakpoint
CREATE INDEX "api_keys_account" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "cache_expires" ON "cache_entries" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "holds_open" ON "holds" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "ledger_account_time" ON "ledger_entries" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "sessions_account_time" ON "sessions" USING btree ("account_id","opened_at");--> statement-breakpoint
CREATE INDEX "usage_account_time" ON "usage" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "wallet_payments_nonce" ON "wallet_payments" USING btree ("network","asset","nonce");