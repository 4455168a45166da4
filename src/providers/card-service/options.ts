import { z } from "zod"
import { MESSAGE_KEYS } from "../../lib/i18n"

/**
 * `process.env.X` is "" for `X=` in a .env file, which is how a store leaves
 * a setting it does not use (a live URL in test mode). Every option treats a
 * blank string as not set, here in the schema, so any medusa-config that
 * passes environment variables straight through works, not only ours.
 */
function unsetWhenBlank(value: unknown): unknown {
  return typeof value === "string" && value.trim() === "" ? undefined : value
}

/** A list, which an environment variable carries comma-separated. */
function commaList(value: unknown): unknown {
  const given = unsetWhenBlank(value)
  return typeof given === "string"
    ? given
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean)
    : given
}

const fromEnv = <T extends z.ZodType>(schema: T) =>
  z.preprocess(unsetWhenBlank, schema)

/**
 * The options a store owner may change in the admin (Settings > Card
 * service; admin-settings.ts). Everything else (backendUrl, storefrontUrl,
 * sessionSecret, timeouts, messages...) stays in medusa-config.ts: those
 * shape URLs and keys that open payment sessions depend on.
 */
export const ADMIN_SETTING_KEYS = [
  "mode",
  "testUrl",
  "liveUrl",
  "merchantId",
  "verifyId",
  "clientCode",
  "clientSecret",
  "autoCapture",
  "windowed",
  "redirectOnFailure",
  "allowedReturnOrigins",
] as const

const url = z
  .string({ error: "must be an absolute URL such as https://shop.example.com" })
  .url("must be an absolute URL such as https://shop.example.com")
  .transform((value) => value.replace(/\/+$/, ""))

const required = (hint: string) => {
  const message = `is required: ${hint}`
  return fromEnv(z.string({ error: message }).min(1, message))
}

/** A switch; "true" and "false" are what an environment variable can carry. */
const flag = (fallback: boolean) =>
  z.preprocess(
    (value) => {
      const given = unsetWhenBlank(value)
      if (given === "true") return true
      if (given === "false") return false
      return given
    },
    z.boolean({ error: "must be true or false" }).default(fallback)
  )

const milliseconds = (fallback: number) => {
  const message = "must be a whole number of milliseconds above 0"
  return z.preprocess(
    (value) => {
      const given = unsetWhenBlank(value)
      return typeof given === "string" && /^\d+$/.test(given.trim())
        ? Number(given)
        : given
    },
    z
      .number({ error: message })
      .int(message)
      .positive(message)
      .default(fallback)
  )
}

/**
 * The environment variable the README's medusa-config snippet reads each
 * option from, so a bad value can be traced to the line of .env that set it.
 */
export const OPTION_ENV_NAMES: Readonly<Record<string, string>> = {
  clientCode: "CARD_SERVICE_CLIENT_CODE",
  clientSecret: "CARD_SERVICE_CLIENT_SECRET",
  verifyId: "CARD_SERVICE_VERIFY_ID",
  merchantId: "CARD_SERVICE_MERCHANT_ID",
  mode: "CARD_SERVICE_MODE",
  testUrl: "CARD_SERVICE_TEST_URL",
  liveUrl: "CARD_SERVICE_LIVE_URL",
  backendUrl: "MEDUSA_BACKEND_URL",
  storefrontUrl: "STOREFRONT_URL",
  sessionSecret: "CARD_SERVICE_SESSION_SECRET",
  reconcile: "CARD_SERVICE_RECONCILE",
  reconcileGraceMs: "CARD_SERVICE_RECONCILE_GRACE_MS",
  reviewTimeoutMs: "CARD_SERVICE_REVIEW_TIMEOUT_MS",
  lockedSettings: "CARD_SERVICE_LOCKED_SETTINGS",
}

/**
 * The provider's options, given under the payment module in medusa-config.ts.
 * One schema: `validateOptions` parses it at boot, and the provider's type is
 * inferred from it.
 */
