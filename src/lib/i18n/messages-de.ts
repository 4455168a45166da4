import type { Catalogue } from "./messages-en"

/** German. Formal address (Sie), as German shops write to customers. */
export const de: Catalogue = {
  "page.title": "{amount} bezahlen - {store}",
  "page.heading": "{amount} bezahlen",
  "page.privacy":
    "{store} · Ihre Kartendaten gehen direkt an den Kartendienst; dieser Shop sieht sie nie.",
  "card.legend": "Karte",
  "card.number": "Kartennummer",
  "card.type": "Kartenanbieter",
  "card.typePlaceholder": "Anbieter wählen",
  "card.firstName": "Vorname",
  "card.lastName": "Nachname",
  "expiry.legend": "Ablaufdatum",
  "expiry.month": "Monat",
  "expiry.year": "Jahr",
  "expiry.monthPlaceholder": "MM",
  "expiry.yearPlaceholder": "JJJJ",
  "billing.heading": "Rechnungsadresse",
  "billing.edit": "Rechnungsadresse ändern",
  "billing.email": "E-Mail",
  "billing.phone": "Telefon",
  "billing.address": "Straße und Hausnummer",
  "billing.city": "Ort",
  "billing.postalCode": "Postleitzahl",
  "billing.state": "Bundesstaat oder Provinz (nur USA und Kanada)",
  "billing.country": "Land",
  "billing.countryPlaceholder": "Land wählen",
  "pay.button": "{amount} bezahlen",
  "pay.back": "Zurück zum Shop",
  "error.summary": "Bitte prüfen Sie die unten markierten Felder.",
  "error.required": "Bitte füllen Sie dieses Feld aus.",
  "error.choose": "Bitte wählen Sie aus.",
  "error.cardNumber": "Diese Kartennummer ist ungültig. Bitte prüfen Sie sie.",
  "error.email": "Geben Sie eine E-Mail-Adresse wie name@example.com ein.",
  "error.expired":
    "Dieses Ablaufdatum ist vorbei. Prüfen Sie das Datum auf Ihrer Karte.",
  "error.format": "Bitte prüfen Sie Ihre Eingabe.",
  "previous.heading": "Ihre letzte Zahlung hat nicht geklappt",
  "failure.declined":
    "Ihre Bank hat die Zahlung abgelehnt. Versuchen Sie es mit einer anderen Karte.",
  "failure.expired":
    "Ihre Bank hat die Zahlung abgelehnt: Die Karte ist abgelaufen oder das Ablaufdatum stimmt nicht. Prüfen Sie das Datum oder nehmen Sie eine andere Karte.",
  "failure.cardDetails":
    "Kartennummer oder Kartenanbieter wurden nicht akzeptiert. Prüfen Sie die Angaben oder nehmen Sie eine andere Karte.",
  "failure.authentication":
    "Ihre Bank konnte die Zahlung nicht mit Ihnen bestätigen (3-D Secure). Versuchen Sie es erneut oder nehmen Sie eine andere Karte.",
  "failure.address":
    "Ihre Bank konnte die Rechnungsadresse nicht bestätigen. Prüfen Sie sie und versuchen Sie es erneut.",
  "failure.tryLater":
    "Die Zahlung konnte gerade nicht ausgeführt werden; es wurde kein Geld abgebucht. Bitte versuchen Sie es in ein paar Minuten erneut.",
  "failure.review":
    "Ihre Zahlung wird geprüft. Der Shop meldet sich, sobald sie bestätigt ist.",
  "failure.mismatch":
    "Die Zahlung passte nicht zu Ihrer Bestellung; der auf Ihrer Karte reservierte Betrag wurde freigegeben. Bitte zahlen Sie erneut.",
  "failure.cartChanged":
    "Ihr Warenkorb hat sich während der Zahlung geändert; der auf Ihrer Karte reservierte Betrag wurde freigegeben. Bitte zahlen Sie erneut.",
  "failure.restart":
    "Diese Zahlung kann nicht fortgesetzt werden. Gehen Sie zurück zum Shop und starten Sie die Zahlung neu.",
  "failure.generic":
    "Die Zahlung hat nicht geklappt. Versuchen Sie es erneut oder nehmen Sie eine andere Karte.",
  "notFound.title": "Zahlung nicht gefunden",
  "notFound.message":
    "Unter dieser Adresse wartet keine Kartenzahlung. Gehen Sie zurück zum Shop und beginnen Sie den Bestellvorgang erneut.",
  "unconfirmed.title": "Zahlung noch nicht bestätigt",
  "unconfirmed.message":
    "Der Shop konnte diese Zahlung gerade nicht prüfen. Laden Sie die Seite gleich noch einmal.",
  "busy.title": "Einen Moment, bitte",
  "busy.message":
    "Die Zahlungsseite kann gerade nicht angezeigt werden. Laden Sie diese Seite in ein paar Sekunden neu.",
  "notFound.returnMessage":
    "Unter dieser Adresse gibt es keine Kartenzahlung. Gehen Sie zurück zum Shop und prüfen Sie Ihre Bestellung.",
  "paid.title": "Bereits bezahlt",
  "paid.message":
    "Diese Zahlung ist bereits abgeschlossen. Es ist nichts mehr zu bezahlen.",
  "altered.title": "Zahlung kann nicht fortgesetzt werden",
  "altered.message":
    "Diese Zahlungssitzung wurde nach ihrer Erstellung verändert. Gehen Sie zurück zum Shop und starten Sie die Zahlung neu.",
}
