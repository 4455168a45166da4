import { applyFollowOn, FollowOnKind } from "./follow-on-rules"
import type { JsonAnswer } from "./json-endpoint"
import { SandboxContext } from "./sandbox-context"

const FOLLOW_ON_PATHS = new Set(["/reverse", "/capture", "/refund", "/void"])

export function isFollowOnPath(pathname: string): boolean {
  return FOLLOW_ON_PATHS.has(pathname)
}

/**
 * POST /reverse, /capture, /refund and /void (sections 2.3 to 2.5): a
 * declined follow-on is still a 200 with the verdict in the body; the rules
 * live in follow-on-rules.ts.
 */
export function followOn(
  ctx: SandboxContext,
  pathname: string,
  body: Record<string, unknown>
): JsonAnswer {
  const kind = pathname.slice(1) as FollowOnKind
  return {
    status: 200,
    payload: applyFollowOn(ctx.store, kind, body, ctx.credentials.merchantId),
  }
}
