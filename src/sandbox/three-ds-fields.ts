import { randomBytes, randomUUID } from "node:crypto"
import { isMastercardType } from "./card-rules"

/**
 * The 3DS result fields of section 2.5, returned when isAuthenticate is N.
 * Values follow EMV 3DS 2.2 conventions so a client can map them the way it
 * would map the real service's: ECI 05/02 for an authenticated cardholder,
 * 07/00 for a failed one.
 */
export type ThreeDsFields = {
  xid: string
  eci: string
  commerceIndicator: string
  cavvAlgorithm: string
  paresStatus: string
  paSpecificationVersion: string
  directoryServerTransactionID: string
  cavv?: string
  ucafCollectionIndicator?: string
  ucafAuthenticationData?: string
}

export function threeDsFields(
  cardType: string,
  authenticated: boolean
): ThreeDsFields {
  const common = {
    xid: randomBytes(20).toString("base64"),
    cavvAlgorithm: "2",
    paresStatus: authenticated ? "Y" : "N",
    paSpecificationVersion: "2.2.0",
    directoryServerTransactionID: randomUUID(),
  }
  // Section 2.5: cavv is not applicable for MASTERCARD, which carries the
  // UCAF fields instead.
  if (isMastercardType(cardType)) {
    return {
      ...common,
      eci: authenticated ? "02" : "00",
      commerceIndicator: authenticated ? "spa" : "internet",
      ucafCollectionIndicator: authenticated ? "2" : "0",
      ucafAuthenticationData: authenticated
        ? randomBytes(20).toString("base64")
        : "",
    }
  }
  const fields: ThreeDsFields = {
    ...common,
    eci: authenticated ? "05" : "07",
    commerceIndicator: authenticated
      ? cardType === "JCB"
        ? "js"
        : "vbv"
      : "internet",
  }
  // A failed authentication has no issuer value; the field stays present
  // (empty) so VISA and JCB results always carry the same set of fields.
  fields.cavv = authenticated ? randomBytes(20).toString("base64") : ""
  return fields
}
