import type { TransactionRecord } from "../../src/lib/wire-schemas"

/**
 * A successful authorization as the service's retrieve returns it (section
 * 2.6 fields), for unit tests that need a well-formed record; each test
 * overrides what it is about.
 */
export function authorizationRecord(overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  return {
    merchantReferenceCode: "o",
    transactionId: "t1",
    originalTransactionId: "",
    step: "AUTHORIZATION",
    reasonCode: "100",
    status: "successful",
    cardType: "VISA",
    currencyCode: "978",
    amount: 1,
    cardSuffix: "1111",
    ...overrides,
  } as TransactionRecord
}
