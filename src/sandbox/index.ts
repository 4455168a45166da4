import { CardServiceSandbox } from "./sandbox-server"
import { SandboxOptions } from "./sandbox-options"

export { CardServiceSandbox } from "./sandbox-server"
export { DEFAULT_CREDENTIALS } from "./sandbox-options"
export type {
  CodeScoping,
  SandboxCredentials,
  SandboxLogger,
  SandboxOptions,
} from "./sandbox-options"
export type { CallbackDelivery, CallbackKnobs } from "./callback-delivery"
export { DEFAULT_CALLBACK_KNOBS } from "./callback-delivery"
export type { FaultSpec, HeldAnswer, HoldSpec } from "./fault-knobs"
export type { OpenReview, ReviewVerdict } from "./review-desk"
export { parseFault, parseKnobs } from "./control-handler"
export type { NetworkLatency } from "./network-latency"
export { parseLatency } from "./network-latency"
export type { SandboxRequest } from "./request-log"
export type {
  TransactionRecord,
  CaptureStatus,
  Step,
} from "./transaction-store"
export type { OperationResult } from "./follow-on-rules"
export type { TestCard } from "./test-cards"
export {
  DEFAULT_CARD_BEHAVIOUR,
  TEST_CARDS,
  TEST_INPUTS,
  findTestCard,
} from "./test-cards"

/** Starts the card-service sandbox on `options.port` (0: any free port) and resolves once it listens. */
export function startSandbox(
  options: SandboxOptions = {}
): Promise<CardServiceSandbox> {
  return new CardServiceSandbox(options).listen()
}
