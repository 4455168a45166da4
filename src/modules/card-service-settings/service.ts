import { MedusaService } from "@medusajs/framework/utils"
import {
  SECRET_SETTING_KEYS,
  type AdminSettingKey,
  type StoredSettingValues,
} from "../../providers/card-service/admin-settings"
import {
  publishSettingsSource,
  type CardServiceSettingsSource,
  type StoredSettingsSnapshot,
} from "../../providers/card-service/settings-source"
import { CardServiceSettings } from "./models/card-service-settings"
import { CardServiceSettingsChange } from "./models/card-service-settings-change"
import { openStoredSecrets, storeSecret, type StoredSecrets } from "./stored-secrets"

/** Who saved: from the admin request's auth context. */
export type SettingsActor = {
  actor_type: string | null
  actor_id: string | null
  actor_email: string | null
}

/** A save: a value per changed setting; null returns it to medusa-config.ts. */
export type SettingsChanges = Partial<Record<AdminSettingKey, unknown>>

/** What the admin may see of the stored row: plain values, and only when each secret was set. */
export type StoredSettingsView = {
  values: StoredSettingValues
  secrets: Partial<Record<AdminSettingKey, { set_at: string }>>
  updated_at: string | null
}

type SettingsRow = {
  id: string
  values: Record<string, unknown> | null
  secrets: StoredSecrets | null
  updated_at: Date | string
}

const isSecret = (key: string) =>
  (SECRET_SETTING_KEYS as readonly string[]).includes(key)

/**
 * How long a finished read of the settings' revision answers for: a change
 * saved on another instance is in force here that much later at most.
 */
export const REVISION_FRESH_MS = 1000

/**
 * The card-service settings module: one row of the store owner's settings
 * and the trail of who changed them. It is also the settings source the
 * provider reads for every payment (settings-source.ts): the row is cached,
 * checked against its revision on each read, and dropped by `invalidate()`,
 * which the save's event calls on the instance that handles it
 * (src/subscribers).
 */
