/**
 * A status the sweep or a verdict noted (order_created, review_closed,
 * capture_failed, ...) as the admin shows it: the same words in "Payments
 * at a glance" and in Needs attention, so an action is named one way.
 */
export function statusLabel(status: string): string {
  return status.replace(/_/g, " ")
}
