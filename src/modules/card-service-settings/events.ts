/**
 * Emitted through Medusa's event bus after the admin saved settings; every
 * instance's subscriber drops its cached row (src/subscribers).
 */
export const SETTINGS_UPDATED_EVENT = "card-service.settings.updated"
