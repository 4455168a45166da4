import { ReactNode } from "react"
import { renderToStaticMarkup } from "react-dom/server"
import {
  CardServiceForm,
  CardServicePayButton,
} from "../../../src/storefront/react"

/**
 * The starter's kit stands in as components that record their props: what
 * CardServiceForm and CardServicePayButton hand the store's own components
 * is what the shopper sees there. Server rendering (no effects run).
 */
type Props = Record<string, unknown> & { children?: ReactNode }
const seen: Array<{ name: string; props: Props }> = []
const recording = (name: string) =>
  function Recorded(props: Props) {
    seen.push({ name, props })
    return <>{props.children}</>
  }
const kit = {
  Button: recording("Button"),
  ErrorMessage: recording("ErrorMessage"),
  Input: recording("Input"),
  NativeSelect: recording("NativeSelect"),
  Label: recording("Label"),
}

const ready = {
  email: "ada@example.com",
  shipping_address: {},
  billing_address: {},
  shipping_methods: [{}],
  payment_collection: {
    payment_sessions: [
      {
        id: "payses_1",
        provider_id: "pp_card-service_card-service",
        status: "pending",
        data: { pay_url: "https://api.shop.test/card-service/pay/payses_1" },
      },
    ],
  },
}

beforeEach(() => {
  seen.length = 0
})

const propsOf = (name: string) =>
  seen.filter((s) => s.name === name).map((s) => s.props)

describe("CardServicePayButton (the hosted-page variant)", () => {
  it("is the starter's large Place order button, as its neighbours are", () => {
    renderToStaticMarkup(<CardServicePayButton cart={ready} ui={kit} />)
    expect(propsOf("Button")).toEqual([
      expect.objectContaining({
        size: "large",
        disabled: false,
        "data-testid": "submit-order-button",
        children: "Place order",
      }),
    ])
  })

  it("waits for the starter's notReady: no delivery method yet, no paying", () => {
    renderToStaticMarkup(
      <CardServicePayButton
        cart={{ ...ready, shipping_methods: [] }}
        ui={kit}
      />
    )
    expect(propsOf("Button")[0].disabled).toBe(true)
  })

  it("cannot start without a card-service session (the cart changed and Medusa dropped it)", () => {
    renderToStaticMarkup(
      <CardServicePayButton
        cart={{ ...ready, payment_collection: { payment_sessions: [] } }}
        ui={kit}
      />
    )
    expect(propsOf("Button")[0].disabled).toBe(true)
  })
})

describe("CardServiceForm (the card form in the starter's components)", () => {
  it("asks only for the card, in the kit's Input and NativeSelect with the starter's props", () => {
    const html = renderToStaticMarkup(
      <CardServiceForm
        cart={ready}
        ui={kit}
        backendUrl="https://api.shop.test"
        publishableKey="pk_1"
      />
    )
    const [number] = propsOf("Input")
    expect(number).toMatchObject({
      label: "Card number",
      name: "card-number",
      id: "card-number",
    })
    // The starter's Input takes no error prop and NativeSelect no label:
    // the message goes in an ErrorMessage, the label in the kit's Label.
    expect(number).not.toHaveProperty("error")
    for (const select of propsOf("NativeSelect"))
      expect(select).not.toHaveProperty("label")
    expect(propsOf("Label").map((p) => p.children)).toEqual([
      "Expiry month",
      "Expiry year",
    ])
    expect(propsOf("Button").at(-1)).toMatchObject({
      type: "submit",
      size: "large",
    })
    expect(html).not.toMatch(/first.?name|billing/i)
  })
})
