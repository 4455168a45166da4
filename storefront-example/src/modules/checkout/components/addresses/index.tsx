"use client"

import { HttpTypes } from "@medusajs/types"
import { usePathname, useRouter, useSearchParams } from "next/navigation"
import { useActionState } from "react"
import { setAddresses } from "@lib/data/cart"
import { Button } from "@modules/common/components/ui"
import ErrorMessage from "@modules/checkout/components/error-message"
import Input from "@modules/common/components/input"
import NativeSelect from "@modules/common/components/native-select"
import StepHeader from "@modules/checkout/components/step-header"

export default function Addresses({ cart }: { cart: HttpTypes.StoreCart }) {
  const searchParams = useSearchParams()
  const router = useRouter()
  const pathname = usePathname()
  const isOpen = (searchParams.get("step") ?? "address") === "address"
  const [message, formAction, pending] = useActionState(setAddresses, null)
  const address = cart.shipping_address
  const done = !!(address?.address_1 && cart.email)

  return (
    <section className="border-b border-ui-border pb-8">
      <StepHeader
        title="Shipping Address"
        done={done}
        open={isOpen}
        onEdit={() => router.push(`${pathname}?step=address`)}
      />
      {isOpen ? (
        <form action={formAction} className="flex flex-col gap-4">
          <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
            <Input
              label="First name"
              name="first_name"
              autoComplete="given-name"
              required
              defaultValue={address?.first_name ?? ""}
            />
            <Input
              label="Last name"
              name="last_name"
              autoComplete="family-name"
              required
              defaultValue={address?.last_name ?? ""}
            />
            <Input
              label="Address"
              name="address_1"
              autoComplete="address-line1"
              required
              defaultValue={address?.address_1 ?? ""}
            />
            <Input
              label="Postal code"
              name="postal_code"
              autoComplete="postal-code"
              required
              defaultValue={address?.postal_code ?? ""}
            />
            <Input
              label="City"
              name="city"
              autoComplete="address-level2"
              required
              defaultValue={address?.city ?? ""}
            />
            <NativeSelect
              name="country_code"
              aria-label="Country"
              placeholder="Country"
              autoComplete="country"
              required
              defaultValue={address?.country_code ?? ""}
            >
              {cart.region?.countries?.map((country) => (
                <option key={country.iso_2} value={country.iso_2}>
                  {country.display_name}
                </option>
              ))}
            </NativeSelect>
            <Input
              label="Email"
              name="email"
              type="email"
              autoComplete="email"
              required
              defaultValue={cart.email ?? ""}
            />
            <Input
              label="Phone"
              name="phone"
              type="tel"
              autoComplete="tel"
              defaultValue={address?.phone ?? ""}
            />
          </div>
          <ErrorMessage error={message} data-testid="address-error-message" />
          <Button
            size="large"
            type="submit"
            isLoading={pending}
            className="self-start"
          >
            Continue to delivery
          </Button>
        </form>
      ) : done ? (
        <div className="grid grid-cols-1 gap-4 text-sm sm:grid-cols-3">
          <div>
            <p className="font-medium">Shipping address</p>
            <p className="text-ui-fg-subtle">
              {address?.first_name} {address?.last_name}
              <br />
              {address?.address_1}
              <br />
              {address?.postal_code} {address?.city},{" "}
              {address?.country_code?.toUpperCase()}
            </p>
          </div>
          <div>
            <p className="font-medium">Contact</p>
            <p className="text-ui-fg-subtle">
              {address?.phone}
              <br />
              {cart.email}
            </p>
          </div>
          <div>
            <p className="font-medium">Billing address</p>
            <p className="text-ui-fg-subtle">Same as shipping address.</p>
          </div>
        </div>
      ) : null}
    </section>
  )
}
