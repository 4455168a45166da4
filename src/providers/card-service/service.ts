import {
  AbstractPaymentProvider,
  MedusaError,
  PaymentSessionStatus,
} from "@medusajs/framework/utils"
import type {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  DeletePaymentInput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  Logger,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from "@medusajs/framework/types"
import { CardServiceOptions, parseOptions } from "./options"

type InjectedDependencies = {
  logger: Logger
}

export default class CardServiceProviderService extends AbstractPaymentProvider<CardServiceOptions> {
  static identifier = "card-service"

  protected readonly options_: CardServiceOptions
  protected readonly logger_: Logger

  static validateOptions(options: Record<string, unknown>): void {
    parseOptions(options)
  }

  constructor(container: InjectedDependencies, options: Record<string, unknown>) {
    super(container, options as CardServiceOptions)
    this.options_ = parseOptions(options)
    this.logger_ = container.logger
  }

  async initiatePayment({
    amount,
    currency_code,
    context,
  }: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const sessionId = context?.idempotency_key ?? ""
    return {
      id: sessionId,
      status: PaymentSessionStatus.PENDING,
      data: { session_id: sessionId, amount, currency_code },
    }
  }

  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    return this.initiatePayment(input)
  }

  async authorizePayment(_: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    throw this.notYet("authorizePayment")
  }

  async capturePayment(_: CapturePaymentInput): Promise<CapturePaymentOutput> {
    throw this.notYet("capturePayment")
  }

  async refundPayment(_: RefundPaymentInput): Promise<RefundPaymentOutput> {
    throw this.notYet("refundPayment")
  }

  async cancelPayment(_: CancelPaymentInput): Promise<CancelPaymentOutput> {
    throw this.notYet("cancelPayment")
  }

  async deletePayment({ data }: DeletePaymentInput): Promise<DeletePaymentOutput> {
    return { data }
  }

  async getPaymentStatus(_: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    return { status: PaymentSessionStatus.PENDING }
  }

  async retrievePayment({ data }: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    return { data }
  }

  async getWebhookActionAndData(
    _: ProviderWebhookPayload["payload"]
  ): Promise<WebhookActionResult> {
    return { action: "not_supported" }
  }

  private notYet(method: string): MedusaError {
    return new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `card-service: ${method} is not implemented yet`
    )
  }
}
