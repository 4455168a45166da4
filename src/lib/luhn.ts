/**
 * The Luhn (mod 10) check of card numbers (ISO/IEC 7812). Shared by the log
 * redaction, which masks only digit runs that pass it, and the sandbox, which
 * answers reason 231 to a number that fails it. Takes digits only.
 */
export function passesLuhn(digits: string): boolean {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return sum % 10 === 0
}
