import { CallbackDispatcher, CallbackKnobs } from "./callback-delivery"
import { AnswerHolds, FaultQueue } from "./fault-knobs"
import {
  CodeScoping,
  SandboxCredentials,
  SandboxLogger,
} from "./sandbox-options"
import { ChallengeSessions, VerificationCodes } from "./session-store"
import type { RetrieveTally } from "./request-tally"
import type { ReviewDesk } from "./review-desk"
import { ReferenceWindow, TransactionStore } from "./transaction-store"

/**
 * What every endpoint handler works with: one sandbox's settings, stores and
 * callback sender. The test controls build it and the router hands it on, so
 * handlers are plain functions that keep no state of their own.
 */
export type SandboxContext = {
  readonly credentials: SandboxCredentials
  readonly logger: SandboxLogger
  readonly now: () => number
  readonly store: TransactionStore
  readonly references: ReferenceWindow
  readonly challenges: ChallengeSessions
  readonly verificationCodes: VerificationCodes
  readonly dispatcher: CallbackDispatcher
  readonly faults: FaultQueue
  /** Answers held after acting, for the crash-point harness (in process only). */
  readonly holds: AnswerHolds
  /** The code scoping in force (sandbox-options.ts). */
  codeScoping(): CodeScoping
  /** JSON requests that carried a code already posted in a form, by path; refused ones too. */
  readonly formCodeUses: { path: string; refused: boolean }[]
  /** Retrieves answered, per known transaction, and of unknown ones. */
  readonly retrieves: RetrieveTally
  /** Payments marked for review (480) waiting for their verdict. */
  readonly reviews: ReviewDesk
  /** The callback knobs in force for one merchantReferenceCode (global ones plus its own). */
  knobsFor(merchantReferenceCode: string): CallbackKnobs
}
