import { IncomingMessage } from "node:http"
import type { JsonAnswer } from "./json-endpoint"
import { SandboxContext } from "./sandbox-context"

/**
 * GET /authorize (section 5): the client code and secret headers buy a
 * verification code that the other endpoints then require.
 */
export function authorize(
  ctx: SandboxContext,
  req: IncomingMessage
): JsonAnswer {
  const { clientcode, clientsecret } = req.headers
  if (
    clientcode !== ctx.credentials.clientCode ||
    clientsecret !== ctx.credentials.clientSecret
  ) {
    return {
      status: 401,
      payload: {
        error: "invalid_client",
        message:
          "The clientCode and clientSecret headers do not match a merchant.",
      },
    }
  }
  return {
    status: 200,
    payload: { Authorization: ctx.verificationCodes.issue() },
  }
}

/** True when verifyId is the merchant code and code a current verification code. */
export function isVerified(
  ctx: SandboxContext,
  verifyId: unknown,
  code: unknown
): boolean {
  return (
    verifyId === ctx.credentials.verifyId &&
    typeof code === "string" &&
    ctx.verificationCodes.isCurrent(code)
  )
}
