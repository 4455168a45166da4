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

/**
 * The credential check of a JSON endpoint: isVerified, and under "scoped"
 * code scoping not a code that went into a payment form. Every use of a form
 * code is noted (formCodeUses), so a test sees it under either kind.
 */
export function isVerifiedForJson(
  ctx: SandboxContext,
  req: IncomingMessage,
  pathname: string
): boolean {
  const code = req.headers.authorization
  if (!isVerified(ctx, req.headers.verifyid, code)) {
    return false
  }
  if (!ctx.verificationCodes.isFormCode(code as string)) {
    return true
  }
  const refused = ctx.codeScoping() === "scoped"
  // Bounded: the list is for tests, and a long-running sandbox keeps it small.
  if (ctx.formCodeUses.length < 1000) {
    ctx.formCodeUses.push({ path: pathname, refused })
  }
  return !refused
}
