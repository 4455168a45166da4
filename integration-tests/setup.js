// Each test file boots its own Medusa app; MikroORM's metadata is global and
// must start empty for each.
const { MetadataStorage } = require("@mikro-orm/core")

MetadataStorage.clear()
