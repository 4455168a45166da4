import { Migration } from "@medusajs/framework/mikro-orm/migrations"

/** The settings row and its audit trail (models/). */
export class Migration20261123130000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table if not exists "card_service_settings" ("id" text not null, "values" jsonb not null default '{}', "secrets" jsonb not null default '{}', "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "card_service_settings_pkey" primary key ("id"));`
    )
    this.addSql(
      `CREATE INDEX IF NOT EXISTS "IDX_card_service_settings_deleted_at" ON "card_service_settings" ("deleted_at") WHERE deleted_at IS NULL;`
    )
    this.addSql(
      `create table if not exists "card_service_settings_change" ("id" text not null, "setting" text not null, "secret" boolean not null default false, "old_value" text null, "new_value" text null, "actor_type" text null, "actor_id" text null, "actor_email" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "card_service_settings_change_pkey" primary key ("id"));`
    )
    this.addSql(
      `CREATE INDEX IF NOT EXISTS "IDX_card_service_settings_change_deleted_at" ON "card_service_settings_change" ("deleted_at") WHERE deleted_at IS NULL;`
    )
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "card_service_settings_change" cascade;`)
    this.addSql(`drop table if exists "card_service_settings" cascade;`)
  }
}
