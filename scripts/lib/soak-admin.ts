/**
 * The store owner in the soak: logs in as the seed's admin, refunds or
 * cancels some orders while the run goes on (so refunds meet the faults
 * too), and runs the reconciliation sweep on each instance at the end.
 */
import { request } from "undici"
import type { Cluster } from "./load-cluster"

/** The admin the cluster's seed creates (load-cluster.ts). */
const ADMIN = { email: "admin@example.com", password: "supersecret" }

export type AdminAction = "refund-twice" | "cancel"

export function storeOwner(cluster: Cluster) {
  let token: Promise<string> | null = null
  const login = async () => {
    const answer = await request(`${cluster.proxyUrl}/auth/user/emailpass`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ADMIN),
    })
    const body = (await answer.body.json()) as { token?: string }
    if (!body.token) throw new Error(`admin login answered ${answer.statusCode}`)
    return body.token
  }
  const call = async (base: string, path: string, body: unknown = {}): Promise<{ status: number; json: any }> => {
    token ??= login().catch((error) => {
      token = null
      throw error
    })
    const answer = await request(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${await token}` },
      body: JSON.stringify(body),
      headersTimeout: 120_000,
      bodyTimeout: 120_000,
    })
    const text = await answer.body.text()
    return { status: answer.statusCode, json: text ? JSON.parse(text) : {} }
  }

  return {
    /**
     * On the order of `cartId`: two full refunds sent at once (one must be
     * refused, by Medusa or by the service), or the order's cancel (Medusa
     * refunds what was captured). What each answered, for the log.
     */
    async act(cartId: string, action: AdminAction): Promise<string> {
      const [row] = await cluster.query(
        `SELECT oc.order_id, p.id AS payment_id, p.amount
           FROM order_cart oc
           JOIN order_payment_collection opc ON opc.order_id = oc.order_id AND opc.deleted_at IS NULL
           JOIN payment p ON p.payment_collection_id = opc.payment_collection_id AND p.deleted_at IS NULL
          WHERE oc.cart_id = $1 AND oc.deleted_at IS NULL AND p.captured_at IS NOT NULL`,
        [cartId]
      )
      if (!row) return "no captured payment yet"
      if (action === "cancel") {
        const answer = await call(cluster.proxyUrl, `/admin/orders/${row.order_id}/cancel`)
        return `cancel ${answer.status}`
      }
      const amount = Number(row.amount)
      const answers = await Promise.all(
        [0, 1].map(() => call(cluster.proxyUrl, `/admin/payments/${row.payment_id}/refund`, { amount }).catch((e: Error) => ({ status: 0, json: e.message })))
      )
      return `refunds ${answers.map((a) => a.status).join(" and ")}`
    },

    /** One sweep on the instance at `base`: whether it ran and how many actions it took. */
    async sweep(base: string): Promise<{ ran: boolean; actions: number; serviceDown: boolean }> {
      const answer = await call(base, "/admin/card-service/reconciliation")
      return { ran: !!answer.json.ran, actions: answer.json.actions?.length ?? 0, serviceDown: !!answer.json.serviceDown }
    },
  }
}
