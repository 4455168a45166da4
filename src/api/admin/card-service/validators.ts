import { z } from "@medusajs/framework/zod"

/** POST /admin/card-service/test-connection: which provider to test; the only one when omitted. */
export const AdminCardServiceTestConnection = z
  .object({
    provider_id: z.string().startsWith("pp_card-service_").optional(),
  })
  .strict()
export type AdminCardServiceTestConnectionType = z.infer<
  typeof AdminCardServiceTestConnection
>

/**
 * POST /admin/card-service/payments/:payment_id/void. The id must be one of
 * the payment's own captures or refunds; the route checks that against
 * payment.data, so only the shape is checked here.
 */
export const AdminCardServiceVoid = z
  .object({
    transaction_id: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/, "must be a card-service transaction id"),
  })
  .strict()
export type AdminCardServiceVoidType = z.infer<typeof AdminCardServiceVoid>

/**
 * POST /admin/card-service/payments/:payment_id/unknown-refunds: the store
 * owner's answer about a refund that had no answer from the service: its
 * Medusa refund id (the key it was sent under) and whether the card service
 * shows it made.
 */
export const AdminCardServiceUnknownRefund = z
  .object({
    refund_id: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_-]+$/, "must be a Medusa refund id"),
    made: z.boolean(),
  })
  .strict()
export type AdminCardServiceUnknownRefundType = z.infer<
  typeof AdminCardServiceUnknownRefund
>

const settingValue = z.union([
  z.string().max(2048),
  z.boolean(),
  z.array(z.string().max(2048)).max(50),
  z.null(),
])

/**
 * POST /admin/card-service/settings: the settings to change, by option name
 * (null: back to medusa-config.ts), and the confirmation live mode needs.
 * Only the shape is checked here; the values go through the options schema
 * (settings-save.ts).
 */
export const AdminCardServiceSettingsSave = z
  .object({
    settings: z
      .object({
        mode: settingValue,
        testUrl: settingValue,
        liveUrl: settingValue,
        merchantId: settingValue,
        verifyId: settingValue,
        clientCode: settingValue,
        clientSecret: settingValue,
        autoCapture: settingValue,
        windowed: settingValue,
        redirectOnFailure: settingValue,
        allowedReturnOrigins: settingValue,
      })
      .partial()
      .strict(),
    confirm_live: z.boolean().optional(),
  })
  .strict()
export type AdminCardServiceSettingsSaveType = z.infer<typeof AdminCardServiceSettingsSave>

/** POST /admin/card-service/orders/:order_id/outstanding: no fields (the order and its collection decide). */
export const AdminCardServiceOutstandingLink = z.object({}).strict()
