import type { Catalogue } from "./messages-en"

/** Dutch. Informal address (je), as most Dutch and Flemish web shops write. */
export const nl: Catalogue = {
  "page.title": "{amount} betalen - {store}",
  "page.heading": "{amount} betalen",
  "page.privacy":
    "{store} · Je kaartgegevens gaan rechtstreeks naar de kaartdienst; deze winkel ziet ze nooit.",
  "card.legend": "Kaart",
  "card.number": "Kaartnummer",
  "card.type": "Kaartmaatschappij",
  "card.typePlaceholder": "Kies de maatschappij",
  "card.firstName": "Voornaam",
  "card.lastName": "Achternaam",
  "expiry.legend": "Vervaldatum",
  "expiry.month": "Maand",
  "expiry.year": "Jaar",
  "expiry.monthPlaceholder": "MM",
  "expiry.yearPlaceholder": "JJJJ",
  "billing.heading": "Factuuradres",
  "billing.edit": "Factuuradres wijzigen",
  "billing.email": "E-mail",
  "billing.phone": "Telefoon",
  "billing.address": "Straat en huisnummer",
  "billing.city": "Plaats",
  "billing.postalCode": "Postcode",
  "billing.state": "Staat of provincie (alleen VS en Canada)",
  "billing.country": "Land",
  "billing.countryPlaceholder": "Kies een land",
  "pay.button": "{amount} betalen",
  "pay.back": "Terug naar de winkel",
  "error.summary": "Controleer de hieronder gemarkeerde velden.",
  "error.required": "Vul dit veld in.",
  "error.choose": "Maak een keuze.",
  "error.cardNumber": "Dit kaartnummer is niet geldig. Controleer het.",
  "error.email": "Vul een e-mailadres in, zoals naam@example.com.",
  "error.expired":
    "Deze vervaldatum is verstreken. Controleer de datum op je kaart.",
  "error.format": "Controleer wat je hier hebt ingevuld.",
  "previous.heading": "Je laatste betaling is niet gelukt",
  "failure.declined":
    "Je bank heeft de betaling geweigerd. Probeer een andere kaart.",
  "failure.expired":
    "Je bank heeft de betaling geweigerd: de kaart is verlopen of de vervaldatum klopt niet. Controleer de datum of probeer een andere kaart.",
  "failure.cardDetails":
    "Het kaartnummer of de kaartmaatschappij werd niet geaccepteerd. Controleer ze of probeer een andere kaart.",
  "failure.authentication":
    "Je bank kon de betaling niet met je bevestigen (3-D Secure). Probeer het opnieuw of gebruik een andere kaart.",
  "failure.address":
    "Je bank kon het factuuradres niet controleren. Controleer het en probeer het opnieuw.",
  "failure.tryLater":
    "De betaling kon nu niet worden verwerkt en er is geen geld afgeschreven. Probeer het over een paar minuten opnieuw.",
  "failure.review":
    "Je betaling wordt gecontroleerd. De winkel laat je weten wanneer ze bevestigd is.",
  "failure.mismatch":
    "De betaling paste niet bij je bestelling; het gereserveerde bedrag op je kaart is vrijgegeven. Betaal opnieuw.",
  "failure.cartChanged":
    "Je winkelwagen is tijdens het betalen gewijzigd; het gereserveerde bedrag op je kaart is vrijgegeven. Betaal opnieuw.",
  "failure.restart":
    "Deze betaling kan niet verder. Ga terug naar de winkel en start de betaling opnieuw.",
  "failure.generic":
    "De betaling is niet gelukt. Probeer het opnieuw of gebruik een andere kaart.",
  "notFound.title": "Betaling niet gevonden",
  "notFound.message":
    "Op dit adres wacht geen kaartbetaling. Ga terug naar de winkel en begin opnieuw met afrekenen.",
  "unconfirmed.title": "Betaling nog niet bevestigd",
  "unconfirmed.message":
    "De winkel kon deze betaling nu niet controleren. Laad deze pagina zo opnieuw.",
  "busy.title": "Een ogenblik, alstublieft",
  "busy.message":
    "De betaalpagina kan nu niet worden getoond. Laad deze pagina over een paar seconden opnieuw.",
  "notFound.returnMessage":
    "Op dit adres is geen kaartbetaling. Ga terug naar de winkel en controleer je bestelling.",
  "paid.title": "Al betaald",
  "paid.message":
    "Deze betaling is al afgerond. Er hoeft niets meer betaald te worden.",
  "altered.title": "Betaling kan niet verder",
  "altered.message":
    "Deze betaalsessie is gewijzigd nadat ze was aangemaakt. Ga terug naar de winkel en start de betaling opnieuw.",
}
