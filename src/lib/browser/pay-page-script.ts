/**
 * Runs in the shopper's browser on the hosted payment page (bundled for the
 * browser by the assets route). It picks the card company from the number
 * and refuses a number that fails the Luhn check, with card-validator
 * (Braintree's library), before the form goes to the card service. The page
 * works without it: the form posts all the same.
 */
import { number as validateNumber } from "card-validator"

/** card-validator's brand names -> the service's cardType values (section 2.2). */
const SERVICE_CARD_TYPES: Record<string, string> = {
  visa: "VISA",
  mastercard: "MASTER",
  jcb: "JCB",
  "american-express": "AMEX",
  "diners-club": "DINERS",
  discover: "DISCOVER",
}

function start(): void {
  const form = document.getElementById("card-service-form") as HTMLFormElement | null
  const numberInput = document.getElementById("card-number") as HTMLInputElement | null
  const typeSelect = document.getElementById("card-type") as HTMLSelectElement | null
  const error = document.getElementById("card-error") as HTMLElement | null
  if (!form || !numberInput || !typeSelect || !error) return

  const showError = (message: string | null) => {
    error.textContent = message ?? ""
    error.hidden = !message
    numberInput.setAttribute("aria-invalid", message ? "true" : "false")
  }

  numberInput.addEventListener("input", () => {
    const verdict = validateNumber(numberInput.value)
    const brand = verdict.card ? SERVICE_CARD_TYPES[verdict.card.type] : undefined
    if (brand) typeSelect.value = brand
    if (verdict.isPotentiallyValid) showError(null)
  })

  form.addEventListener("submit", (event) => {
    const digits = numberInput.value.replace(/\D/g, "")
    const verdict = validateNumber(digits)
    if (!verdict.isValid) {
      event.preventDefault()
      showError("This card number is not valid. Please check it.")
      numberInput.focus()
      return
    }
    const brand = verdict.card ? SERVICE_CARD_TYPES[verdict.card.type] : undefined
    if (brand) typeSelect.value = brand
    // cardAccountNumber is a Number in section 2.2: send digits only.
    numberInput.value = digits
  })
}

start()
