import { loadEnv, defineConfig } from "@medusajs/framework/utils"

loadEnv(process.env.NODE_ENV || "development", process.cwd())

/**
 * The development store of this repository: Medusa with this plugin loaded
 * from `src` (the app's own routes, subscribers and admin extensions are this
 * plugin's), the card-service provider registered under the payment module.
 *
 * Tests (`npm test`) and the demo (`npm run demo`) start a sandbox of the card
 * service and pass its address and credentials through these variables. A
 * store that installs the published plugin uses the snippet in the README
 * instead.
 */
const env = (name: string, fallback = "") => process.env[name] ?? fallback

const backendUrl = env("MEDUSA_BACKEND_URL", "http://localhost:9000")

/**
 * With REDIS_URL, the production-like modules: locks (which the callback
 * and return routes take per payment session), the cache (settled marks),
 * events and workflows live in Redis, as they must when several Medusa instances serve one store.
 */
const redisUrl = env("REDIS_URL")
const redisModules = redisUrl
  ? [
      {
        resolve: "@medusajs/medusa/locking",
        options: {
          providers: [
            {
              resolve: "@medusajs/medusa/locking-redis",
              id: "locking-redis",
              is_default: true,
              options: { redisUrl, namespace: env("REDIS_NAMESPACE", "card-service-dev:") },
            },
          ],
        },
      },
      // Shared settled marks (src/checkout/settled-marks.ts), one namespace per store.
      {
        resolve: "@medusajs/medusa/cache-redis",
        options: { redisUrl, namespace: env("REDIS_NAMESPACE", "card-service-dev:") },
      },
      { resolve: "@medusajs/medusa/event-bus-redis", options: { redisUrl } },
      { resolve: "@medusajs/medusa/workflow-engine-redis", options: { redis: { redisUrl } } },
    ]
  : []

/** The card-service provider's options (README, "Options"). */
const cardServiceOptions = {
  clientCode: env("CARD_SERVICE_CLIENT_CODE"),
  clientSecret: env("CARD_SERVICE_CLIENT_SECRET"),
  verifyId: env("CARD_SERVICE_VERIFY_ID"),
  merchantId: env("CARD_SERVICE_MERCHANT_ID"),
  mode: env("CARD_SERVICE_MODE", "test"),
  testUrl: env("CARD_SERVICE_TEST_URL") || undefined,
  liveUrl: env("CARD_SERVICE_LIVE_URL") || undefined,
  backendUrl,
  storefrontUrl: env("STOREFRONT_URL", "http://localhost:8000"),
  autoCapture: env("CARD_SERVICE_AUTO_CAPTURE") === "true",
  windowed: env("CARD_SERVICE_WINDOWED") === "true",
  sessionSecret: env("CARD_SERVICE_SESSION_SECRET") || undefined,
  // Blank means unset (the options schema's rule); the sweep's
  // schedule is read by the job itself (src/jobs).
  reconcile: env("CARD_SERVICE_RECONCILE"),
  reconcileGraceMs: env("CARD_SERVICE_RECONCILE_GRACE_MS"),
  reviewTimeoutMs: env("CARD_SERVICE_REVIEW_TIMEOUT_MS"),
  storeName: env("CARD_SERVICE_STORE_NAME") || undefined,
  // JSON, for example {"de":{"pay.back":"Zurück zum Laden"}} (README, "Options").
  messages: env("CARD_SERVICE_MESSAGES") ? JSON.parse(env("CARD_SERVICE_MESSAGES")) : undefined,
  // Comma-separated option names the admin may not change.
  lockedSettings: env("CARD_SERVICE_LOCKED_SETTINGS"),
}

export default defineConfig({
  projectConfig: {
    databaseUrl: env("DATABASE_URL"),
    http: {
      storeCors: env("STORE_CORS", "http://localhost:8000"),
      adminCors: env("ADMIN_CORS", "http://localhost:9000"),
      authCors: env("AUTH_CORS", "http://localhost:8000,http://localhost:9000"),
      jwtSecret: env("JWT_SECRET", "supersecret"),
      cookieSecret: env("COOKIE_SECRET", "supersecret"),
    },
  },
  admin: {
    disable: env("MEDUSA_ADMIN_DISABLE") === "true",
    backendUrl,
    // `npm run demo` keeps Vite's dependency cache in its data folder: two
    // demos of one checkout (the browser tests run them side by side) would
    // otherwise rewrite node_modules/.vite under each other's admin.
    vite: () => (env("ADMIN_VITE_CACHE_DIR") ? { cacheDir: env("ADMIN_VITE_CACHE_DIR") } : {}),
  },
  modules: [
    {
      resolve: "@medusajs/medusa/payment",
      options: {
        providers: [
          { resolve: "./src/providers/card-service", id: "card-service", options: cardServiceOptions },
          // The load benchmark's third side (scripts/bench-load.ts,
          // --authorize-side): the same provider, authorizing only, so one run
          // compares a checkout with and without Medusa recording a capture.
          ...(env("CARD_SERVICE_AUTHORIZE_ONLY_PROVIDER") === "true"
            ? [
                {
                  resolve: "./src/providers/card-service",
                  id: "card-service-authorize",
                  options: { ...cardServiceOptions, autoCapture: false },
                },
              ]
            : []),
        ],
      },
    },
    // The admin's card-service settings (src/modules/card-service-settings).
    // A store that lists the published plugin under `plugins` gets this
    // module registered by Medusa; this dev store loads the plugin from src.
    { resolve: "./src/modules/card-service-settings" },
    // The plugin's events behind the admin's "Payments at a glance"
    // (src/modules/card-service-activity), registered the same way.
    { resolve: "./src/modules/card-service-activity" },
    ...redisModules,
  ],
})
