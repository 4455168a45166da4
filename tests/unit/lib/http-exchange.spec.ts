import { createServer, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Pool } from "undici"
import {
  ResponseTooLargeError,
  dispatchForText,
} from "../../../src/lib/http-exchange"
import { classifyTransportError } from "../../../src/lib/transport-errors"

/** A loopback server whose answer each test writes by hand. */
async function serve(
  handler: (res: ServerResponse) => void
): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    req.resume()
    handler(res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return { server, origin: `http://127.0.0.1:${port}` }
}

const open: Array<{ close(): Promise<unknown> | void }> = []

afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close()
})

function pool(origin: string, options: Pool.Options = {}): Pool {
  const p = new Pool(origin, options)
  open.push(p)
  return p
}

function track(server: Server): void {
  open.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  })
}

describe("dispatchForText", () => {
  it("joins a body written in several chunks, with a character split between two", async () => {
    const euro = Buffer.from("€", "utf8") // three bytes
    const { server, origin } = await serve((res) => {
      res.writeHead(201, { "content-type": "application/json" })
      res.write(Buffer.concat([Buffer.from('{"a":"'), euro.subarray(0, 1)]))
      setTimeout(() => {
        res.write(euro.subarray(1))
        setTimeout(() => res.end('"}'), 5)
      }, 5)
    })
    track(server)
    const answer = await dispatchForText(pool(origin), {
      path: "/x",
      method: "GET",
    })
    expect(answer).toEqual({ status: 201, text: '{"a":"€"}' })
  })

  it("gives an empty text for an empty body", async () => {
    const { server, origin } = await serve((res) => {
      res.writeHead(204)
      res.end()
    })
    track(server)
    await expect(
      dispatchForText(pool(origin), { path: "/x", method: "GET" })
    ).resolves.toEqual({ status: 204, text: "" })
  })

  it("stops reading past the limit, with an error that counts as sent", async () => {
    const { server, origin } = await serve((res) => {
      res.writeHead(200)
      res.write("x".repeat(600))
      setTimeout(() => res.end("y".repeat(600)), 5)
    })
    track(server)
    const error = await dispatchForText(
      pool(origin),
      { path: "/x", method: "POST", body: "{}" },
      1000
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ResponseTooLargeError)
    expect(classifyTransportError(error)).toMatchObject({
      sent: true,
      timeout: false,
      code: "CARD_SERVICE_RESPONSE_TOO_LARGE",
    })
  })

  it("rejects with undici's headers timeout, read as sent", async () => {
    const { server, origin } = await serve(() => undefined)
    track(server)
    const error = await dispatchForText(pool(origin, { headersTimeout: 50 }), {
      path: "/x",
      method: "POST",
      body: "{}",
    }).catch((e: unknown) => e)
    expect(classifyTransportError(error)).toMatchObject({
      sent: true,
      timeout: true,
      code: "UND_ERR_HEADERS_TIMEOUT",
    })
  })

  it("rejects with a refused connection, read as not sent", async () => {
    const { server, origin } = await serve(() => undefined)
    await new Promise<void>((resolve) => server.close(() => resolve()))
    const error = await dispatchForText(pool(origin), {
      path: "/x",
      method: "POST",
      body: "{}",
    }).catch((e: unknown) => e)
    expect(classifyTransportError(error)).toMatchObject({
      sent: false,
      code: "ECONNREFUSED",
    })
  })

  it("turns a dispatcher that throws at once (closed and destroyed) into a rejection", async () => {
    const { server, origin } = await serve((res) => res.end("{}"))
    track(server)
    const closed = new Pool(origin)
    await closed.close()
    const answer = dispatchForText(closed, { path: "/x", method: "GET" })
    await expect(answer).rejects.toMatchObject({ code: "UND_ERR_DESTROYED" })
  })
})
