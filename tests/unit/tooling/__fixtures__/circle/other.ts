export const d = 1
