import { createProductsWorkflow, createShippingOptionsWorkflow } from "@medusajs/core-flows"
import type { MedusaContainer } from "@medusajs/framework/types"
import type { AxiosInstance } from "axios"
import type { TransactionRecord } from "../../src/sandbox"
import { paymentOfOrder } from "./checkout-flow"
import { SeededStore, seedStore } from "./seed-store"

/**
 * Set-up and admin steps for what happens to an order after the checkout
 * (returns, exchanges, claims), all through Medusa's own workflows and admin
 * API, as a store owner does them.
 */

export type AfterCheckoutStore = SeededStore & {
  /** The stock location the order ships from and returns go back to. */
  locationId: string
  /** A return shipping option in the same zone, at `returnShippingPrice`. */
  returnShippingOptionId: string
  /** Variants of a second product, for the new item of an exchange or claim. */
  cheaperVariantId: string
  dearerVariantId: string
}

export type AfterCheckoutPrices = {
  currencyCode: string
  price: number
  shippingPrice: number
  returnShippingPrice: number
  cheaperPrice: number
  dearerPrice: number
}

/**
 * seedStore's store, plus what returns and exchanges need: a return shipping
 * option (is_return) in the zone of the outbound one, and a product with a
 * cheaper and a dearer variant than the one the shopper buys.
 */
export async function seedAfterCheckoutStore(
  container: MedusaContainer,
  prices: AfterCheckoutPrices
): Promise<AfterCheckoutStore> {
  const store = await seedStore(container, {
    currencyCode: prices.currencyCode,
    price: prices.price,
    shippingPrice: prices.shippingPrice,
  })
  const query = container.resolve("query")
  const {
    data: [outbound],
  } = await query.graph({
    entity: "shipping_option",
    fields: ["id", "service_zone_id", "shipping_profile_id", "service_zone.fulfillment_set.location.id"],
    filters: { id: store.shippingOptionId },
  })
  const {
    result: [returnOption],
  } = await createShippingOptionsWorkflow(container).run({
    input: [
      {
        name: "Return shipping",
        price_type: "flat",
        provider_id: "manual_manual",
        service_zone_id: outbound.service_zone_id,
        shipping_profile_id: outbound.shipping_profile_id,
        type: { label: "Return", description: "Back to the warehouse", code: "return" },
        prices: [
          { currency_code: prices.currencyCode, amount: prices.returnShippingPrice },
          { region_id: store.regionId, amount: prices.returnShippingPrice },
        ],
        rules: [
          { attribute: "enabled_in_store", value: "true", operator: "eq" },
          { attribute: "is_return", value: "true", operator: "eq" },
        ],
      },
    ],
  })
  const {
    result: [product],
  } = await createProductsWorkflow(container).run({
    input: {
      products: [
        {
          title: "Card Service Hoodie",
          handle: `hoodie-${prices.currencyCode}`,
          status: "published",
          shipping_profile_id: outbound.shipping_profile_id,
          options: [{ title: "Kind", values: ["plain", "printed"] }],
          variants: [
            {
              title: "plain",
              sku: `HOODIE-PLAIN-${prices.currencyCode.toUpperCase()}`,
              options: { Kind: "plain" },
              manage_inventory: false,
              prices: [{ currency_code: prices.currencyCode, amount: prices.cheaperPrice }],
            },
            {
              title: "printed",
              sku: `HOODIE-PRINTED-${prices.currencyCode.toUpperCase()}`,
              options: { Kind: "printed" },
              manage_inventory: false,
              prices: [{ currency_code: prices.currencyCode, amount: prices.dearerPrice }],
            },
          ],
          sales_channels: [{ id: store.salesChannelId }],
        },
      ],
    },
  })
  const variant = (title: string) => product.variants.find((v: { title: string }) => v.title === title)!.id
  return {
    ...store,
    locationId: outbound.service_zone.fulfillment_set.location.id,
    returnShippingOptionId: returnOption.id,
    cheaperVariantId: variant("plain"),
    dearerVariantId: variant("printed"),
  }
}

/** The admin API calls a store owner makes after the checkout. */
export function adminApi(api: AxiosInstance, headers: Record<string, string>) {
  const post = async (url: string, body: unknown = {}) => {
    try {
      return (await api.post(url, body, { headers })).data
    } catch (error: any) {
      throw explain("POST", url, error)
    }
  }
  const get = async (url: string) => {
    try {
      return (await api.get(url, { headers })).data
    } catch (error: any) {
      throw explain("GET", url, error)
    }
  }

  return {
    post,
    get,
    async order(orderId: string) {
      const { order } = await get(
        `/admin/orders/${orderId}?fields=id,currency_code,total,summary,*items,*payment_collections,payment_collections.payments.id,payment_collections.payment_sessions.id`
      )
      return order
    },
    /** What Medusa says the order owes (positive) or is owed (negative). */
    async pendingDifference(orderId: string): Promise<number> {
      const order = await this.order(orderId)
      return Number(order.summary.pending_difference)
    },
    /** The payment's captures and refunds as Medusa books them. */
    async bookedTotals(paymentId: string) {
      const { payment } = await get(`/admin/payments/${paymentId}`)
      const sum = (rows: { amount: number | string }[] = []) =>
        roundSum(rows.reduce((total, row) => total + Number(row.amount), 0))
      return { captured: sum(payment.captures), refunded: sum(payment.refunds) }
    },
    capture: (paymentId: string, amount?: number) =>
      post(`/admin/payments/${paymentId}/capture`, amount === undefined ? {} : { amount }),
    refund: (paymentId: string, amount: number) =>
      post(`/admin/payments/${paymentId}/refund`, { amount }),
    /** Fulfils every item of the order from the location (returns take back only fulfilled items). */
    async fulfilAll(orderId: string, locationId: string) {
      const order = await this.order(orderId)
      await post(`/admin/orders/${orderId}/fulfillments`, {
        location_id: locationId,
        items: order.items.map((item: { id: string; quantity: number }) => ({
          id: item.id,
          quantity: Number(item.quantity),
        })),
      })
    },
    /**
     * Receives and confirms the return's items: begin receive, receive
     * items, confirm receive (/admin/returns/:id/receive...).
     */
    async receiveReturn(returnId: string, items: { id: string; quantity: number }[]) {
      await post(`/admin/returns/${returnId}/receive`, {})
      await post(`/admin/returns/${returnId}/receive-items`, { items })
      return post(`/admin/returns/${returnId}/receive/confirm`, {})
    },
  }
}

