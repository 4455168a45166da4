import semver from "semver"

/**
 * Which Medusa versions `npm run test:compat` builds a store on, from the
 * registry's list of @medusajs/medusa versions and the plugin's peer range
 * for it. Pure: the caller asks the registry.
 */

/** The newest release of each 2.x minor, oldest minor first (pre-releases left out). */
export function newestPatchPerMinor(versions: string[]): string[] {
  const newest = new Map<string, string>()
  for (const version of versions) {
    const parsed = semver.parse(version)
    if (!parsed || parsed.prerelease.length || parsed.major !== 2) continue
    const minor = `${parsed.major}.${parsed.minor}`
    const known = newest.get(minor)
    if (!known || semver.gt(version, known)) newest.set(minor, version)
  }
  return [...newest.values()].sort(semver.compare)
}

export type CompatPlan = {
  /** The newest patch of each minor the peer range accepts. */
  supported: string[]
  /** The newest 2.x on the registry, whether or not the range accepts it. */
  newest: string
}

export function compatPlan(versions: string[], peerRange: string): CompatPlan {
  const minors = newestPatchPerMinor(versions)
  if (!minors.length)
    throw new Error("the registry lists no 2.x release of @medusajs/medusa")
  // The newest patch of a minor may be out of range where the range starts
  // at a later patch of it (>=2.17.2 while 2.17.3 exists is fine; a range
  // ending before a minor's newest patch is not one this plugin declares).
  const supported = minors.filter((version) =>
    semver.satisfies(version, peerRange)
  )
  if (!supported.length) {
    throw new Error(
      `no 2.x release of @medusajs/medusa satisfies the peer range ${peerRange}`
    )
  }
  return { supported, newest: minors[minors.length - 1] }
}

/**
 * The versions `--medusa` names, `--all` or the default ask for, in order
 * and without repeats. `--medusa` takes full versions (2.20.1) or minors
 * (2.20: its newest patch). The default is the oldest supported version and
 * the newest 2.x: the two ends CI runs.
 */
export function chooseVersions(
  plan: CompatPlan,
  registry: string[],
  { medusa, all }: { medusa?: string; all?: boolean }
): string[] {
  let chosen: string[]
  if (all) {
    chosen = [...plan.supported, plan.newest]
  } else if (medusa !== undefined) {
    const minors = newestPatchPerMinor(registry)
    chosen = medusa
      .split(",")
      .map((given) => given.trim())
      .filter(Boolean)
      .map((given) => {
        if (/^\d+\.\d+$/.test(given)) {
          const newest = minors.find((version) =>
            version.startsWith(`${given}.`)
          )
          if (!newest)
            throw new Error(`the registry has no release of Medusa ${given}`)
          return newest
        }
        if (!semver.valid(given)) {
          throw new Error(
            `--medusa takes versions such as 2.20.1 or minors such as 2.20, got ${JSON.stringify(given)}`
          )
        }
        if (!registry.includes(given))
          throw new Error(`the registry has no @medusajs/medusa@${given}`)
        return given
      })
    if (!chosen.length) throw new Error("--medusa names no version")
  } else {
    chosen = [plan.supported[0], plan.newest]
  }
  return [...new Set(chosen)]
}
