/**
 * Runs in the shopper's browser on the hosted payment page (bundled for the
 * browser by the assets route). It picks the card company from the number,
 * refuses a number that fails the Luhn check (card-validator, through
 * ../card-brands, which the storefront helper shares) and an expiry date in
 * the past, and shows each problem next to its field: tied to it with
 * aria-describedby and aria-invalid, focused, and announced, in the page's
 * language (the page carries the messages; this script carries none). The
 * page works without it: the browser's own checks and the form post remain.
 */
import {
  cardDigits,
  cardTypeFor,
  isPotentiallyValidCardNumber,
  isValidCardNumber,
} from "../card-brands"

type Control = HTMLInputElement | HTMLSelectElement

/** An element of the page by id, as the type the page's markup gives it. */
function byId<T extends HTMLElement>(id: string): T | null {
  return document.getElementById(id) as T | null
}

function start(): void {
  const form = byId<HTMLFormElement>("card-service-form")
  const number = byId<HTMLInputElement>("card-number")
  const company = byId<HTMLSelectElement>("card-type")
  const month = byId<HTMLSelectElement>("expiry-month")
  const year = byId<HTMLSelectElement>("expiry-year")
  const status = document.getElementById("form-status")
  const button = byId<HTMLButtonElement>("pay-button")
  if (!form || !number || !company || !month || !year) return

  const message = (name: string) => form.getAttribute(`data-msg-${name}`) ?? ""
  const controls = Array.from(
    form.querySelectorAll<Control>("input:not([type=hidden]), select")
  )
  // The script's messages replace the browser's bubbles, which are in the
  // browser's language, not the page's, and vanish when they lose focus.
  form.noValidate = true

  function problem(control: Control): string | null {
    const { validity } = control
    if (validity.valueMissing) {
      return message(
        control instanceof HTMLSelectElement ? "choose" : "required"
      )
    }
    if (control === number && !isValidCardNumber(number.value)) {
      return message("card-number")
    }
    if (validity.typeMismatch && control.type === "email") {
      return message("email")
    }
    if (control === month && expired()) return message("expired")
    return validity.valid ? null : message("format")
  }

  function expired(): boolean {
    if (!month!.value || !year!.value) return false
    const now = new Date()
    const chosen = Number(year!.value) * 12 + Number(month!.value)
    return chosen < now.getFullYear() * 12 + now.getMonth() + 1
  }

  function show(control: Control, text: string | null): void {
    const id = `${control.id}-error`
    let note = document.getElementById(id)
    if (!note && text) {
      note = document.createElement("p")
      note.id = id
      note.className = "error"
      control.insertAdjacentElement("afterend", note)
      const described = control.getAttribute("aria-describedby")
      control.setAttribute(
        "aria-describedby",
        described ? `${described} ${id}` : id
      )
    }
    if (note) {
      note.textContent = text ?? ""
      note.hidden = !text
    }
    if (text) control.setAttribute("aria-invalid", "true")
    else control.removeAttribute("aria-invalid")
  }

  /** Re-checks a field that shows a problem, so the message goes once it is fixed. */
  function recheck(control: Control): void {
    if (control.getAttribute("aria-invalid") === "true")
      show(control, problem(control))
  }

  number.addEventListener("input", () => {
    const brand = cardTypeFor(number.value)
    if (brand) company.value = brand
    if (!isPotentiallyValidCardNumber(number.value)) {
      show(number, message("card-number"))
    } else {
      recheck(number)
    }
    recheck(company)
  })
  number.addEventListener("blur", () => {
    if (number.value) show(number, problem(number))
  })
  for (const control of controls) {
    control.addEventListener("change", () => {
      recheck(control)
      if (control === month || control === year) {
        if (expired()) show(month, message("expired"))
        else recheck(month)
      }
    })
  }

  form.addEventListener("submit", (event) => {
    const brand = cardTypeFor(number.value)
    if (brand) company.value = brand
    const invalid = controls.filter((control) => {
      const text = problem(control)
      show(control, text)
      return text !== null
    })
    if (invalid.length) {
      event.preventDefault()
      for (const control of invalid) {
        const details = control.closest("details")
        if (details) details.open = true
      }
      if (status) {
        // Cleared first, so the same sentence is announced again.
        status.textContent = ""
        setTimeout(() => (status.textContent = message("summary")), 50)
      }
      invalid[0].focus()
      return
    }
    // cardAccountNumber is a Number in section 2.2: send digits only.
    number.value = cardDigits(number.value)
    // One post per attempt: a second would repeat the reference (104).
    if (button) setTimeout(() => (button.disabled = true), 0)
  })
  // Back from the service (bfcache): the page may be used again.
  window.addEventListener("pageshow", () => {
    if (button) button.disabled = false
  })

  const details = document.getElementById(
    "billing-details"
  ) as HTMLDetailsElement | null
  const summary = document.getElementById("billing-summary")
  details?.addEventListener("toggle", () => {
    if (details.open || !summary) return
    // The summary says what will be sent, so it follows the shopper's edits.
    const value = (name: string) => {
      const control = details.querySelector<Control>(`[name="${name}"]`)
      if (!control) return ""
      return control instanceof HTMLSelectElement
        ? control.value
          ? control.selectedOptions[0].text
          : ""
        : control.value.trim()
    }
    const place = [value("postalCode"), value("city"), value("state")]
      .filter(Boolean)
      .join(" ")
    const lines = [
      [value("address"), place, value("country")].filter(Boolean).join(", "),
      [value("email"), value("phone")].filter(Boolean).join(" · "),
    ].filter(Boolean)
    summary.replaceChildren()
    lines.forEach((line, index) => {
      if (index) summary.append(document.createElement("br"))
      summary.append(line)
    })
  })
}

start()