export default class CardServiceSettingsModuleService
  extends MedusaService({ CardServiceSettings, CardServiceSettingsChange })
  implements CardServiceSettingsSource
{
  protected cached_: Promise<StoredSettingsSnapshot> | null = null

  constructor(...args: any[]) {
    // @ts-ignore MedusaService's constructor takes the module's cradle.
    super(...args)
    publishSettingsSource(this)
  }

  /**
   * The stored values with their secrets opened, cached (see the class
   * comment). Each call still reads the row's revision (id and updated_at,
   * one indexed row): Medusa's Redis event bus hands an event to one
   * instance only, so the event alone would leave the others on a stale
   * cache. The full row is read and its secrets opened only when the
   * revision moved.
   */
  async current(): Promise<StoredSettingsSnapshot> {
    const cached = this.cached_ ? await this.cached_.catch(() => null) : null
    if (cached && cached.revision === (await this.sharedRevision_())) return cached
    const loading = this.load_()
    this.cached_ = loading
    // A failed read is not cached: the next payment tries again.
    loading.catch(() => {
      if (this.cached_ === loading) this.cached_ = null
    })
    return loading
  }

  protected revisionInFlight_: Promise<string> | null = null
  /** The last revision read that succeeded, and when it finished (ms since the epoch). */
  protected revisionRead_: { revision: string; at: number } | null = null

  /**
   * revision_(), with callers that ask while a read is under way sharing it
   * instead of queueing a read each, and callers within REVISION_FRESH_MS of
   * the last read taking its answer: every payment operation asks (a
   * checkout asks three to five times), and each read is a statement that
   * waits for a pooled connection behind the carts being completed. A change
   * saved on another instance is therefore in force here within about a
   * second; on the instance that saved it at once (invalidate()).
   */
  protected sharedRevision_(): Promise<string> {
    const last = this.revisionRead_
    if (!this.revisionInFlight_ && last && Date.now() - last.at < REVISION_FRESH_MS) {
      return Promise.resolve(last.revision)
    }
    if (!this.revisionInFlight_) {
      const reading = this.revision_()
      this.revisionInFlight_ = reading
      const done = () => {
        if (this.revisionInFlight_ === reading) this.revisionInFlight_ = null
      }
      reading.then((revision) => {
        done()
        this.revisionRead_ = { revision, at: Date.now() }
      }, done)
    }
    return this.revisionInFlight_
  }

  /** Drops the cached row: the next payment reads it again. */
  invalidate(): void {
    this.cached_ = null
    this.revisionRead_ = null
  }

  async view(): Promise<StoredSettingsView> {
    const row = await this.row_()
    const secrets = row?.secrets ?? {}
    return {
      values: (row?.values ?? {}) as StoredSettingValues,
      secrets: Object.fromEntries(
        Object.entries(secrets).map(([key, sealed]) => [key, { set_at: sealed.set_at }])
      ),
      updated_at: row ? new Date(row.updated_at).toISOString() : null,
    }
  }

  /**
   * Stores the changes (secrets sealed, nulls removed) and writes one trail
   * entry per setting that changed. Checking the values is the caller's job
   * (the admin route parses them with the options schema and tries the
   * credentials first).
   */
  async saveSettings(changes: SettingsChanges, actor: SettingsActor): Promise<void> {
    const row = await this.row_()
    const values: Record<string, unknown> = { ...(row?.values ?? {}) }
    const secrets: Record<string, StoredSecrets[string] | null> = { ...(row?.secrets ?? {}) }
    const now = new Date()
    const trail: Record<string, unknown>[] = []
    for (const [key, value] of Object.entries(changes)) {
      if (isSecret(key)) {
        const cleared = value === null || value === undefined || value === ""
        if (cleared && !secrets[key]) continue
        secrets[key] = cleared ? null : storeSecret(key, String(value), now)
        trail.push({ setting: key, secret: true, old_value: null, new_value: null })
        continue
      }
      const before = key in values ? values[key] : null
      const after = value === undefined ? null : value
      if (JSON.stringify(before) === JSON.stringify(after)) continue
      // Medusa's update merges JSON columns key by key, so a removed
      // setting is written as null (read back as absent, row_ below).
      values[key] = after
      trail.push({
        setting: key,
        secret: false,
        old_value: before === null ? null : JSON.stringify(before),
        new_value: after === null ? null : JSON.stringify(after),
      })
    }
    if (!trail.length) return
    if (row) {
      await this.updateCardServiceSettings({ id: row.id, values, secrets })
    } else {
      await this.createCardServiceSettings({ values, secrets })
    }
    await this.createCardServiceSettingsChanges(
      trail.map((entry) => ({ ...entry, ...actor })) as any
    )
    this.invalidate()
  }

  /** The trail, newest first. */
  async recentChanges(take = 50) {
    return this.listCardServiceSettingsChanges(
      {},
      { order: { created_at: "DESC" }, take }
    )
  }

  protected async revision_(): Promise<string> {
    const [row] = await this.listCardServiceSettings(
      {},
      { select: ["id", "updated_at"], order: { created_at: "ASC" }, take: 1 }
    )
    return revisionOf(row as unknown as SettingsRow | undefined)
  }

  protected async load_(): Promise<StoredSettingsSnapshot> {
    const row = await this.row_()
    if (!row) return { revision: revisionOf(undefined), values: {} }
    return {
      revision: revisionOf(row),
      values: {
        ...(row.values ?? {}),
        ...openStoredSecrets(row.secrets),
      } as StoredSettingValues,
    }
  }

  protected async row_(): Promise<SettingsRow | null> {
    const [row] = await this.listCardServiceSettings(
      {},
      { order: { created_at: "ASC" }, take: 1 }
    )
    if (!row) return null
    const stored = row as unknown as SettingsRow
    return {
      ...stored,
      values: withoutNulls(stored.values),
      secrets: withoutNulls(stored.secrets) as StoredSecrets,
    }
  }
}

function revisionOf(row: Pick<SettingsRow, "id" | "updated_at"> | undefined): string {
  return row ? `${row.id}@${new Date(row.updated_at).toISOString()}` : "none"
}

/** A cleared setting stays in the JSON as null (see saveSettings): not a value. */
function withoutNulls<T>(record: Record<string, T | null> | null): Record<string, T> {
  return Object.fromEntries(
    Object.entries(record ?? {}).filter(([, value]) => value !== null)
  ) as Record<string, T>
}