export type AdminApi = ReturnType<typeof adminApi>

function explain(method: string, url: string, error: any) {
  const response = error?.response
  if (!response) {
    return error
  }
  return new Error(`${method} ${url} answered ${response.status}: ${JSON.stringify(response.data)}`)
}

/**
 * What the card service moved for a payment, summed from its own records:
 * the successful captures of the payment's authorization, and the successful
 * refunds of those captures (or of the authorization). A capture voided
 * before it was transmitted gave the money back, so it counts as refunded.
 */
export function serviceTotals(
  records: TransactionRecord[],
  payment: { data: { transaction_id: string; capture?: { transaction_id?: string } } }
) {
  const authorization = payment.data.transaction_id
  const captures = records.filter(
    (r) => r.step === "CAPTURE" && r.status === "successful" && r.originalTransactionId === authorization
  )
  const captureIds = new Set([
    ...captures.map((r) => r.transactionId),
    ...(payment.data.capture?.transaction_id ? [payment.data.capture.transaction_id] : []),
  ])
  const refunds = records.filter(
    (r) =>
      r.step === "REFUND" &&
      r.status === "successful" &&
      r.captureStatus !== "VOIDED" &&
      (captureIds.has(r.originalTransactionId) || r.originalTransactionId === authorization)
  )
  const sum = (rows: TransactionRecord[]) => roundSum(rows.reduce((total, r) => total + r.amount, 0))
  return {
    captured: sum(captures),
    refunded: roundSum(sum(refunds) + sum(captures.filter((r) => r.captureStatus === "VOIDED"))),
    /** Every record of this payment's money (for failure messages). */
    records: records.filter(
      (r) => r.transactionId === authorization || captureIds.has(r.transactionId) || refunds.includes(r)
    ),
  }
}

/** Float noise off a sum of major-unit amounts (no currency has more than 3 digits). */
function roundSum(amount: number) {
  return Number(amount.toFixed(6))
}

/** What Medusa books for a payment read with its captures and refunds. */
export function bookedTotals(payment: {
  captures?: { amount: number | string }[] | null
  refunds?: { amount: number | string }[] | null
}) {
  const sum = (rows: { amount: number | string }[] | null | undefined) =>
    roundSum((rows ?? []).reduce((total, r) => total + Number(r.amount), 0))
  return { captured: sum(payment.captures), refunded: sum(payment.refunds) }
}

/**
 * Asserts that the service holds exactly what Medusa books for the order's
 * payment (its records in the failure message); the payment and what Medusa books.
 */
export async function expectServiceHoldsWhatMedusaBooks(container: MedusaContainer, records: TransactionRecord[], orderId: string) {
  const payment = await paymentOfOrder(container, orderId)
  const booked = bookedTotals(payment)
  const { records: mine, ...held } = serviceTotals(records, payment)
  expect({ ...held, records: mine }).toEqual({ ...booked, records: mine })
  return { payment, booked }
}

/**
 * What the order counts of its payments' money (its "capture" and "refund"
 * transactions, refunds as given back) against what the payments book (their
 * capture and refund rows); asserted equal. Returns both and the order's
 * summary and credit lines.
 */
export async function expectOrderCountsItsPayments(container: MedusaContainer, orderId: string) {
  const counts = await orderCountsOfPayments(container, orderId)
  expect(counts.onOrder).toEqual(counts.booked)
  return counts
}

/** The same, read without asserting. */
export async function orderCountsOfPayments(container: MedusaContainer, orderId: string) {
  const query = container.resolve("query")
  const { data } = await query.graph({
    entity: "order",
    fields: [
      "id",
      "summary",
      "credit_lines.amount",
      "transactions.reference",
      "transactions.amount",
      "payment_collections.payments.captures.amount",
      "payment_collections.payments.refunds.amount",
    ],
    filters: { id: orderId },
  })
  const order = data[0]
  const payments = order.payment_collections.flatMap((c: any) => c.payments ?? [])
  const booked = payments.map(bookedTotals).reduce(
    (total: { captured: number; refunded: number }, p: { captured: number; refunded: number }) => ({
      captured: roundSum(total.captured + p.captured),
      refunded: roundSum(total.refunded + p.refunded),
    }),
    { captured: 0, refunded: 0 }
  )
  const counted = (reference: string) =>
    roundSum((order.transactions ?? []).filter((t: any) => t.reference === reference).reduce((total: number, t: any) => total + Number(t.amount), 0))
  const onOrder = { captured: counted("capture"), refunded: roundSum(-counted("refund")) }
  return {
    booked,
    onOrder,
    summary: order.summary,
    creditLines: (order.credit_lines ?? []).map((line: any) => Number(line.amount)),
  }
}
