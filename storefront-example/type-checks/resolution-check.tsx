/**
 * Compiled under moduleResolution node (../tsconfig.json, the starter's),
 * node16 and bundler: each must find the package's types. A wrong prop is
 * expected to be an error, which proves the props are typed (not `any`).
 */
import {
  parseReturnParams,
  resolveCardServiceReturn,
  type CardServiceReturnStep,
} from "medusa-payment-card-service/storefront"
import {
  CardServicePayment,
  useCardServiceForm,
} from "medusa-payment-card-service/storefront/react"

export const back: ReturnType<typeof parseReturnParams> =
  parseReturnParams("?status=paid")

export async function step(): Promise<CardServiceReturnStep> {
  return resolveCardServiceReturn("?session_id=payses_1", {
    backendUrl: "https://api.example",
    publishableKey: "pk_1",
  })
}

export function Form() {
  const form = useCardServiceForm({
    backendUrl: "https://api.example",
    publishableKey: "pk_1",
    sessionId: "payses_1",
  })
  return (
    <>
      {form.status}
      {/* @ts-expect-error sessionId is a string */}
      <CardServicePayment backendUrl="x" publishableKey="y" sessionId={1} />
    </>
  )
}

// The Next.js return route, and the kit-based card form's props.
export { GET } from "medusa-payment-card-service/storefront/next"
import { CardServicePayButton } from "medusa-payment-card-service/storefront/react"

export function PayButton() {
  return (
    <>
      <CardServicePayButton cart={{}} ui={{ Button: () => null }} />
      {/* @ts-expect-error ui.Button is required */}
      <CardServicePayButton cart={{}} ui={{}} />
    </>
  )
}
