import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { savePaymentData } from "../../src/checkout/payment-data"
import { cardServiceProvider } from "../../src/checkout/provider-lookup"
import type { CardServiceSessionData } from "../../src/providers/card-service/session-data"
import { recordCanceledPayments } from "../../src/reconciliation/canceled-payments"
import { sessionDataFixture } from "../helpers/session-data-fixture"

jest.mock("../../src/checkout/payment-data", () => ({ savePaymentData: jest.fn() }))
jest.mock("../../src/checkout/provider-lookup", () => ({
  ...jest.requireActual("../../src/checkout/provider-lookup"),
  cardServiceProvider: jest.fn(),
}))

/**
 * A canceled order's card payments on Medusa 2.12 to 2.14, which set
 * canceled_at and drop the provider's answer (canceled-payments.ts): the
 * cancel is asked again of such a payment only, and its answer written, so
 * the payment stops saying "authorized" with no reversal in its log. The
 * provider (which reverses at the service: tests/contract/provider-*.spec.ts)
 * and the payment row writer are stand-ins here.
 */

const CARD = "pp_card-service_card-service"

const sessionData = (state: CardServiceSessionData["state"]) => sessionDataFixture({ state })

type Payment = { id: string; provider_id: string; data: Record<string, unknown> | null; canceled_at: string | Date | null }
const payment = (id: string, changes: Partial<Payment> = {}): Payment => ({
  id,
  provider_id: CARD,
  data: sessionData("authorized") as never,
  canceled_at: "2026-11-20T12:00:00.000Z",
  ...changes,
})

let cancelPayment: jest.Mock
beforeEach(() => {
  jest.mocked(savePaymentData).mockReset()
  cancelPayment = jest.fn(async () => ({ data: sessionData("canceled") }))
  jest.mocked(cardServiceProvider).mockReset()
  jest.mocked(cardServiceProvider).mockReturnValue({ cancelPayment } as never)
})

function container(orders: unknown[]) {
  const graph = jest.fn(async () => ({ data: orders }))
  return {
    graph,
    container: { resolve: (key: string) => (key === ContainerRegistrationKeys.QUERY ? { graph } : undefined) } as never,
  }
}
const order = (...collections: unknown[]) => [{ id: "order_1", payment_collections: collections }]

describe("a canceled order's card payments (recordCanceledPayments)", () => {
  it("asks the cancel again of a canceled payment that still says authorized, and writes the answer", async () => {
    const p = payment("pay_1")
    const { container: c, graph } = container(order({ payments: [p] }))
    expect(await recordCanceledPayments(c, "order_1")).toEqual(["pay_1"])
    expect(graph).toHaveBeenCalledWith(expect.objectContaining({ entity: "order", filters: { id: "order_1" } }))
    expect(cardServiceProvider).toHaveBeenCalledWith(c, CARD)
    expect(cancelPayment).toHaveBeenCalledWith({ data: p.data, context: { idempotency_key: "pay_1" } })
    expect(savePaymentData).toHaveBeenCalledWith(c, "pay_1", sessionData("canceled"))
  })

  it("reads each payment's provider, data and canceled time", async () => {
    const { container: c, graph } = container(order({ payments: [payment("pay_1")] }))
    await recordCanceledPayments(c, "order_1")
    expect((graph.mock.calls[0] as unknown as [{ fields: string[] }])[0].fields).toEqual(
      expect.arrayContaining([
        "payment_collections.payments.id",
        "payment_collections.payments.provider_id",
        "payment_collections.payments.data",
        "payment_collections.payments.canceled_at",
      ])
    )
  })

  it.each([
    ["another provider's", { provider_id: "pp_system_default" }],
    ["not canceled", { canceled_at: null }],
    ["already saying canceled (Medusa 2.15 wrote the answer)", { data: sessionData("canceled") as never }],
    ["captured", { data: sessionData("captured") as never }],
    ["with data that is not the card service's", { data: { state: "authorized" } }],
    ["with no data", { data: null }],
  ])("leaves a payment %s as it is", async (_name, changes) => {
    const { container: c } = container(order({ payments: [payment("pay_1", changes)] }))
    expect(await recordCanceledPayments(c, "order_1")).toStrictEqual([])
    expect(cancelPayment).not.toHaveBeenCalled()
    expect(savePaymentData).not.toHaveBeenCalled()
  })

  it.each([
    ["still authorized (the reversal failed again)", sessionData("authorized")],
    ["not the card service's data", { state: "canceled" }],
  ])("writes nothing when the answer is %s", async (_name, answer) => {
    cancelPayment.mockResolvedValueOnce({ data: answer })
    const { container: c } = container(order({ payments: [payment("pay_1")] }))
    expect(await recordCanceledPayments(c, "order_1")).toStrictEqual([])
    expect(savePaymentData).not.toHaveBeenCalled()
  })

  it("goes through every payment of every collection", async () => {
    const { container: c } = container(
      order(
        { payments: [payment("pay_1"), payment("pay_other", { provider_id: "pp_system_default" })] },
        null,
        { payments: null },
        { payments: [null, payment("pay_2")] }
      )
    )
    expect(await recordCanceledPayments(c, "order_1")).toEqual(["pay_1", "pay_2"])
    expect(savePaymentData).toHaveBeenCalledTimes(2)
  })

  it("finds nothing for an order that is not there, or has no collections", async () => {
    expect(await recordCanceledPayments(container([]).container, "order_1")).toStrictEqual([])
    expect(await recordCanceledPayments(container([{ id: "order_1" }]).container, "order_1")).toStrictEqual([])
    expect(cancelPayment).not.toHaveBeenCalled()
  })
})
