import Medusa from "@medusajs/js-sdk"

// Defined by Medusa's admin bundler from admin.backendUrl; when the dashboard
// is served by the backend itself, "/" reaches the same origin.
declare const __BACKEND_URL__: string | undefined

/** The dashboard's session cookie authenticates these calls, as it does Medusa's own. */
export const sdk = new Medusa({
  baseUrl:
    typeof __BACKEND_URL__ !== "undefined" && __BACKEND_URL__
      ? __BACKEND_URL__
      : "/",
  auth: { type: "session" },
})
