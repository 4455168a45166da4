export { GET } from "medusa-payment-card-service/storefront/next"
