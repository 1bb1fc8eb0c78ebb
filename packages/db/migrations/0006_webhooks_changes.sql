CREATE TABLE "page_snapshots" (
	"account_id" text NOT NULL,
	"url" text NOT NULL,
	"markdown" text,
	"json" jsonb,
	"status_code" integer,
	"rendered_at" timestamp with time zone NOT NULL,
	CONSTRAINT "page_snapshots_account_id_url_pk" PRIMARY KEY("account_id","url")
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"event_id" bigint NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" integer,
	"error" text,
	"ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"msg_id" text NOT NULL,
	"account_id" text NOT NULL,
	"stream" text NOT NULL,
	"type" text NOT NULL,
	"url" text NOT NULL,
	"headers" jsonb,
	"body" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	"last_status" integer,
	"last_error" text,
	"last_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "webhook_events_msg_id_unique" UNIQUE("msg_id")
);
--> statement-breakpoint
CREATE TABLE "webhook_secrets" (
	"account_id" text PRIMARY KEY NOT NULL,
	"sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"previous_sealed" text,
	"previous_created_at" timestamp with time zone,
	"previous_until" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "jobs" ADD COLUMN "webhook" jsonb;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "webhook" jsonb;--> statement-breakpoint
ALTER TABLE "page_snapshots" ADD CONSTRAINT "page_snapshots_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."webhook_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_secrets" ADD CONSTRAINT "webhook_secrets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "page_snapshots_time" ON "page_snapshots" USING btree ("rendered_at");--> statement-breakpoint
CREATE INDEX "webhook_attempts_event" ON "webhook_attempts" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "webhook_events_due" ON "webhook_events" USING btree ("next_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_events_stream" ON "webhook_events" USING btree ("stream","id");