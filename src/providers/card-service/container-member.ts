import { container as appContainer } from "@medusajs/framework"
import type { MedusaContainer } from "@medusajs/framework/types"
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

/**
 * The application's container (the one Medusa boots every module from)
 * when it has `key` registered; null otherwise, as for a provider built
 * outside Medusa. The provider's own container, the payment module's, has
 * neither the locking module nor query.
 */
export function applicationWith(key: string): MedusaContainer | null {
  try {
    return appContainer.hasRegistration(key) ? appContainer : null
  } catch {
    return null
  }
}
