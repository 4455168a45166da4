import type { Catalogue } from "./messages-en"

/** French. Formal address (vous). */
export const fr: Catalogue = {
  "page.title": "Payer {amount} - {store}",
  "page.heading": "Payer {amount}",
  "page.privacy":
    "{store} · Vos données de carte vont directement au service de paiement ; cette boutique ne les voit jamais.",
  "card.legend": "Carte",
  "card.number": "Numéro de carte",
  "card.type": "Réseau de la carte",
  "card.typePlaceholder": "Choisissez le réseau",
  "card.firstName": "Prénom",
  "card.lastName": "Nom",
  "expiry.legend": "Date d'expiration",
  "expiry.month": "Mois",
  "expiry.year": "Année",
  "expiry.monthPlaceholder": "MM",
  "expiry.yearPlaceholder": "AAAA",
  "billing.heading": "Adresse de facturation",
  "billing.edit": "Modifier l'adresse de facturation",
  "billing.email": "E-mail",
  "billing.phone": "Téléphone",
  "billing.address": "Numéro et rue",
  "billing.city": "Ville",
  "billing.postalCode": "Code postal",
  "billing.state": "État ou province (États-Unis et Canada uniquement)",
  "billing.country": "Pays",
  "billing.countryPlaceholder": "Choisissez un pays",
  "pay.button": "Payer {amount}",
  "pay.back": "Retour à la boutique",
  "error.summary": "Veuillez vérifier les champs signalés ci-dessous.",
  "error.required": "Veuillez remplir ce champ.",
  "error.choose": "Veuillez faire un choix.",
  "error.cardNumber":
    "Ce numéro de carte n'est pas valide. Veuillez le vérifier.",
  "error.email": "Saisissez une adresse e-mail comme nom@example.com.",
  "error.expired":
    "Cette date d'expiration est dépassée. Vérifiez la date sur votre carte.",
  "error.format": "Veuillez vérifier votre saisie.",
  "previous.heading": "Votre dernier paiement n'a pas abouti",
  "failure.declined":
    "Votre banque a refusé le paiement. Essayez avec une autre carte.",
  "failure.expired":
    "Votre banque a refusé le paiement : la carte a expiré ou la date d'expiration ne correspond pas. Vérifiez la date ou essayez une autre carte.",
  "failure.cardDetails":
    "Le numéro ou le réseau de la carte n'a pas été accepté. Vérifiez-les ou essayez une autre carte.",
  "failure.authentication":
    "Votre banque n'a pas pu confirmer le paiement avec vous (3-D Secure). Réessayez ou utilisez une autre carte.",
  "failure.address":
    "Votre banque n'a pas pu vérifier l'adresse de facturation. Vérifiez-la et réessayez.",
  "failure.tryLater":
    "Le paiement n'a pas pu être traité pour le moment et aucun montant n'a été débité. Veuillez réessayer dans quelques minutes.",
  "failure.review":
    "Votre paiement est en cours de vérification. La boutique vous informera dès qu'il sera confirmé.",
  "failure.mismatch":
    "Le paiement ne correspondait pas à votre commande ; le montant réservé sur votre carte a été libéré. Veuillez payer à nouveau.",
  "failure.cartChanged":
    "Votre panier a changé pendant le paiement ; le montant réservé sur votre carte a été libéré. Veuillez payer à nouveau.",
  "failure.restart":
    "Ce paiement ne peut pas continuer. Retournez à la boutique et recommencez le paiement.",
  "failure.generic":
    "Le paiement n'a pas abouti. Réessayez ou utilisez une autre carte.",
  "notFound.title": "Paiement introuvable",
  "notFound.message":
    "Aucun paiement par carte n'attend à cette adresse. Retournez à la boutique et recommencez la commande.",
  "unconfirmed.title": "Paiement pas encore confirmé",
  "unconfirmed.message":
    "La boutique n'a pas pu vérifier ce paiement pour l'instant. Rechargez cette page dans un instant.",
  "busy.title": "Un instant, s'il vous plaît",
  "busy.message":
    "La page de paiement ne peut pas s'afficher pour l'instant. Rechargez cette page dans quelques secondes.",
  "notFound.returnMessage":
    "Aucun paiement par carte ne correspond à cette adresse. Retournez à la boutique et vérifiez votre commande.",
  "paid.title": "Déjà payé",
  "paid.message": "Ce paiement est déjà terminé. Il n'y a plus rien à payer.",
  "altered.title": "Le paiement ne peut pas continuer",
  "altered.message":
    "Cette session de paiement a été modifiée après sa création. Retournez à la boutique et recommencez le paiement.",
}
