/**
 * Keeps secrets and card data out of logs and error messages.
 *
 * Section 5 puts the client secret and the verification code in request
 * headers (clientSecret, Authorization) and section 2.2 puts the card number
 * in a form field (cardAccountNumber); none of them may be written anywhere.
 */
import { passesLuhn } from "./luhn"

export const REDACTED = "[redacted]"

/** Keys whose values are never logged, whatever they hold. */
const SECRET_KEY =
  /^(clientsecret|authorization|proxy-authorization|cookie|set-cookie|password|secret|cardaccountnumber|cardnumber|pan|cvv|cvc|cvn|cardsecuritycode|securitycode|cavv|ucafauthenticationdata)$/i

/**
 * Runs of 12-19 digits, optionally grouped by single spaces or dashes, the
 * length range of card numbers (ISO/IEC 7812).
 */
const DIGIT_RUN = /(?<![\d])\d(?:[ -]?\d){11,18}(?![\d])/g

/**
 * Masks card-number-like digit runs in free text, keeping the last four.
 * Only Luhn-valid runs are masked, so long transaction ids stay readable.
 */
export function redactText(
  text: string,
  secrets: readonly string[] = []
): string {
  let out = text
  for (const secret of secrets) {
    // Very short values would mask ordinary words; credentials are longer.
    if (secret && secret.length >= 4) {
      out = out.split(secret).join(REDACTED)
    }
  }
  return out.replace(DIGIT_RUN, (match) => {
    const digits = match.replace(/[ -]/g, "")
    if (!passesLuhn(digits)) {
      return match
    }
    return `${"*".repeat(digits.length - 4)}${digits.slice(-4)}`
  })
}

export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key)
}

/**
 * A copy of `value` that is safe to log: secret-named keys are replaced,
 * strings are masked by redactText, and any known secret value (the client
 * secret, the current verification code) is replaced wherever it appears.
 */
export function redact<T>(value: T, secrets: readonly string[] = []): T {
  return redactValue(value, secrets, new WeakSet()) as T
}

function redactValue(
  value: unknown,
  secrets: readonly string[],
  seen: WeakSet<object>
): unknown {
  if (typeof value === "string") {
    return redactText(value, secrets)
  }
  if (value === null || typeof value !== "object") {
    return value
  }
  if (seen.has(value)) {
    return "[circular]"
  }
  seen.add(value)
  if (Array.isArray(value)) {
    return value.map((item) => redactValue(item, secrets, seen))
  }
  if (value instanceof Error) {
    return { name: value.name, message: redactText(value.message, secrets) }
  }
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    out[key] = isSecretKey(key) ? REDACTED : redactValue(item, secrets, seen)
  }
  return out
}

/** Characters of a session id a log line keeps: its last six. */
const SESSION_TAG_CHARS = 6

/** Medusa's session ids, as they may appear inside a message. */
const SESSION_ID = /\bpayses_[0-9A-Za-z]+/g

/**
 * A session id as a log line shows it: `payses_…` and its last six
 * characters. A session id opens the pay page with the shopper's email,
 * phone and address (telemetry-names.ts keeps it out of telemetry for the
 * same reason), and logs are read by more people, and kept longer, than the
 * admin. The tail lets an owner match the line to the session in the admin;
 * the 20 characters left out (a ULID's time and most of its randomness)
 * cannot be guessed. Characters other than letters and digits become `?`,
 * so an id from a request cannot forge a log line.
 */
export function sessionLogTag(sessionId: string): string {
  return `payses_…${sessionId.slice(-SESSION_TAG_CHARS).replace(/[^0-9A-Za-z]/g, "?")}`
}

/** Free text (an error's message) with every session id in it as sessionLogTag shows it. */
export function redactSessionIds(text: string): string {
  return text.replace(SESSION_ID, sessionLogTag)
}
