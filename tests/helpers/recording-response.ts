/** A route's response, recorded: status, headers, body, redirect. */
export function recordingResponse() {
  const res = {
    statusCode: 200,
    headers: {} as Record<string, unknown>,
    body: undefined as unknown,
    location: undefined as string | undefined,
    status(code: number) {
      res.statusCode = code
      return res
    },
    json(body: unknown) {
      res.body = body
      return res
    },
    end(body?: unknown) {
      res.body = Buffer.isBuffer(body) ? body.toString("utf8") : body
      return res
    },
    setHeader(name: string, value: unknown) {
      res.headers[name.toLowerCase()] = value
      return res
    },
    getHeader(name: string) {
      return res.headers[name.toLowerCase()]
    },
    redirect(code: number, url: string) {
      res.statusCode = code
      res.location = url
      return res
    },
  }
  return res
}
