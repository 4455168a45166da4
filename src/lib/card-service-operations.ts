import type { z } from "zod"
import type { CardServiceErrorCategory } from "./card-service-error"
import {
  AuthorizeResponseSchema,
  FollowOnRequestSchema,
  OperationResultSchema,
  TransactionRecordSchema,
  VoidRequestSchema,
  type OperationResult,
  type TransactionRecord,
} from "./wire-schemas"

/**
 * The operations of card-service-interface.md section 4 as data (house
 * style, after stripe-node's method specs): what each sends, what it answers,
 * whether it may be sent again after a failure, and which credentials it
 * carries. The sender reads these fields; nothing else in the client knows a
 * path or a schema.
 */

export type OperationName =
  "authorize" | "reverse" | "capture" | "refund" | "void" | "retrieve"

/** How the sender reads an answer. */
export type AnswerKind =
  /** A 2.5 verdict (4.3, 4.4): ACCEPT is the result, REJECT an error carrying the reason code. */
  | "verdict"
  /** A document (4.1 code, 4.5 record): a 200 is the result, `refusals` name other statuses. */
  | "document"

/** A status other than 200 that a document operation answers with a known meaning. */
export type KnownRefusal = {
  category: CardServiceErrorCategory
  detail: string
  /** Append the service's own error text (scrubbed of secrets). */
  quoteService: boolean
}

export type CardServiceOperation<Result> = {
  /** Names the operation in errors and logs. */
  name: OperationName
  method: "GET" | "POST"
  /**
   * Below baseUrl. {merchantId} is filled in once per client; an operation
   * addressed by a transaction id (retrieve) ends where the sender appends it.
   */
  path: string
  /** The body's schema, parsed before sending (house style 7); none for a GET. */
  request?: z.ZodType<Record<string, unknown>>
  /** The 200 answer's schema, safe-parsed: drift becomes invalid_response. */
  response: z.ZodType<Result>
  /**
   * The request changes nothing at the service (a GET), so transport
   * failures and 5xx are retried. A money operation is sent once: after a
   * failure the service may have acted (house style 6).
   */
  retrySafe: boolean
  /** Carries the section 5 code (4.3 headers) rather than clientCode/clientSecret (4.1). */
  verificationCode: boolean
  answer: AnswerKind
  refusals?: Readonly<Partial<Record<number, KnownRefusal>>>
}

/** A money operation (4.3, 4.4): always has a body, answers a 2.5 verdict. */
export type MoneyOperation = CardServiceOperation<OperationResult> & {
  request: z.ZodType<Record<string, unknown>>
}

export type AuthorizeAnswer = z.infer<typeof AuthorizeResponseSchema>

const CREDENTIALS_REFUSED: KnownRefusal = {
  category: "credentials",
  detail: "the service refused clientCode/clientSecret",
  quoteService: true,
}

/** Sections 4.3 and 4.4: all POST a JSON body and answer with the 2.5 fields. */
function moneyOperation(
  name: OperationName,
  request: z.ZodType<Record<string, unknown>>
): MoneyOperation {
  return {
    name,
    method: "POST",
    path: `/${name}`,
    request,
    response: OperationResultSchema,
    retrySafe: false,
    verificationCode: true,
    answer: "verdict",
  }
}

/** Section 4.1: a new merchant verification code (section 5). */
const authorize: CardServiceOperation<AuthorizeAnswer> = {
  name: "authorize",
  method: "GET",
  path: "/authorize",
  response: AuthorizeResponseSchema,
  retrySafe: true,
  verificationCode: false,
  answer: "document",
  refusals: { 401: CREDENTIALS_REFUSED, 403: CREDENTIALS_REFUSED },
}

/** Section 4.5: the 2.1 record of one transaction of this merchant. */
const retrieve: CardServiceOperation<TransactionRecord> = {
  name: "retrieve",
  method: "GET",
  path: "/payment/retrieve/{merchantId}/",
  response: TransactionRecordSchema,
  retrySafe: true,
  verificationCode: true,
  answer: "document",
  refusals: {
    404: {
      category: "invalid_request",
      detail: "the service has no such transaction for this merchant",
      quoteService: false,
    },
  },
}

export const OPERATIONS = {
  authorize,
  /** Releases an approval. */
  reverse: moneyOperation("reverse", FollowOnRequestSchema),
  capture: moneyOperation("capture", FollowOnRequestSchema),
  refund: moneyOperation("refund", FollowOnRequestSchema),
  /** Of a CAPTURE or REFUND transaction; its body is the 2.4 one. */
  void: moneyOperation("void", VoidRequestSchema),
  retrieve,
} as const

/** Every operation's path below one service address, resolved once per client. */
export function operationPaths(
  basePath: string,
  merchantId: string
): Readonly<Record<OperationName, string>> {
  const mid = encodeURIComponent(merchantId)
  const paths = {} as Record<OperationName, string>
  for (const operation of Object.values(OPERATIONS)) {
    paths[operation.name] =
      basePath + operation.path.split("{merchantId}").join(mid)
  }
  return paths
}
