CREATE TABLE "feedback" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text,
	"payer" text,
	"client" text,
	"category" text NOT NULL,
	"message" text NOT NULL,
	"url" text,
	"request_id" text,
	"job_id" text,
	"session_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_pages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"job_id" text NOT NULL,
	"url" text NOT NULL,
	"url_key" text NOT NULL,
	"depth" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"task_id" text,
	"dispatched_at" timestamp with time zone,
	"result" jsonb,
	"error" jsonb,
	"charged_micros" bigint DEFAULT 0 NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"account_id" text NOT NULL,
	"status" text NOT NULL,
	"request" jsonb NOT NULL,
	"request_id" text,
	"hold_id" text NOT NULL,
	"page_micros" bigint NOT NULL,
	"page_limit" integer NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"completed" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"charged_micros" bigint DEFAULT 0 NOT NULL,
	"robots_txt" text,
	"error" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"deadline_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "feedback" ADD CONSTRAINT "feedback_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_pages" ADD CONSTRAINT "job_pages_job_id_jobs_id_fk" FOREIGN KEY ("job_id") REFERENCES "public"."jobs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "feedback_time" ON "feedback" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "job_pages_url" ON "job_pages" USING btree ("job_id","url_key");--> statement-breakpoint
CREATE INDEX "job_pages_job_status" ON "job_pages" USING btree ("job_id","status","id");--> statement-breakpoint
CREATE INDEX "job_pages_in_flight" ON "job_pages" USING btree ("dispatched_at") WHERE status = 'dispatched';--> statement-breakpoint
CREATE INDEX "jobs_account_time" ON "jobs" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "jobs_active" ON "jobs" USING btree ("status") WHERE status in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "jobs_expiry" ON "jobs" USING btree ("expires_at");