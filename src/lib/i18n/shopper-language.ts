import { de } from "./messages-de"
import { en, type Catalogue, type MessageKey } from "./messages-en"
import { fr } from "./messages-fr"
import { nl } from "./messages-nl"

/** The languages the plugin ships, by primary language subtag. */
export const BUILT_IN_CATALOGUES: Readonly<Record<string, Catalogue>> = {
  en,
  de,
  fr,
  nl,
}

/**
 * A store owner's additions and corrections (the `messages` provider
 * option): language tag -> some keys. A tag that is not built in adds a
 * language; what it leaves out reads in English.
 */
export type MessageOverrides = Readonly<
  Record<string, Partial<Record<MessageKey, string>>>
>

export type Translator = {
  /** The BCP 47 tag for `lang` and for Intl: "de-DE", "en". */
  locale: string
  /** The catalogue in use: "de", or a store owner's own tag such as "de-ch". */
  catalogue: string
  t(key: MessageKey, values?: Record<string, string>): string
  /** "17,40 €" for de-DE, "€17.40" for en: the currency's own digits, the locale's style. */
  money(amount: number, currencyCode: string): string
  /** A country's name in the shopper's language, from its ISO 3166-1 alpha-2 code. */
  countryName(alpha2: string): string
  /** Sorts text as the shopper's language sorts it. */
  compare(a: string, b: string): number
}

const MAX_ACCEPT_LANGUAGE_ENTRIES = 12

/**
 * The tags of an Accept-Language header, most wanted first ("de-DE,de;q=0.9,
 * en;q=0.5" -> de-DE, de, en). `*` and q=0 are left out; a malformed entry
 * is skipped, not guessed at.
 */
export function parseAcceptLanguage(
  header: string | null | undefined
): string[] {
  if (!header) return []
  return header
    .split(",")
    .slice(0, MAX_ACCEPT_LANGUAGE_ENTRIES)
    .map((part, index) => {
      const [tag, ...params] = part.trim().split(";")
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
      const weight = q ? Number(q.slice(2)) : 1
      return {
        tag: tag.trim(),
        weight: Number.isFinite(weight) ? weight : 0,
        index,
      }
    })
    .filter(({ tag, weight }) => tag && tag !== "*" && weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map(({ tag }) => tag)
}

/** A well-formed BCP 47 tag in canonical case ("de-de" -> "de-DE"), or null. */
export function canonicalTag(tag: string | null | undefined): string | null {
  if (!tag || typeof tag !== "string" || tag.length > 35) return null
  try {
    return Intl.getCanonicalLocales(tag.trim().replace(/_/g, "-"))[0] ?? null
  } catch {
    return null
  }
}

/**
 * The first candidate (cart locale first, then the browser's languages) that
 * a catalogue speaks, matched by full tag, then by its language alone
 * ("de-AT" reads the German catalogue, and Intl formats as in Austria).
 * English when none does.
 */
export function chooseLanguage(
  candidates: ReadonlyArray<string | null | undefined>,
  overrides: MessageOverrides = {}
): { locale: string; catalogue: string } {
  const available = new Set([
    ...Object.keys(BUILT_IN_CATALOGUES),
    ...Object.keys(overrides).map((tag) => tag.toLowerCase()),
  ])
  for (const candidate of candidates) {
    const locale = canonicalTag(candidate)
    if (!locale) continue
    const full = locale.toLowerCase()
    if (available.has(full)) return { locale, catalogue: full }
    const language = full.split("-")[0]
    if (available.has(language)) return { locale, catalogue: language }
  }
  return { locale: "en", catalogue: "en" }
}

/** English, under the built-in language, under the store owner's strings for it. */
export function catalogueFor(
  catalogue: string,
  overrides: MessageOverrides = {}
): Catalogue {
  const byTag = new Map(
    Object.entries(overrides).map(([tag, strings]) => [
      tag.toLowerCase(),
      strings,
    ])
  )
  const language = catalogue.split("-")[0]
  const layers = [
    BUILT_IN_CATALOGUES[language],
    byTag.get(language),
    catalogue !== language ? byTag.get(catalogue) : undefined,
  ]
  const merged: Catalogue = { ...en }
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer ?? {})) {
      if (typeof value === "string" && value && key in en) {
        merged[key as MessageKey] = value
      }
    }
  }
  return merged
}

export function createTranslator(input: {
  /** Most preferred first: the cart's locale, then Accept-Language's tags. */
  candidates: ReadonlyArray<string | null | undefined>
  overrides?: MessageOverrides
}): Translator {
  const overrides = input.overrides ?? {}
  const { locale, catalogue } = chooseLanguage(input.candidates, overrides)
  const strings = catalogueFor(catalogue, overrides)
  // Made on first use: most answers (a redirect, a message page) need neither.
  let collator: Intl.Collator | undefined
  let regions: Intl.DisplayNames | undefined
  return {
    locale,
    catalogue,
    t(key, values = {}) {
      return strings[key].replace(/\{(\w+)\}/g, (match, name: string) =>
        Object.prototype.hasOwnProperty.call(values, name)
          ? values[name]
          : match
      )
    },
    money(amount, currencyCode) {
      return new Intl.NumberFormat(locale, {
        style: "currency",
        currency: currencyCode.toUpperCase(),
      }).format(amount)
    },
    countryName(alpha2) {
      try {
        regions ??= new Intl.DisplayNames([locale, "en"], {
          type: "region",
          fallback: "code",
        })
        return regions.of(alpha2.toUpperCase()) ?? alpha2
      } catch {
        return alpha2
      }
    },
    compare(a, b) {
      collator ??= new Intl.Collator(locale)
      return collator.compare(a, b)
    },
  }
}
