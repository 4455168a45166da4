import {
  createServer,
  IncomingMessage,
  Server,
  ServerResponse,
} from "node:http"
import { AddressInfo } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"
import { CONTROL_PREFIX, handleControl } from "./control-handler"
import { followOn, isFollowOnPath } from "./follow-on-handler"
import { drain, pathOf, sendJson } from "./http-io"
import { serveJson } from "./json-endpoint"
import { drawDelay } from "./network-latency"
import { handleOrderStart } from "./payment-request-handler"
import { retrieve, RETRIEVE_PREFIX } from "./retrieve-handler"
import { SandboxOptions } from "./sandbox-options"
import { SandboxTestControls } from "./test-controls"
import { handleThreeDs, matchThreeDsPath } from "./three-ds-handler"
import { authorize } from "./verification-handler"

/**
 * The running sandbox. `startSandbox` returns one; tests drive it through
 * these members (the test controls it inherits). This class owns the
 * listener and sends each request to the handler of its endpoint.
 */
export class CardServiceSandbox extends SandboxTestControls {
  url = ""
  port = 0

  private readonly server: Server

  constructor(options: SandboxOptions = {}) {
    super(options)
    this.server = createServer({ keepAliveTimeout: 5000 }, (req, res) => {
      const answered = this.requestLog.start(req.method ?? "", pathOf(req))
      res.once("finish", () => answered(res.statusCode))
      this.handle(req, res).catch((error: unknown) => {
        this.context.logger.error(
          `sandbox failure on ${req.method} ${pathOf(req)}: ${error instanceof Error ? error.message : String(error)}`
        )
        if (!res.headersSent) {
          sendJson(res, 500, { decision: "REJECT", reasonCode: "150" })
        } else {
          res.destroy()
        }
      })
    })
  }

  async listen(): Promise<this> {
    const host = this.options.host ?? "127.0.0.1"
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject)
      this.server.listen(this.options.port ?? 0, host, () => {
        this.server.off("error", reject)
        resolve()
      })
    })
    this.port = (this.server.address() as AddressInfo).port
    const shownHost = host.includes(":") ? `[${host}]` : host
    this.url = `http://${shownHost}:${this.port}`
    return this
  }

  /** Stops listening, drops open connections and cancels pending callbacks and timers. */
  async close(): Promise<void> {
    await this.context.dispatcher.close()
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve())
      this.server.closeAllConnections()
    })
  }

  private async handle(
    req: IncomingMessage,
    res: ServerResponse
  ): Promise<void> {
    const ctx = this.context
    const pathname = pathOf(req)
    if (!pathname.startsWith(CONTROL_PREFIX)) {
      const delay = drawDelay(this.latency)
      if (delay > 0) await sleep(delay)
    }
    if (pathname === "/authorize") {
      return serveJson(ctx, req, res, pathname, "GET", false, () =>
        authorize(ctx, req)
      )
    }
    if (isFollowOnPath(pathname)) {
      return serveJson(ctx, req, res, pathname, "POST", true, (body) =>
        followOn(ctx, pathname, body!)
      )
    }
    if (pathname.startsWith(RETRIEVE_PREFIX)) {
      return serveJson(ctx, req, res, pathname, "GET", true, () =>
        retrieve(ctx, pathname)
      )
    }
    if (pathname === "/order/start") {
      return handleOrderStart(ctx, req, res)
    }
    const threeDs = matchThreeDsPath(pathname)
    if (threeDs) {
      return handleThreeDs(ctx, req, res, threeDs)
    }
    if (pathname.startsWith(CONTROL_PREFIX)) {
      return handleControl(this, req, res, pathname)
    }
    if (pathname === "/" && req.method === "GET") {
      return sendJson(res, 200, { service: "card-service-sandbox" })
    }
    await drain(req)
    sendJson(res, 404, { error: "not_found" })
  }
}
