import type { SettleHint } from "./settle-payment"
export const anonymousHint = (hint: SettleHint) => hint
