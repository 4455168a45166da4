import { Modules } from "@medusajs/framework/utils"
import { underPaymentLock } from "../../lib/payment-lock"
import { applicationWith, containerMember } from "./container-member"
import type { CardServiceSessionData } from "./session-data"

/**
 * The payment's record as soon as the service has acted on a capture or
 * refund, written by the provider itself (issue 42, bench:crash-points).
 *
 * Medusa's payment module commits its capture or refund row, calls the
 * provider, then writes what the provider returned onto the payment; when
 * that write fails (its database connection dropped), it deletes the row
 * and throws. The service has moved the money all the same, and nothing
 * remembered it: the owner's second refund came with a new key and the
 * service refunded again; a second capture was refused (242) with nothing
 * to book. Written here first, on a connection of its own, the payment's
 * log keeps the follow-on under the key of the row Medusa deleted, and the
 * next capture or refund finds it (follow-on-request.ts, orphanedFollowOn).
 *
 * The members are the payment module's own services, in the container
 * Medusa builds the provider in; a provider built outside Medusa (the
 * contract tests) has none, and nothing is written or read.
 */
type Row = { id: string; payment?: { id?: string } | null; payment_id?: string | null }
type RowService = {
  retrieve(id: string, config: { select: string[]; relations?: string[] }): Promise<Row>
  list(filters: Record<string, unknown>, config: { select: string[] }): Promise<Row[]>
}
type PaymentService = {
  update(data: { id: string; data?: Record<string, unknown>; metadata?: Record<string, unknown> }): Promise<unknown>
  retrieve(
    id: string,
    config: { select: string[] }
  ): Promise<{
    metadata?: Record<string, unknown> | null
    data?: Record<string, unknown> | null
    payment_collection_id?: string | null
  }>
}

/**
 * `card_service.cancel` in the payment's metadata: the provider was asked
 * to release the approval (cancelPayment), and when. Written before the
 * reversal is sent, so that a cancel of an order that stops midway (the
 * instance killed, its connection dropped) is found and finished by the
 * sweep (reconciliation/interrupted-cancels.ts). `refused`: the service
 * would not reverse (238, 243): Needs attention has it, nothing finishes it.
 * The sweep adds what it did (status, message...).
 */
export type CancelMark = {
  requested_at: string
  refused?: string
  status?: "cancel_recovered" | "cancel_not_finished"
  message?: string
  at?: string
  attention?: boolean
  final?: boolean
}

/**
 * A payment's metadata with `card_service[field]` set to `value`, the rest
 * kept: the one shape of the plugin's notes on a payment (capture, refund,
 * cancel), written by the provider and the sweep alike.
 */
export function withCardServiceField(
  metadata: Record<string, unknown> | null | undefined,
  field: string,
  value: unknown
): Record<string, unknown> {
  const cardService = (metadata?.card_service ?? {}) as Record<string, unknown>
  return { ...(metadata ?? {}), card_service: { ...cardService, [field]: value } }
}

export function cancelMarkOf(metadata: unknown): CancelMark | undefined {
  const cardService = (metadata as { card_service?: { cancel?: CancelMark } } | null | undefined)?.card_service
  return cardService && typeof cardService === "object" ? cardService.cancel : undefined
}

export type FollowOnKind = "capture" | "refund"

export class PaymentRecord {
  private readonly payments_: PaymentService | null
  private readonly rows_: Record<FollowOnKind, RowService | null>

  constructor(container: unknown) {
    this.payments_ = containerMember<PaymentService>(container, "paymentService", "update")
    this.rows_ = {
      capture: containerMember<RowService>(container, "captureService", "list"),
      refund: containerMember<RowService>(container, "refundService", "list"),
    }
  }

  /** The payment Medusa's row `key` belongs to; null when there is none to read. */
  async paymentOf(kind: FollowOnKind, key: string | undefined): Promise<string | null> {
    const rows = this.rows_[kind]
    if (!rows || !key) return null
    const row = await rows.retrieve(key, { select: ["id"], relations: ["payment"] }).catch(() => null)
    return row?.payment?.id ?? null
  }

