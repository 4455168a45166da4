import { IncomingMessage, ServerResponse } from "node:http"

/** The largest request body the sandbox reads; the card service's forms and JSON are far smaller. */
export const MAX_BODY_BYTES = 64 * 1024

export function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/"
  const q = url.indexOf("?")
  return q < 0 ? url : url.slice(0, q)
}

/** The media type of the request body, lower case and without parameters ("" when absent). */
export function mediaTypeOf(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase()
}

/** Reads the whole body; undefined when it exceeds the limit (the rest is discarded). */
export function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        tooLarge = true
        chunks.length = 0
      } else {
        chunks.push(chunk)
      }
    })
    req.on("end", () => resolve(tooLarge ? undefined : Buffer.concat(chunks)))
    req.on("error", reject)
  })
}

export async function drain(req: IncomingMessage): Promise<void> {
  await readBody(req)
}

export function sendJson(
  res: ServerResponse,
  status: number,
  payload: unknown
): void {
  const body = JSON.stringify(payload)
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
  })
  res.end(body)
}

/** Pages are never cached: each one shows the state of one payment at one moment. */
export function sendHtml(
  res: ServerResponse,
  status: number,
  html: string,
  onSent?: () => void
): void {
  if (onSent) {
    res.once("finish", onSent)
  }
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(html),
    "cache-control": "no-store",
  })
  res.end(html)
}

/** 303 See Other, so the browser follows with a GET whatever it sent. */
export function redirect(
  res: ServerResponse,
  location: string,
  onSent: () => void
): void {
  res.once("finish", onSent)
  res.writeHead(303, {
    location,
    "cache-control": "no-store",
    "content-length": 0,
  })
  res.end()
}
