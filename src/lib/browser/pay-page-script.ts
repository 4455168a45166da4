/**
 * Runs in the shopper's browser on the hosted payment page (bundled for the
 * browser by the assets route). It picks the card company from the number
 * and refuses a number that fails the Luhn check, with card-validator
 * (Braintree's library, through ../card-brands, which the storefront helper
 * shares), before the form goes to the card service. The page
 * works without it: the form posts all the same.
 */
import {
  cardDigits,
  cardTypeFor,
  isPotentiallyValidCardNumber,
  isValidCardNumber,
} from "../card-brands"

function start(): void {
  const form = document.getElementById(
    "card-service-form"
  ) as HTMLFormElement | null
  const numberInput = document.getElementById(
    "card-number"
  ) as HTMLInputElement | null
  const typeSelect = document.getElementById(
    "card-type"
  ) as HTMLSelectElement | null
  const error = document.getElementById("card-error") as HTMLElement | null
  if (!form || !numberInput || !typeSelect || !error) return

  const showError = (message: string | null) => {
    error.textContent = message ?? ""
    error.hidden = !message
    numberInput.setAttribute("aria-invalid", message ? "true" : "false")
  }

  numberInput.addEventListener("input", () => {
    const brand = cardTypeFor(numberInput.value)
    if (brand) typeSelect.value = brand
    if (isPotentiallyValidCardNumber(numberInput.value)) showError(null)
  })

  form.addEventListener("submit", (event) => {
    const digits = cardDigits(numberInput.value)
    if (!isValidCardNumber(digits)) {
      event.preventDefault()
      showError("This card number is not valid. Please check it.")
      numberInput.focus()
      return
    }
    const brand = cardTypeFor(digits)
    if (brand) typeSelect.value = brand
    // cardAccountNumber is a Number in section 2.2: send digits only.
    numberInput.value = digits
  })
}

start()
