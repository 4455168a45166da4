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
