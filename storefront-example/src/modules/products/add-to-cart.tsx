"use client"

import { useRouter } from "next/navigation"
import { useState } from "react"
import { addToCart } from "@lib/data/cart"
import { Button } from "@modules/common/components/ui"

export default function AddToCart({
  variantId,
  countryCode,
}: {
  variantId: string
  countryCode: string
}) {
  const router = useRouter()
  const [adding, setAdding] = useState(false)
  return (
    <Button
      size="large"
      isLoading={adding}
      onClick={async () => {
        setAdding(true)
        await addToCart({ variantId, quantity: 1, countryCode })
        setAdding(false)
        router.push(`/${countryCode}/cart`)
      }}
    >
      Add to cart
    </Button>
  )
}
