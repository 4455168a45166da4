import {
  SESSION_DATA_VERSION,
  type CardServiceSessionData,
} from "../../src/providers/card-service/session-data"

/**
 * The provider's session data for specs that stand in for the provider (no
 * seal is checked): a 30.00 EUR payment of session payses_1, approved as
 * tx_1, nothing captured or refunded. `changes` says what differs.
 */
export function sessionDataFixture(changes: Partial<CardServiceSessionData> = {}): CardServiceSessionData {
  return {
    version: SESSION_DATA_VERSION,
    session_id: "payses_1",
    currency_code: "eur",
    currency: "978",
    amount: 30,
    amount_minor: "3000",
    seal: "seal",
    pay_url: "https://shop.example/pay",
    callback_url: "https://shop.example/callback",
    return_url: "https://shop.example/return",
    form: { action: "https://service.example", method: "POST", enctype: "application/x-www-form-urlencoded", fields: {}, fields_url: "" },
    return_to: null,
    state: "authorized",
    transaction_id: "tx_1",
    email: null,
    card: null,
    failure: null,
    capture: null,
    refunded_amount: 0,
    transactions: [],
    ...changes,
  } as CardServiceSessionData
}
