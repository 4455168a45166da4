import {
  BUILT_IN_CATALOGUES,
  catalogueFor,
  chooseLanguage,
  createTranslator,
  ENGLISH_MESSAGES,
  MESSAGE_KEYS,
  parseAcceptLanguage,
} from "../../../src/lib/i18n"

const placeholders = (text: string) =>
  [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

describe("the built-in catalogues", () => {
  it.each(Object.keys(BUILT_IN_CATALOGUES))(
    "%s has every key, none empty, with the English placeholders",
    (language) => {
      const catalogue = BUILT_IN_CATALOGUES[language]
      expect(Object.keys(catalogue).sort()).toEqual([...MESSAGE_KEYS].sort())
      for (const key of MESSAGE_KEYS) {
        expect({ key, text: catalogue[key].trim().length > 0 }).toEqual({
          key,
          text: true,
        })
        expect({ key, placeholders: placeholders(catalogue[key]) }).toEqual({
          key,
          placeholders: placeholders(ENGLISH_MESSAGES[key]),
        })
      }
    }
  )

  it("ships English, German, French and Dutch, each actually translated", () => {
    expect(Object.keys(BUILT_IN_CATALOGUES).sort()).toEqual([
      "de",
      "en",
      "fr",
      "nl",
    ])
    for (const language of ["de", "fr", "nl"]) {
      expect(BUILT_IN_CATALOGUES[language]["failure.declined"]).not.toBe(
        ENGLISH_MESSAGES["failure.declined"]
      )
    }
  })
})

describe("parseAcceptLanguage", () => {
  it.each([
    ["de-DE,de;q=0.9,en;q=0.5", ["de-DE", "de", "en"]],
    ["en;q=0.3, fr-BE", ["fr-BE", "en"]],
    ["nl;q=0, de", ["de"]],
    ["*", []],
    ["", []],
    [undefined, []],
    ["fr;q=abc, de", ["de"]],
  ])("%j -> %j", (header, tags) => {
    expect(parseAcceptLanguage(header)).toEqual(tags)
  })
})

describe("chooseLanguage: cart locale, then Accept-Language, then English", () => {
  it.each([
    [["de-DE"], { locale: "de-DE", catalogue: "de" }],
    [["de-at"], { locale: "de-AT", catalogue: "de" }],
    [["fr-FR", "de-DE"], { locale: "fr-FR", catalogue: "fr" }],
    // A cart locale no catalogue speaks gives way to the browser's.
    [["es-ES", "nl-BE"], { locale: "nl-BE", catalogue: "nl" }],
    [[null, undefined, "nl"], { locale: "nl", catalogue: "nl" }],
    [["not a tag", "x-!!"], { locale: "en", catalogue: "en" }],
    [["sv-SE", "ja"], { locale: "en", catalogue: "en" }],
    [[], { locale: "en", catalogue: "en" }],
  ])("%j -> %j", (candidates, expected) => {
    expect(chooseLanguage(candidates)).toEqual(expected)
  })

  it("speaks a language a store owner added, and prefers its exact regional strings", () => {
    const overrides = {
      es: { "pay.back": "Volver" },
      "de-CH": { "pay.back": "Zurück zum Laden" },
    }
    expect(chooseLanguage(["es-MX"], overrides)).toEqual({
      locale: "es-MX",
      catalogue: "es",
    })
    expect(chooseLanguage(["de-CH"], overrides)).toEqual({
      locale: "de-CH",
      catalogue: "de-ch",
    })
    expect(chooseLanguage(["de-DE"], overrides)).toEqual({
      locale: "de-DE",
      catalogue: "de",
    })
  })
})

describe("catalogueFor: English, under the language, under the store owner's strings", () => {
  const overrides = {
    de: { "pay.back": "Zurück zum Musterladen" },
    "de-CH": { "card.number": "Kartennummer (CH)" },
    es: { "page.heading": "Pagar {amount}" },
  }

  it("lays the store owner's strings over the built-in language", () => {
    const swiss = catalogueFor("de-ch", overrides)
    expect(swiss["card.number"]).toBe("Kartennummer (CH)")
    expect(swiss["pay.back"]).toBe("Zurück zum Musterladen")
    expect(swiss["card.type"]).toBe("Kartenanbieter")
  })

  it("fills what an added language leaves out with English", () => {
    const spanish = catalogueFor("es", overrides)
    expect(spanish["page.heading"]).toBe("Pagar {amount}")
    expect(spanish["card.number"]).toBe("Card number")
  })
})

describe("createTranslator", () => {
  it.each([
    ["de-DE", "eur", 17.4, "17,40\u00a0€"],
    ["en", "eur", 17.4, "€17.40"],
    ["fr-FR", "eur", 1017.4, "1\u202f017,40\u00a0€"],
    ["nl-NL", "eur", 17.4, "€\u00a017,40"],
    ["de-DE", "jpy", 1500, "1.500\u00a0¥"],
    ["en", "kwd", 1.5, "KWD\u00a01.500"],
  ])("%s formats %s %d as %j", (locale, currency, amount, text) => {
    expect(
      createTranslator({ candidates: [locale] }).money(amount, currency)
    ).toBe(text)
  })

  it("fills placeholders and leaves unknown ones visible", () => {
    const t = createTranslator({ candidates: ["de"] })
    expect(t.t("page.title", { amount: "17,40 €", store: "Muster" })).toBe(
      "17,40 € bezahlen - Muster"
    )
    expect(t.t("page.heading")).toBe("{amount} bezahlen")
  })

  it("names countries in the shopper's language", () => {
    expect(createTranslator({ candidates: ["de"] }).countryName("NL")).toBe(
      "Niederlande"
    )
    expect(createTranslator({ candidates: ["fr"] }).countryName("de")).toBe(
      "Allemagne"
    )
  })
})
