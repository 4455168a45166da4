/**
 * Numbers from the command line of the benchmarks (read with Node's
 * util.parseArgs): a bad value stops the run with a message that names the
 * option.
 */

/** A number above zero. */
export function positiveNumber(option: string, text: string): number {
  const n = Number(text)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${option}: expected a positive number, got ${text}`)
  return n
}

/** A whole number of one or more. */
export function positiveWhole(option: string, text: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${option}: expected a positive whole number, got ${text}`)
  return n
}
