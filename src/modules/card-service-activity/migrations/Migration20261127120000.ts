import { Migration } from "@medusajs/framework/mikro-orm/migrations"

/**
 * How many events a row stands for (models/card-service-event.ts): a
 * minute's tally of callbacks or sweep actions, or a sampled call. Rows
 * written before it stand for one each.
 */
export class Migration20261127120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table if exists "card_service_event" add column if not exists "count" integer not null default 1;`
    )
  }

  override async down(): Promise<void> {
    this.addSql(`alter table if exists "card_service_event" drop column if exists "count";`)
  }
}
