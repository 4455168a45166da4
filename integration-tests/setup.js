// Each test file boots its own Medusa app; MikroORM's metadata is global and
// must start empty for each.
const { MetadataStorage } = require("@mikro-orm/core")

MetadataStorage.clear()

// The reconciliation sweep (src/jobs) would otherwise run every minute inside
// each test app and could settle a session a test means to leave open. Tests
// of the sweep call it directly; "off" keeps the job registered but idle.
process.env.CARD_SERVICE_RECONCILE_SCHEDULE =
  process.env.CARD_SERVICE_RECONCILE_SCHEDULE || "off"
