// The lines a store owner adds to Medusa's Next.js starter (the
// apps/storefront of medusajs/dtc-starter) to take card payments through this
// plugin, as data: docs/storefront.md shows them (generated from here, see
// `node scripts/lib/starter-recipe.js --markdown`), storefront-example/ holds
// every one of them where CI type-checks and builds it, and
// `npm run check:starter` applies them to a real copy of the starter.
//
// Each edit names its file, where it goes (an anchor: text the starter has
// exactly once), and the text. Nothing here is the starter's code: the
// anchors are one line each, to find the place.
"use strict"

/** The starter commit the anchors were read from. */
const STARTER = {
  repository: "medusajs/dtc-starter",
  commit: "9233262",
  path: "apps/storefront",
}

const CONSTANTS = "src/lib/constants.tsx"
const PAYMENT = "src/modules/checkout/components/payment/index.tsx"
const PAYMENT_BUTTON =
  "src/modules/checkout/components/payment-button/index.tsx"
const ORDER_TEMPLATE = "src/modules/order/templates/order-completed-template.tsx"
const RETURN_ROUTE =
  "src/app/[countryCode]/(checkout)/checkout/card-service/route.ts"

/** @typedef {{ id: string, file: string, where: string, before?: string, after?: string, replace?: string, create?: true, text: string }} Edit */

/** @type {Edit[]} */
const COMMON = [
  {
    id: "provider-name",
    file: CONSTANTS,
    where: "in `paymentInfoMap`, before the `pp_system_default` entry",
    before: "  pp_system_default: {\n",
    text: `  "pp_card-service_card-service": {
    title: "Credit card",
    icon: <CreditCard />,
  },
`,
  },
  {
    id: "payment-error-import",
    file: PAYMENT,
    where: "below the `initiatePaymentSession` import",
    after: 'import { initiatePaymentSession } from "@lib/data/cart"\n',
    text: 'import { cardServicePaymentError } from "medusa-payment-card-service/storefront"\n',
  },
  {
    id: "payment-error",
    file: PAYMENT,
    where: "above the `payment-method-error-message` ErrorMessage",
    before: "          <ErrorMessage\n            error={error}\n",
    text: "          <ErrorMessage error={cardServicePaymentError(searchParams)} />\n",
  },
  {
    id: "order-notice-import",
    file: ORDER_TEMPLATE,
    where: "below the `PaymentDetails` import",
    after: 'import PaymentDetails from "@modules/order/components/payment-details"\n',
    text: 'import { CardServiceOrderNotice } from "medusa-payment-card-service/storefront/react"\n',
  },
  {
    id: "order-notice",
    file: ORDER_TEMPLATE,
    where: "above `<OrderDetails order={order} />`: an order on hold says its payment is under review",
    before: "          <OrderDetails order={order} />\n",
    text: "          <CardServiceOrderNotice order={order} />\n",
  },
]

/** @type {Edit} */
const RETURN = {
  id: "return-route",
  file: RETURN_ROUTE,
  where: "a new file",
  create: true,
  text: 'export { GET } from "medusa-payment-card-service/storefront/next"\n',
}

const VARIANTS = {
  /** The card form in the review step, from the starter's own components. */
  form: [
    ...COMMON,
    {
      id: "form-imports",
      file: PAYMENT_BUTTON,
      where: "in place of the `Button` import",
      replace: 'import { Button } from "@modules/common/components/ui"\n',
      text: `import { Button, Label } from "@modules/common/components/ui"
import Input from "@modules/common/components/input"
import NativeSelect from "@modules/common/components/native-select"
import {
  CardServiceForm,
  isCardService,
} from "medusa-payment-card-service/storefront/react"
`,
    },
    {
      id: "form-case",
      file: PAYMENT_BUTTON,
      where: "in the `switch`, before the `isManual` case",
      before: "    case isManual(paymentSession?.provider_id):\n",
      text: `    case isCardService(paymentSession?.provider_id):
      return (
        <CardServiceForm
          cart={cart}
          ui={{ Button, ErrorMessage, Input, Label, NativeSelect }}
        />
      )
`,
    },
    RETURN,
  ],
  /** A "Place order" button that opens the plugin's hosted payment page. */
  hosted: [
    ...COMMON,
    {
      id: "hosted-import",
      file: PAYMENT_BUTTON,
      where: "below the `Button` import",
      after: 'import { Button } from "@modules/common/components/ui"\n',
      text: `import {
  CardServicePayButton,
  isCardService,
} from "medusa-payment-card-service/storefront/react"
`,
    },
    {
      id: "hosted-case",
      file: PAYMENT_BUTTON,
      where: "in the `switch`, before the `isManual` case",
      before: "    case isManual(paymentSession?.provider_id):\n",
      text: `    case isCardService(paymentSession?.provider_id):
      return <CardServicePayButton cart={cart} ui={{ Button, ErrorMessage }} />
`,
    },
    RETURN,
  ],
}

/** Lines that are not blank: what an owner writes. */
function linesOf(text) {
  return text.split("\n").filter((line) => line.trim() !== "").length
}

/** Lines per file and in all, for a variant. */
function lineCounts(variant) {
  const perFile = {}
  for (const edit of VARIANTS[variant]) {
    perFile[edit.file] = (perFile[edit.file] ?? 0) + linesOf(edit.text)
  }
  const total = Object.values(perFile).reduce((a, b) => a + b, 0)
  return { perFile, total }
}

/**
 * Applies one edit to a file's text; throws when the anchor is not there
 * exactly once (the starter changed: the message says which edit and where).
 */
function applyEdit(source, edit) {
  if (edit.create) {
    if (source !== null)
      throw new Error(`${edit.file} exists already (${edit.id})`)
    return edit.text
  }
  const anchor = edit.before ?? edit.after ?? edit.replace
  const at = source === null ? -1 : source.indexOf(anchor)
  if (at === -1 || source.indexOf(anchor, at + 1) !== -1) {
    throw new Error(
      `${edit.file}: the recipe's "${edit.id}" goes ${edit.where}, but ` +
        (at === -1
          ? "that line is not there"
          : "that line is there more than once") +
        `:\n${anchor}`
    )
  }
  if (edit.before !== undefined)
    return source.slice(0, at) + edit.text + source.slice(at)
  if (edit.after !== undefined)
    return (
      source.slice(0, at + anchor.length) +
      edit.text +
      source.slice(at + anchor.length)
    )
  return source.slice(0, at) + edit.text + source.slice(at + anchor.length)
}

/** docs/storefront.md's recipe section for a variant, file by file. */
function markdown(variant) {
  const out = []
  for (const edit of VARIANTS[variant]) {
    const lang = edit.file.endsWith(".ts") ? "ts" : "tsx"
    const head = edit.create
      ? `// ${edit.file}`
      : `// in ${edit.file}, ${edit.where}`
    out.push("```" + lang + "\n" + head + "\n" + edit.text + "```")
  }
  return out.join("\n\n") + "\n"
}

module.exports = { STARTER, VARIANTS, applyEdit, lineCounts, linesOf, markdown }

if (require.main === module) {
  const variant = process.argv[3] ?? "form"
  if (process.argv[2] === "--markdown") process.stdout.write(markdown(variant))
  else if (process.argv[2] === "--count")
    console.log(JSON.stringify(lineCounts(variant), null, 2))
  else {
    console.error(
      "usage: node scripts/lib/starter-recipe.js --markdown|--count [form|hosted]"
    )
    process.exit(2)
  }
}
