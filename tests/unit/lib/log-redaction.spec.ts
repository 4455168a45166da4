import { REDACTED, redact, redactText } from "../../../src/lib"

describe("redact: secrets and card data never reach a log", () => {
  it("replaces secret-named keys at any depth, in any case", () => {
    const out = redact({
      headers: {
        clientCode: "c1",
        clientSecret: "pw",
        Authorization: "code",
        verifyId: "v1",
      },
      form: {
        cardAccountNumber: "4111111111111111",
        cvv: "123",
        email: "a@b.c",
      },
      list: [{ AUTHORIZATION: "x" }],
    })
    expect(out).toEqual({
      headers: {
        clientCode: "c1",
        clientSecret: REDACTED,
        Authorization: REDACTED,
        verifyId: "v1",
      },
      form: { cardAccountNumber: REDACTED, cvv: REDACTED, email: "a@b.c" },
      list: [{ AUTHORIZATION: REDACTED }],
    })
  })

  it.each([
    ["card 4111111111111111 declined", "card ************1111 declined"],
    ["pan=5555 5555 5555 4444", "pan=************4444"],
    ["amex 3782-822463-10005", "amex ***********0005"],
  ])("masks Luhn-valid card numbers in text: %p", (input, expected) => {
    expect(redactText(input)).toBe(expected)
  })

  it("leaves ids that are not card numbers readable", () => {
    expect(redactText("transaction 1234567890123456 ok")).toBe(
      "transaction 1234567890123456 ok"
    )
    expect(redactText("tx 7001234567890123456789")).toBe(
      "tx 7001234567890123456789"
    )
    expect(redactText("amount 10.50 EUR 978")).toBe("amount 10.50 EUR 978")
  })

  it("replaces known secret values wherever they appear", () => {
    expect(
      redactText("got code abcd-1234 with pw hunter22", [
        "abcd-1234",
        "hunter22",
      ])
    ).toBe(`got code ${REDACTED} with pw ${REDACTED}`)
    expect(redact({ note: "x hunter22 y" }, ["hunter22"])).toEqual({
      note: `x ${REDACTED} y`,
    })
  })

  it("survives cycles and errors", () => {
    const a: Record<string, unknown> = { name: "a" }
    a.self = a
    expect(redact(a)).toEqual({ name: "a", self: "[circular]" })
    expect(redact({ e: new Error("card 4111111111111111") })).toEqual({
      e: { name: "Error", message: "card ************1111" },
    })
  })
})
