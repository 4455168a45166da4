import { parseOptions } from "../../../src/providers/card-service/options"

const valid = {
  clientCode: "client",
  clientSecret: "secret",
  verifyId: "verify",
  merchantId: "merchant",
  testUrl: "https://test.card.example",
  backendUrl: "https://api.shop.example",
  storefrontUrl: "https://shop.example",
}

function messageFor(raw: unknown): string {
  try {
    parseOptions(raw)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error("parseOptions accepted the options")
}

describe("the messages option", () => {
  it("defaults to none and keeps a store owner's strings by language", () => {
    expect(parseOptions(valid).messages).toEqual({})
    const messages = {
      de: { "pay.back": "Zurück zum Musterladen" },
      "es-MX": { "page.heading": "Pagar {amount}" },
    }
    expect(parseOptions({ ...valid, messages }).messages).toEqual(messages)
  })

  it.each([
    [
      "a key that is not a message (a typo)",
      { de: { "pay.bak": "Zurück" } },
      "messages.de.pay.bak: names a key that is not a message: the keys are those of src/lib/i18n/messages-en.ts",
    ],
    [
      "something that is not a language tag",
      { "Deutsch bitte": { "pay.back": "Zurück" } },
      "messages.Deutsch bitte: must be keyed by language tags such as de or de-CH",
    ],
    [
      "an empty string",
      { fr: { "pay.back": "" } },
      "messages.fr.pay.back: must not be empty",
    ],
  ])("stops boot on %s and names the path", (_, messages, line) => {
    expect(messageFor({ ...valid, messages })).toContain(`  - ${line}`)
  })
})
