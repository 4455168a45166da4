import type { Logger } from "@medusajs/framework/types"
import { fromNumericCurrency } from "../../lib/iso-codes"
import type { ApprovalReversal } from "./approval-reversal"
import { messageOf } from "./error-mapping"
import type { MedusaSessionTerms } from "./medusa-session-terms"
import type { CardServiceSessionData } from "./session-data"
import type { SessionSealer } from "./session-seal"
import type { TransactionLookup } from "./transaction-lookup"
import { redactSessionIds, sessionLogTag } from "../../lib/log-redaction"

/**
 * Approvals no order can use any more. Medusa deletes a cart's payment
 * sessions whenever its total changes; if the shopper had already paid for
 * such a session, or pays for it after, the approval would hold money with
 * no order to show for it: reverse it.
 */
export class OrphanRelease {
  constructor(
    private readonly lookup_: TransactionLookup,
    private readonly reversal_: ApprovalReversal,
    private readonly sealer_: SessionSealer,
    private readonly logger_: Logger,
    private readonly medusaTerms_: MedusaSessionTerms
  ) {}

  /**
   * deletePayment: reverses the session's approval, if it has one that is
   * not captured and Medusa has not authorized the session. Medusa deletes
   * an authorized session only when a cart change raced the completion that
   * authorized it (addToCartWorkflow's cart lock lasts 10 s, a completion
   * on a loaded machine can outlast it): that approval is the order's money
   * and stays. Returns the session as reversed, or null when nothing was.
   * Never throws: deleting a session must not fail the shopper's cart change.
   */
  async releaseDeletedSession(
    session: CardServiceSessionData
  ): Promise<CardServiceSessionData | null> {
    if (
      !session.transaction_id ||
      session.state === "canceled" ||
      session.capture
    ) {
      return null
    }
    try {
      if (await this.medusaTerms_.authorizedByMedusa(session.session_id)) {
        this.logger_.warn(
          `card-service: session ${sessionLogTag(session.session_id)} was deleted after Medusa authorized it; its approval ${session.transaction_id} is kept for the order`
        )
        return null
      }
      const record = await this.lookup_.retrieve(session.transaction_id)
      const { outcome } = this.lookup_.verdict(record, session)
      if (outcome === "approved" || outcome === "mismatch") {
        return await this.reversal_.reverse(session, record)
      }
    } catch (error) {
      // The store owner sees the held approval in the log and the service.
      this.logger_.error(
        `card-service: could not release the approval of deleted session ${redactSessionIds(`${session.session_id}: ${messageOf(error)}`)}`
      )
    }
    return null
  }

  /**
   * A result reported for a session Medusa no longer has (its sessions were
   * deleted before the result arrived). If the transaction is an approval
   * this plugin made for exactly that session, no order can ever use it:
   * reverse it. Returns whether it did.
   */
  async releaseOrphanedApproval(
    sessionId: string,
    transactionId: string
  ): Promise<boolean> {
    const record = await this.lookup_.known(transactionId)
    if (
      !record ||
      !this.sealer_.referenceBelongsTo(
        record.merchantReferenceCode,
        sessionId
      ) ||
      record.step !== "AUTHORIZATION" ||
      record.status !== "successful"
    ) {
      return false
    }
    // All a reversal reads of a session: there is no session data left.
    const orphan = {
      session_id: sessionId,
      currency_code: fromNumericCurrency(record.currencyCode),
      email: null,
      transactions: [],
    } as unknown as CardServiceSessionData
    await this.reversal_.reverse(orphan, record)
    this.logger_.info(
      `card-service: reversed approval ${record.transactionId} of deleted session ${sessionLogTag(sessionId)}`
    )
    return true
  }
}
