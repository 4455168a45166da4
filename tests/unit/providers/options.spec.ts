import {
  CardServiceOptionsSchema,
  parseOptions,
  serviceBaseUrl,
} from "../../../src/providers/card-service/options"

const SECRET = "s3cr3t-value-that-must-not-leak"

const valid = {
  clientCode: "client",
  clientSecret: SECRET,
  verifyId: "verify",
  merchantId: "merchant",
  testUrl: "https://test.card.example",
  backendUrl: "https://api.shop.example",
  storefrontUrl: "https://shop.example",
}

/** The message parseOptions throws, or a failure when it does not throw. */
function messageFor(raw: unknown): string {
  try {
    parseOptions(raw)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error("parseOptions accepted the options")
}

describe("parseOptions: defaults", () => {
  it("fills every default a store owner may leave out", () => {
    const options = parseOptions(valid)
    expect(options).toMatchObject({
      mode: "test",
      allowedReturnOrigins: [],
      storeName: "Our shop",
      returnPath: "/checkout/card-service",
      autoCapture: false,
      windowed: false,
      redirectOnFailure: true,
      timeouts: { connectMs: 5_000, headersMs: 20_000, bodyMs: 20_000 },
    })
    expect(options.sessionSecret).toBeUndefined()
    expect(options.liveUrl).toBeUndefined()
  })

  it("keeps the timeouts that are given and defaults the rest", () => {
    const options = parseOptions({ ...valid, timeouts: { headersMs: 1000 } })
    expect(options.timeouts).toEqual({
      connectMs: 5_000,
      headersMs: 1000,
      bodyMs: 20_000,
    })
  })

  it.each([
    ["https://shop.example", "payments@shop.example"],
    ["https://www.shop.example:8443/de", "payments@www.shop.example"],
    // A host without a dot is no deliverable domain; 2.3 still needs an address.
    ["http://localhost:8000", "payments@localhost.localdomain"],
  ])(
    "defaults merchantEmail from storefrontUrl %s to %s",
    (storefrontUrl, email) => {
      expect(parseOptions({ ...valid, storefrontUrl }).merchantEmail).toBe(
        email
      )
    }
  )

  it("keeps a merchantEmail that is given", () => {
    expect(
      parseOptions({ ...valid, merchantEmail: "billing@shop.example" })
        .merchantEmail
    ).toBe("billing@shop.example")
  })

  it.each([
    ["testUrl", "https://test.card.example/", "https://test.card.example"],
    [
      "testUrl",
      "https://test.card.example/api//",
      "https://test.card.example/api",
    ],
    ["backendUrl", "https://api.shop.example/", "https://api.shop.example"],
    ["storefrontUrl", "https://shop.example///", "https://shop.example"],
  ])("trims trailing slashes of %s (%s)", (key, given, expected) => {
    expect(parseOptions({ ...valid, [key]: given })[key as "testUrl"]).toBe(
      expected
    )
  })

  it("trims trailing slashes of every allowed return origin", () => {
    expect(
      parseOptions({
        ...valid,
        allowedReturnOrigins: ["https://a.example/", "https://b.example"],
      }).allowedReturnOrigins
    ).toEqual(["https://a.example", "https://b.example"])
  })
})

describe("parseOptions: mode chooses the address", () => {
  it.each([
    [{ mode: "test" }, "https://test.card.example"],
    [
      { mode: "live", liveUrl: "https://live.card.example/" },
      "https://live.card.example",
    ],
    [
      {
        mode: "live",
        testUrl: undefined,
        liveUrl: "https://live.card.example",
      },
      "https://live.card.example",
    ],
  ])("%j uses %s", (change, url) => {
    expect(serviceBaseUrl(parseOptions({ ...valid, ...change }))).toBe(url)
  })

  it("needs testUrl in test mode", () => {
    const message = messageFor({ ...valid, testUrl: undefined })
    expect(message).toContain('testUrl: is required when mode is "test"')
  })

  it("needs liveUrl in live mode, even when testUrl is set", () => {
    const message = messageFor({ ...valid, mode: "live" })
    expect(message).toContain('liveUrl: is required when mode is "live"')
    expect(message).not.toContain("testUrl")
  })

  it("refuses a mode other than test or live", () => {
    expect(messageFor({ ...valid, mode: "production" })).toMatch(
      /^ {2}- mode: /m
    )
  })
})

describe("parseOptions: every bad option is named with how to fix it", () => {
  it.each([
    [
      "clientCode",
      undefined,
      "is required: the client code the card service gave you",
    ],
    [
      "clientCode",
      "",
      "is required: the client code the card service gave you",
    ],
    [
      "clientSecret",
      undefined,
      "is required: the client secret the card service gave you",
    ],
    [
      "verifyId",
      "",
      "is required: the verifyId (merchant code) the card service gave you",
    ],
    ["merchantId", undefined, "is required: your merchant MID"],
    [
      "backendUrl",
      "api.shop.example",
      "must be an absolute URL such as https://shop.example.com",
    ],
    ["storefrontUrl", undefined, "storefrontUrl: must be an absolute URL such as https://shop.example.com"],
    ["testUrl", "not a url", "must be an absolute URL"],
    ["merchantEmail", "nobody", "must be an e-mail address"],
    ["returnPath", "checkout", "must start with /"],
    ["sessionSecret", "short", "must be at least 32 characters"],
    ["autoCapture", "yes", "autoCapture: must be true or false"],
    [
      "timeouts",
      { connectMs: -1 },
      "timeouts.connectMs: must be a whole number of milliseconds above 0",
    ],
    ["allowedReturnOrigins", ["nope"], "must be an absolute URL"],
  ])("%s = %j", (key, value, hint) => {
    const message = messageFor({ ...valid, [key]: value })
    const line = message.split("\n").find((l) => l.startsWith(`  - ${key}`))
    expect(line).toBeDefined()
    expect(line).toContain(hint)
    expect(message).toContain("medusa-config.ts")
  })

  it("names all bad paths at once, one line each", () => {
    const message = messageFor({
      clientSecret: SECRET,
      backendUrl: "nope",
      storefrontUrl: "https://shop.example",
    })
    const paths = message
      .split("\n")
      .filter((line) => line.startsWith("  - "))
      .map((line) => line.slice(4).split(":")[0])
    expect(paths.sort()).toEqual([
      "backendUrl",
      "clientCode",
      "merchantId",
      "testUrl",
      "verifyId",
    ])
  })

  it("names the options themselves when they are missing altogether", () => {
    expect(messageFor(undefined)).toContain("clientCode: is required")
    expect(messageFor("not an object")).toContain("(options)")
  })
})

describe("parseOptions: an empty value from the environment means not set", () => {
  // `X=` in .env gives process.env.X === "": a store leaves settings it does
  // not use empty, and passes process.env straight into the options.
  it.each([
    ["mode", "", { mode: "test" }],
    ["mode", "  ", { mode: "test" }],
    ["liveUrl", "", { liveUrl: undefined }],
    ["sessionSecret", "", { sessionSecret: undefined }],
    ["merchantEmail", "", { merchantEmail: "payments@shop.example" }],
    ["storeName", "", { storeName: "Our shop" }],
    ["returnPath", "", { returnPath: "/checkout/card-service" }],
    ["allowedReturnOrigins", "", { allowedReturnOrigins: [] }],
    ["autoCapture", "", { autoCapture: false }],
    ["windowed", "", { windowed: false }],
    ["redirectOnFailure", "", { redirectOnFailure: true }],
    [
      "timeouts",
      "",
      { timeouts: { connectMs: 5_000, headersMs: 20_000, bodyMs: 20_000 } },
    ],
  ])("%s = %j takes the default", (key, value, expected) => {
    expect(parseOptions({ ...valid, [key]: value })).toMatchObject(expected)
  })

  it("an empty testUrl is fine in live mode", () => {
    const options = parseOptions({
      ...valid,
      mode: "live",
      testUrl: "",
      liveUrl: "https://live.card.example",
    })
    expect(options.testUrl).toBeUndefined()
    expect(serviceBaseUrl(options)).toBe("https://live.card.example")
  })

  it("a store's whole .env, test mode with the live URL, mode and session secret left empty", () => {
    const env: Record<string, string> = {
      CARD_SERVICE_CLIENT_CODE: "client",
      CARD_SERVICE_CLIENT_SECRET: SECRET,
      CARD_SERVICE_VERIFY_ID: "verify",
      CARD_SERVICE_MERCHANT_ID: "merchant",
      CARD_SERVICE_MODE: "",
      CARD_SERVICE_TEST_URL: "https://test.card.example",
      CARD_SERVICE_LIVE_URL: "",
      CARD_SERVICE_SESSION_SECRET: "",
      MEDUSA_BACKEND_URL: "https://api.shop.example",
      STOREFRONT_URL: "https://shop.example",
    }
    const options = parseOptions({
      clientCode: env.CARD_SERVICE_CLIENT_CODE,
      clientSecret: env.CARD_SERVICE_CLIENT_SECRET,
      verifyId: env.CARD_SERVICE_VERIFY_ID,
      merchantId: env.CARD_SERVICE_MERCHANT_ID,
      mode: env.CARD_SERVICE_MODE,
      testUrl: env.CARD_SERVICE_TEST_URL,
      liveUrl: env.CARD_SERVICE_LIVE_URL,
      backendUrl: env.MEDUSA_BACKEND_URL,
      storefrontUrl: env.STOREFRONT_URL,
      sessionSecret: env.CARD_SERVICE_SESSION_SECRET,
    })
    expect(options).toMatchObject({
      mode: "test",
      liveUrl: undefined,
      sessionSecret: undefined,
    })
    expect(serviceBaseUrl(options)).toBe("https://test.card.example")
  })

  it.each([
    ["clientCode", "", "is required", "CARD_SERVICE_CLIENT_CODE"],
    ["clientSecret", " ", "is required", "CARD_SERVICE_CLIENT_SECRET"],
    ["merchantId", "", "is required", "CARD_SERVICE_MERCHANT_ID"],
    ["backendUrl", "", "must be an absolute URL", "MEDUSA_BACKEND_URL"],
    ["storefrontUrl", "", "must be an absolute URL", "STOREFRONT_URL"],
    ["testUrl", "", 'is required when mode is "test"', "CARD_SERVICE_TEST_URL"],
    ["mode", "production", 'must be "test" or "live"', "CARD_SERVICE_MODE"],
    [
      "sessionSecret",
      "short",
      "must be at least 32 characters",
      "CARD_SERVICE_SESSION_SECRET",
    ],
  ])(
    "%s = %j is named with the variable the README sets it from",
    (key, value, hint, envName) => {
      const line = messageFor({ ...valid, [key]: value })
        .split("\n")
        .find((l) => l.startsWith(`  - ${key}:`))
      expect(line).toContain(hint)
      expect(line).toContain(envName)
      expect(line).toContain("an empty value counts as not set")
    }
  )

  it("an empty liveUrl in live mode is missing, named with CARD_SERVICE_LIVE_URL", () => {
    const line = messageFor({ ...valid, mode: "live", liveUrl: "" })
      .split("\n")
      .find((l) => l.startsWith("  - liveUrl:"))
    expect(line).toContain('is required when mode is "live"')
    expect(line).toContain("CARD_SERVICE_LIVE_URL")
  })
})

describe("parseOptions: switches, numbers and lists as the environment spells them", () => {
  it.each([
    ["autoCapture", "true", true],
    ["autoCapture", "false", false],
    ["windowed", "true", true],
    ["redirectOnFailure", "false", false],
  ])("%s = %j is %j", (key, value, expected) => {
    expect(parseOptions({ ...valid, [key]: value })[key as "autoCapture"]).toBe(
      expected
    )
  })

  it.each([["yes"], ["1"], ["TRUE "]])(
    "autoCapture = %j is refused with how to fix it",
    (value) => {
      expect(messageFor({ ...valid, autoCapture: value })).toContain(
        "  - autoCapture: must be true or false"
      )
    }
  )

  it("takes timeouts written as whole numbers", () => {
    expect(
      parseOptions({ ...valid, timeouts: { connectMs: "1500", bodyMs: "" } })
        .timeouts
    ).toEqual({
      connectMs: 1500,
      headersMs: 20_000,
      bodyMs: 20_000,
    })
  })

  it.each([["1.5s"], ["0"], ["-3"]])(
    "refuses timeouts.connectMs = %j",
    (value) => {
      expect(
        messageFor({ ...valid, timeouts: { connectMs: value } })
      ).toContain(
        "  - timeouts.connectMs: must be a whole number of milliseconds above 0"
      )
    }
  )

  it("takes allowedReturnOrigins as one comma-separated string", () => {
    expect(
      parseOptions({
        ...valid,
        allowedReturnOrigins: "https://a.example/, https://b.example,",
      }).allowedReturnOrigins
    ).toEqual(["https://a.example", "https://b.example"])
  })

  it("names a bad origin in that string by its position", () => {
    expect(
      messageFor({ ...valid, allowedReturnOrigins: "https://a.example,nope" })
    ).toContain("  - allowedReturnOrigins.1: must be an absolute URL")
  })
})

describe("parseOptions: no value is echoed", () => {
  it.each([
    ["a secret next to a bad option", { ...valid, backendUrl: "x" }],
    ["a secret given where a URL belongs", { ...valid, testUrl: SECRET }],
    [
      "a secret given as the session secret that is too short",
      { ...valid, sessionSecret: SECRET.slice(0, 20) },
    ],
    ["a secret given as the e-mail", { ...valid, merchantEmail: SECRET }],
    ["a secret given as the mode", { ...valid, mode: SECRET }],
    ["a secret given as a number", { ...valid, clientCode: 12345678901 }],
  ])("%s", (_, raw) => {
    const message = messageFor(raw)
    expect(message).not.toContain(SECRET)
    expect(message).not.toContain(SECRET.slice(0, 20))
    expect(message).not.toContain("12345678901")
  })
})

describe("validateOptions and the schema agree", () => {
  it("the schema alone accepts what parseOptions accepts", () => {
    expect(CardServiceOptionsSchema.safeParse(valid).success).toBe(true)
  })
})