export const CardServiceOptionsSchema = z
  .object({
    /** Client code issued by the card service, sent to GET /authorize (section 4.1). */
    clientCode: required("the client code the card service gave you"),
    /** Client secret paired with clientCode. Never logged, never sent to a browser. */
    clientSecret: required("the client secret the card service gave you"),
    /** The merchant code (`verifyId`) sent with every payment operation (section 5). */
    verifyId: required(
      "the verifyId (merchant code) the card service gave you"
    ),
    /** The merchant MID (`merchantId`) of sections 2.2-2.4. */
    merchantId: required("your merchant MID"),
    /** Which address of the service to use: `test` ({test_base_url}) or `live` ({base_url}). */
    mode: fromEnv(
      z
        .enum(["test", "live"], { error: 'must be "test" or "live"' })
        .default("test")
    ),
    /** The service's test address. Required when mode is `test`. */
    testUrl: fromEnv(url.optional()),
    /** The service's live address. Required when mode is `live`. */
    liveUrl: fromEnv(url.optional()),
    /**
     * The public URL of this Medusa backend. The card service posts results to
     * `{backendUrl}/card-service/callback/...` and sends the browser back to
     * `{backendUrl}/card-service/return/...`, so it must be reachable from both.
     */
    backendUrl: fromEnv(url),
    /** The storefront the shopper returns to after paying. */
    storefrontUrl: fromEnv(url),
    /**
     * Further origins a storefront may ask the shopper to be returned to
     * (besides storefrontUrl's own). Anything else is refused, so the return
     * route is no open redirect. From the environment: comma-separated.
     */
    allowedReturnOrigins: z.preprocess(
      commaList,
      z.array(url, { error: "must be a list of absolute URLs" }).default([])
    ),
    /**
     * E-mail sent with follow-ons (2.3 requires one) when the shopper's is not
     * known. Defaults to payments@ the storefront's host.
     */
    merchantEmail: fromEnv(
      z.string().email("must be an e-mail address").optional()
    ),
    /** The shop's name on the hosted payment page. */
    storeName: fromEnv(z.string().min(1).default("Our shop")),
    /**
     * Shopper-facing strings to add or override, by language tag: `{ de: {
     * "pay.back": "Zurück zu Muster & Co" }, es: { ... } }`. Built in: en, de,
     * fr, nl; a new tag adds a language (missing keys read in English). Keys
     * are those of src/lib/i18n/messages-en.ts; an unknown key stops boot.
     */
    messages: z
      .record(
        z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/),
        z.partialRecord(z.enum(MESSAGE_KEYS), z.string().min(1, "must not be empty"), {
          error: "names a key that is not a message: the keys are those of src/lib/i18n/messages-en.ts",
        }),
        { error: "must be keyed by language tags such as de or de-CH" }
      )
      .default({}),
    /**
     * Where the shopper lands after paying: `{storefrontUrl}{returnPath}` with
     * `?status=...` (see the README, "Storefront"). A storefront may ask for
     * another return URL per session (data.return_to) on an allowed origin.
     */
    returnPath: fromEnv(
      z
        .string()
        .startsWith("/", "must start with /")
        .default("/checkout/card-service")
    ),
    /** Capture right after approval (Medusa marks the payment captured at once). Default off. */
    autoCapture: flag(false),
    /**
     * `isWindowed` of section 2.2: false moves the page to the 3DS step and back;
     * true authenticates in a new window. Sent explicitly on every request
     * because the interface's two defaults disagree.
     */
    windowed: flag(false),
    /**
     * `isRedirect` of section 2.2: return the shopper to the store even when 3DS
     * fails, so the storefront can offer another try. Default on.
     */
    redirectOnFailure: flag(true),
    /** Timeouts of the HTTP client, in milliseconds. */
    timeouts: z.preprocess(
      (value) => unsetWhenBlank(value) ?? {},
      z.object({
        connectMs: milliseconds(5_000),
        headersMs: milliseconds(20_000),
        bodyMs: milliseconds(20_000),
      })
    ),
    /**
     * Key for sealing what the plugin later trusts in public session data
     * (HMAC-SHA256). Derived from the credentials when not given; set it to
     * keep sessions valid across a credential rotation. At least 32 characters.
     */
    sessionSecret: fromEnv(
      z.string().min(32, "must be at least 32 characters").optional()
    ),
    /**
     * Let the scheduled sweep (src/jobs/card-service-reconcile.ts) settle this
     * provider's unfinished payments. Default on; the schedule itself is
     * CARD_SERVICE_RECONCILE_SCHEDULE (Medusa reads it before options exist).
     */
    reconcile: flag(true),
    /**
     * How long after the last payment attempt without any result the sweep
     * marks the session "outcome unknown" for the store owner. Default 15 minutes.
     */
    reconcileGraceMs: milliseconds(15 * 60 * 1000),
    /**
     * How long an order on hold (its payment marked for review, 480) waits
     * for the review's verdict before it is canceled, its stock released.
     * An approval that comes later is reversed. Default 72 hours.
     */
    reviewTimeoutMs: milliseconds(72 * 60 * 60 * 1000),
    /**
     * Calls to the service per second that requests nobody authenticated (pay
     * page, form route, callback, return) may cause on one Medusa instance,
     * with a burst of five seconds' worth (src/checkout/call-budget.ts).
     */
    anonymousCallRate: z.preprocess(
      (value) => {
        const given = unsetWhenBlank(value)
        return typeof given === "string" && /^\d+$/.test(given.trim()) ? Number(given) : given
      },
      z
        .number({ error: "must be a whole number of calls per second above 0" })
        .int("must be a whole number of calls per second above 0")
        .positive("must be a whole number of calls per second above 0")
        .default(20)
    ),
    /**
     * Options the admin may not override (Settings > Card service shows them
     * read-only, "set in code"): a list of option names such as
     * `["mode", "clientSecret"]` (src/providers/card-service/admin-settings.ts
     * lists which the admin can change). From the environment:
     * comma-separated. Default: none locked.
     */
    lockedSettings: z.preprocess(
      commaList,
      z
        .array(
          z.enum(ADMIN_SETTING_KEYS, {
            error: `must name an option the admin may change: ${ADMIN_SETTING_KEYS.join(", ")}`,
          }),
          { error: "must be a list of option names" }
        )
        .default([])
    ),
  })
  // `when` runs these checks even when other options are bad (zod skips
  // refinements of an invalid object by default), so one boot names every
  // problem. The value may then be partly unparsed: read it defensively.
  .refine((options) => addressGiven(options, "test", "testUrl"), {
    path: ["testUrl"],
    message:
      'is required when mode is "test": the card service\'s test address',
    when: () => true,
  })
  .refine((options) => addressGiven(options, "live", "liveUrl"), {
    path: ["liveUrl"],
    message:
      'is required when mode is "live": the card service\'s live address',
    when: () => true,
  })

