CREATE TABLE "profiles" (
	"account_id" text NOT NULL,
	"name" text NOT NULL,
	"sealed" text NOT NULL,
	"bytes" integer NOT NULL,
	"cookies" integer NOT NULL,
	"sites" jsonb NOT NULL,
	"version" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"saved_by" text,
	CONSTRAINT "profiles_account_id_name_pk" PRIMARY KEY("account_id","name")
);
--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "profile_name" text;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "profile_save" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "profile_version" integer;--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;