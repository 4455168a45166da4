import { Migration } from "@medusajs/framework/mikro-orm/migrations"

/** The plugin's events behind the admin's figures (models/card-service-event.ts). */
export class Migration20261127090000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table if not exists "card_service_event" ("id" text not null, "kind" text not null, "name" text not null, "reason_code" text null, "flag" text null, "http_status" integer null, "duration_ms" real null, "transaction_id" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "card_service_event_pkey" primary key ("id"));`
    )
    this.addSql(
      `CREATE INDEX IF NOT EXISTS "IDX_card_service_event_created_at" ON "card_service_event" ("created_at");`
    )
    // A payment result is written once, whichever instance reads it first.
    this.addSql(
      `CREATE UNIQUE INDEX IF NOT EXISTS "IDX_card_service_event_result_transaction" ON "card_service_event" ("transaction_id") WHERE kind = 'result';`
    )
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "card_service_event" cascade;`)
  }
}
