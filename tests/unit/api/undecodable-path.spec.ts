import { MedusaError } from "@medusajs/framework/utils"
import { pluginErrorHandler } from "../../../src/api/card-service/undecodable-path"

describe("pluginErrorHandler: a path express could not decode", () => {
  // express's decode_param error: a URIError with status 400 and no `expose`.
  const undecodable = () =>
    Object.assign(
      new URIError(
        "Failed to decode param '/card-service/payments/%E0%A4%A/void'"
      ),
      {
        status: 400,
        statusCode: 400,
      }
    )
  const handled = (error: unknown, originalUrl: string) => {
    const fallback = jest.fn()
    pluginErrorHandler(fallback)(
      error,
      { originalUrl } as any,
      {} as any,
      jest.fn()
    )
    expect(fallback).toHaveBeenCalledTimes(1)
    return fallback.mock.calls[0][0]
  }

  it.each([
    "/admin/card-service/payments/%E0%A4%A/transactions",
    "/admin/card-service/payments/%E0%A4%A/void?x=1",
    "/store/card-service/sessions/%E0%A4%A/form",
    "/card-service/pay/%E0%A4%A",
  ])("is invalid data (400) with the guard's sentence on %s", (url) => {
    expect(handled(undecodable(), url)).toMatchObject({
      type: MedusaError.Types.INVALID_DATA,
      message: "The URL is not validly percent-encoded.",
    })
  })

  it.each([
    ["Medusa's own admin routes", "/admin/products/%E0%A4%A"],
    ["a path that only begins like the plugin's", "/card-servicex/%E0%A4%A"],
  ])("leaves %s to Medusa's handler as they are", (_, url) => {
    const error = undecodable()
    expect(handled(error, url)).toBe(error)
  })

  it.each([
    ["another error", new Error("boom")],
    ["a URIError express did not mark 400", new URIError("URI malformed")],
    [
      "a 400 that is no URIError",
      Object.assign(new Error("bad"), { status: 400 }),
    ],
    [
      "something thrown that is not an Error",
      { name: "URIError", status: 400 },
    ],
  ])("passes %s on unchanged", (_, error) => {
    expect(handled(error, "/admin/card-service/payments/pay_1/void")).toBe(
      error
    )
  })
})
