/**
 * A member of the container Medusa builds the provider in (the payment
 * module's own), or null where it is missing: an awilix cradle throws for a
 * name it does not know, and a provider built outside Medusa (the contract
 * tests) gets a plain object. `method` names the function the member must
 * have to be used.
 */
export function containerMember<T>(
  container: unknown,
  name: string,
  method: keyof T & string
): T | null {
  let member: unknown
  try {
    member = (container as Record<string, unknown>)[name]
  } catch {
    member = undefined
  }
  return member &&
    typeof (member as Record<string, unknown>)[method] === "function"
    ? (member as T)
    : null
}
