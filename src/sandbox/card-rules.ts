/** Card companies the sandbox accepts in the cardType field of section 2.2. */
export const CARD_TYPES = ["VISA", "MASTER", "MASTERCARD", "JCB"] as const
export type CardType = (typeof CARD_TYPES)[number]

export function isCardType(value: string): value is CardType {
  return (CARD_TYPES as readonly string[]).includes(value)
}

export function isMastercardType(cardType: string): boolean {
  return cardType === "MASTER" || cardType === "MASTERCARD"
}

/** The card company that issues a number, from its leading digits (IIN ranges). */
export function brandOfNumber(
  digits: string
): "VISA" | "MASTER" | "JCB" | undefined {
  if (digits.startsWith("4")) {
    return "VISA"
  }
  const two = Number(digits.slice(0, 2))
  const four = Number(digits.slice(0, 4))
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) {
    return "MASTER"
  }
  if (four >= 3528 && four <= 3589) {
    return "JCB"
  }
  return undefined
}

/** Reason 240 unless the stated cardType is the company the number belongs to. */
export function cardTypeMatchesNumber(
  cardType: string,
  digits: string
): boolean {
  const brand = brandOfNumber(digits)
  if (!brand) {
    return false
  }
  return brand === "MASTER" ? isMastercardType(cardType) : brand === cardType
}
