CREATE TABLE "recording_parts" (
	"session_id" text NOT NULL,
	"seq" integer NOT NULL,
	"key" text NOT NULL,
	"bytes" integer NOT NULL,
	"events" integer NOT NULL,
	"from_at" timestamp with time zone NOT NULL,
	"to_at" timestamp with time zone NOT NULL,
	"final" boolean DEFAULT false NOT NULL,
	"saved_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "recording_parts_session_id_seq_pk" PRIMARY KEY("session_id","seq")
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "recording_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "recording_truncated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "recording_parts" ADD CONSTRAINT "recording_parts_session_id_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sessions_recording_expiry" ON "sessions" USING btree ("recording_expires_at") WHERE recording_expires_at is not null;