  /** The keys of Medusa's rows of this kind for the payment; null when they cannot be read. */
  async bookedKeys(kind: FollowOnKind, paymentId: string | null): Promise<Set<string> | null> {
    const rows = this.rows_[kind]
    if (!rows || !paymentId) return null
    const list = await rows.list({ payment_id: paymentId }, { select: ["id"] }).catch(() => null)
    return list ? new Set(list.map((row) => row.id)) : null
  }

  /**
   * Runs `action` under the payment's lock (lib/payment-lock.ts), the one
   * the owner's void, an unknown refund's settling and the sweep's settling
   * of a payment hold. Medusa's capture and refund workflows take no lock of
   * their own and pass the payment's data as they read it: two captures the
   * owner sent at once both reached the service, and a refund beside another
   * follow-on computed from an older copy that Medusa then stored over the
   * newer one. The provider lives in the
   * payment module's container, which has no locking module; the
   * application's container (the one Medusa boots every module from) has.
   * A provider built outside Medusa (the contract tests), or a payment Medusa
   * does not name, runs the action as it is.
   */
  async underLock<T>(paymentId: string | null, action: () => Promise<T>): Promise<T> {
    const app = applicationWith(Modules.LOCKING)
    if (!paymentId || !app) return await action()
    return await underPaymentLock(app, paymentId, action)
  }

  /**
   * The payment as stored now, read under its lock: its data (what an
   * earlier capture or refund, or the owner's void, wrote since Medusa read
   * the copy it passes as `given`) and its payment collection. `given` and
   * no collection when the payment cannot be read.
   */
  async current(paymentId: string | null, given: unknown): Promise<{ data: unknown; collectionId: string | null }> {
    const payments = this.payments_
    if (!payments || !paymentId) return { data: given, collectionId: null }
    const stored = await Promise.resolve()
      .then(() => payments.retrieve(paymentId, { select: ["id", "data", "payment_collection_id"] }))
      .catch(() => null)
    return { data: stored?.data ?? given, collectionId: stored?.payment_collection_id ?? null }
  }

  /**
   * Merges `mark` into the payment's cancel mark (metadata
   * `card_service.cancel`). Best effort, as write: a mark that cannot be
   * written leaves the cancel as Medusa alone would have it.
   */
  async markCancel(paymentId: string | null, mark: Partial<CancelMark>): Promise<void> {
    if (!this.payments_ || !paymentId) return
    const payments = this.payments_
    try {
      await persistently(async () => {
        const { metadata } = await payments.retrieve(paymentId, { select: ["id", "metadata"] })
        await payments.update({
          id: paymentId,
          metadata: withCardServiceField(metadata, "cancel", { ...cancelMarkOf(metadata), ...mark }),
        })
      })
    } catch {
      // Medusa's own cancel goes on.
    }
  }

  /**
   * Writes `data` onto the payment, before Medusa does, trying again on a
   * failure: a connection of the pool the database dropped while the
   * service acted fails the next query on it, and the pool gives a live one
   * to the next (bench:crash-points, `capture service:/capture#1 db-drop`:
   * the one write failed, Medusa's too, and the capture the service made was
   * remembered nowhere). A write that fails every time changes nothing:
   * Medusa's own comes next.
   */
  async write(paymentId: string | null, data: CardServiceSessionData): Promise<void> {
    const payments = this.payments_
    if (!payments || !paymentId) return
    await persistently(() => payments.update({ id: paymentId, data: data as unknown as Record<string, unknown> })).catch(
      () => undefined
    )
  }
}

/** Tries `write` up to four times, a quarter of a second apart. */
export async function persistently<T>(write: () => Promise<T>, attempts = 4, pauseMs = 250): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write()
    } catch (error) {
      if (attempt >= attempts) throw error
      await new Promise((resolve) => setTimeout(resolve, pauseMs))
    }
  }
}
