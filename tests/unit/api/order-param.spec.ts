import { orderIdParam } from "../../../src/api/admin/card-service/order-param"
import { recordingResponse } from "../../helpers/recording-response"

/** The order routes' :order_id check (orders/[order_id]/review and /outstanding). */
describe("orderIdParam", () => {
  const call = (orderId: string) => {
    const res = recordingResponse()
    const id = orderIdParam({ params: { order_id: orderId } } as never, res as never)
    return { id, res }
  }

  it("gives an order id back and answers nothing", () => {
    const { id, res } = call("order_01JABCDEF")
    expect(id).toBe("order_01JABCDEF")
    expect(res.body).toBeUndefined()
  })

  it.each(["cart_01JABCDEF", "order_", "order_01J/../x", ""])("answers 400 for %j, which is no order id", (orderId) => {
    const { id, res } = call(orderId)
    expect(id).toBeNull()
    expect(res.statusCode).toBe(400)
    expect(res.body).toEqual({ message: "order_id must be an order id (order_...)" })
  })
})
