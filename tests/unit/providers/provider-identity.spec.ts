import CardServiceProviderService from "../../../src/providers/card-service/service"
import provider from "../../../src/providers/card-service"

// Medusa builds the provider's id from the module's id and the class's
// identifier (pp_{identifier}_{id}); the id is part of the public surface
// (CHANGELOG, "Versioning policy"). Newer cores show displayName instead of
// an id made readable ("Pp_card-Service_card-Service", #44).
describe("the provider's identity", () => {
  it("keeps the identifier that makes pp_card-service_card-service", () => {
    expect(CardServiceProviderService.identifier).toBe("card-service")
  })

  it("declares a display name for admins and storefronts", () => {
    expect((CardServiceProviderService as unknown as { displayName?: string }).displayName).toBe("Card service")
  })

  it("is the service the module definition registers", () => {
    const services = (provider as unknown as { services: unknown[] }).services
    expect(services).toEqual([CardServiceProviderService])
  })
})