function addressGiven(
  options: unknown,
  mode: string,
  key: "testUrl" | "liveUrl"
): boolean {
  if (typeof options !== "object" || options === null) return true
  const record = options as Record<string, unknown>
  return record.mode !== mode || Boolean(record[key])
}

export type CardServiceOptionsInput = z.input<typeof CardServiceOptionsSchema>
export type CardServiceOptions = z.infer<typeof CardServiceOptionsSchema> & {
  merchantEmail: string
}

/**
 * Parses the options and throws one message naming every bad path and how to
 * fix it. Values are never echoed: a secret must not end up in a boot log.
 */
export function parseOptions(raw: unknown): CardServiceOptions {
  const result = CardServiceOptionsSchema.safeParse(raw ?? {})
  if (result.success) {
    const host = new URL(result.data.storefrontUrl).hostname
    return {
      ...result.data,
      merchantEmail:
        result.data.merchantEmail ??
        `payments@${host.includes(".") ? host : `${host}.localdomain`}`,
    }
  }
  const lines = result.error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join(".") : "(options)"
    const envName = OPTION_ENV_NAMES[String(issue.path[0])]
    const source = envName
      ? ` (${envName} in the README's setup; an empty value counts as not set)`
      : ""
    return `  - ${path}: ${issue.message}${source}`
  })
  throw new Error(
    `card-service provider options are invalid:\n${lines.join("\n")}\n` +
      'Set them under the payment module\'s providers entry in medusa-config.ts (see the README, "Options").'
  )
}

export function serviceBaseUrl(options: CardServiceOptions): string {
  return (options.mode === "live" ? options.liveUrl : options.testUrl) as string
}
