import { model } from "@medusajs/framework/utils"

/**
 * One event of the plugin, for the admin's "Payments at a glance"
 * (src/observability/activity-buffer.ts): `kind` call (a call to the
 * service: `name` its operation, with status and duration), result (a
 * payment's outcome, once per transaction: `name` approved, declined,
 * 3ds_failed, review or error, with the reason code and flag), callback
 * (`name` the answer given) or sweep (`name` the status of what the sweep
 * did). A callback or sweep row is a minute's tally of one name and a call
 * row one of a minute's sampled calls: `count` says how many events it
 * stands for. Kept for eight days (CARD_SERVICE_ACTIVITY_KEEP_MS).
 */
export const CardServiceEvent = model
  .define("card_service_event", {
    id: model.id({ prefix: "csevt" }).primaryKey(),
    kind: model.text(),
    name: model.text(),
    reason_code: model.text().nullable(),
    flag: model.text().nullable(),
    http_status: model.number().nullable(),
    duration_ms: model.float().nullable(),
    transaction_id: model.text().nullable(),
    count: model.number().default(1),
  })
  .indexes([
    { name: "IDX_card_service_event_created_at", on: ["created_at"] },
    {
      name: "IDX_card_service_event_result_transaction",
      on: ["transaction_id"],
      unique: true,
      where: "kind = 'result'",
    },
  ])
