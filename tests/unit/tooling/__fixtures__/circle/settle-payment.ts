import { anonymousHint } from "./hint-admission"
import { settledAlready } from "./settled-check"
export type SettleHint = { source: string }
export const settle = (hint: SettleHint) => settledAlready(anonymousHint(hint))
export const cartOfSession = () => null
