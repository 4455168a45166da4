export { failureMessageKey } from "./failure-messages"
export { en as ENGLISH_MESSAGES, MESSAGE_KEYS } from "./messages-en"
export type { Catalogue, MessageKey } from "./messages-en"
export {
  BUILT_IN_CATALOGUES,
  canonicalTag,
  catalogueFor,
  chooseLanguage,
  createTranslator,
  parseAcceptLanguage,
} from "./shopper-language"
export type { MessageOverrides, Translator } from "./shopper-language"
