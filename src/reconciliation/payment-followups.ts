import type {
  IPaymentModuleService,
  MedusaContainer,
  PaymentDTO,
} from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { cardServiceProvider } from "../checkout/provider-lookup"
import { parseSessionData } from "../providers/card-service/session-data"

/**
 * What the sweep learned about a captured payment, in the payment's
 * metadata under `card_service.capture`. `final` ends the following: a
 * capture TRANSMITTED, failed (TRXN_ERROR) or voided is not asked again.
 */
export type CaptureNote = {
  capture_status: "PENDING" | "TRANSMITTED" | "VOIDED" | "TRXN_ERROR"
  status:
    | "capture_pending"
    | "capture_transmitted"
    | "capture_failed"
    | "capture_voided"
    | "changed_outside_medusa"
  final: boolean
  /** The store owner must act (shown in "Needs attention"). */
  attention: boolean
  message: string
  transaction_id: string
  at: string
}

/** The payment model has a metadata column; Medusa's DTO type leaves it out. */
type PaymentRow = PaymentDTO & { metadata?: Record<string, unknown> | null }

export type PaymentAction = {
  payment_id: string
  status: CaptureNote["status"]
  message: string
}

/** Settlement (section 3) can take days; follow captures this long. */
export const PAYMENT_LOOKBACK_MS = 30 * 24 * 60 * 60 * 1000

export function captureNoteOf(metadata: unknown): CaptureNote | undefined {
  const record =
    metadata && typeof metadata === "object"
      ? (metadata as Record<string, unknown>).card_service
      : undefined
  return record && typeof record === "object"
    ? ((record as Record<string, unknown>).capture as CaptureNote | undefined)
    : undefined
}

/**
 * Captured card-service payments whose capture is not known final yet,
 * newest first. Refunds and the "no known capture id" case are not
 * followed here (docs/reconciliation.md, "What the sweep cannot know").
 */
export async function listCapturesToFollow(
  container: MedusaContainer,
  providerId: string,
  now: Date,
  take: number
): Promise<PaymentRow[]> {
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  // The payment module filters any column; its filter type names fewer.
  const payments = await paymentModule.listPayments(
    {
      provider_id: providerId,
      captured_at: { $ne: null },
      canceled_at: null,
      created_at: {
        $gte: new Date(now.getTime() - PAYMENT_LOOKBACK_MS).toISOString(),
      },
    } as Record<string, unknown>,
    {
      select: ["id", "data", "metadata", "provider_id", "created_at"],
      take,
      order: { created_at: "DESC" },
    }
  )
  return (payments as PaymentRow[]).filter(
    (payment) => !captureNoteOf(payment.metadata)?.final
  )
}

/**
 * Asks the service for the capture's record and notes what changed. The
 * record is the truth (section 3): PENDING is followed until TRANSMITTED or
 * TRXN_ERROR; VOIDED that Medusa never asked for is flagged, not undone.
 */
export async function followCapture(
  container: MedusaContainer,
  payment: PaymentRow,
  now: Date
): Promise<PaymentAction | null> {
  const data = parseSessionData(payment.data)
  const captureId = data?.capture?.transaction_id
  if (!data || !captureId) {
    return null
  }
  const provider = cardServiceProvider(container, payment.provider_id)
  await provider.refreshSettings()
  const record = await provider.client.retrieve(captureId)
  const previous = captureNoteOf(payment.metadata)
  if (
    record.step !== "CAPTURE" ||
    record.originalTransactionId !== data.transaction_id
  ) {
    return await note(container, payment, previous, {
      capture_status: record.captureStatus ?? "PENDING",
      status: "changed_outside_medusa",
      final: true,
      attention: true,
      message: `the service's record ${captureId} is not this payment's capture; check it at the card service`,
      transaction_id: captureId,
      at: now.toISOString(),
    })
  }
  const voidedByMedusa = data.transactions.some(
    (t) => t.operation === "capture" && t.voided
  )
  const at = now.toISOString()
  switch (record.captureStatus) {
    case "TRANSMITTED":
      return await note(container, payment, previous, {
        capture_status: "TRANSMITTED",
        status: "capture_transmitted",
        final: true,
        attention: false,
        message: `capture ${captureId} was transmitted to the processor`,
        transaction_id: captureId,
        at,
      })
    case "TRXN_ERROR":
      return await note(container, payment, previous, {
        capture_status: "TRXN_ERROR",
        status: "capture_failed",
        final: true,
        attention: true,
        message: `capture ${captureId} ended TRXN_ERROR at the processor: the money was not taken; contact the card service or the customer`,
        transaction_id: captureId,
        at,
      })
    case "VOIDED":
      return await note(container, payment, previous, {
        capture_status: "VOIDED",
        status: voidedByMedusa ? "capture_voided" : "changed_outside_medusa",
        final: true,
        attention: !voidedByMedusa,
        message: voidedByMedusa
          ? `capture ${captureId} is voided, as Medusa asked`
          : `capture ${captureId} was voided at the card service, not from Medusa: the order shows it captured but no money will be taken`,
        transaction_id: captureId,
        at,
      })
    default:
      return await note(container, payment, previous, {
        capture_status: "PENDING",
        status: "capture_pending",
        final: false,
        attention: false,
        message: `capture ${captureId} is pending at the processor`,
        transaction_id: captureId,
        at,
      })
  }
}

/** Writes the note when it says something new; one action per change. */
async function note(
  container: MedusaContainer,
  payment: PaymentRow,
  previous: CaptureNote | undefined,
  next: CaptureNote
): Promise<PaymentAction | null> {
  if (previous && previous.status === next.status) {
    return null
  }
  const paymentModule = container.resolve<IPaymentModuleService>(
    Modules.PAYMENT
  )
  const metadata = (payment.metadata ?? {}) as Record<string, unknown>
  const cardService = (metadata.card_service ?? {}) as Record<string, unknown>
  // updatePayment writes the row only (no provider call); its DTO type
  // names fewer columns than the model has.
  await paymentModule.updatePayment({
    id: payment.id,
    metadata: { ...metadata, card_service: { ...cardService, capture: next } },
  } as Parameters<IPaymentModuleService["updatePayment"]>[0])
  return { payment_id: payment.id, status: next.status, message: next.message }
}
