/**
 * A small palette in the spirit of the starter's (@medusajs/ui-preset is not
 * used here): grey surfaces, a dark primary button, rounded fields.
 *
 * @type {import('tailwindcss').Config}
 */
module.exports = {
  content: ["./src/**/*.{ts,tsx}"],
  theme: {
    extend: {
      colors: {
        ui: {
          bg: "#ffffff",
          subtle: "#fafafa",
          field: "#fafafa",
          "field-hover": "#f4f4f5",
          border: "#e4e4e7",
          "border-strong": "#d4d4d8",
          fg: "#18181b",
          "fg-subtle": "#52525b",
          "fg-muted": "#71717a",
          error: "#e11d48",
          interactive: "#3b82f6",
        },
      },
      maxWidth: { content: "1200px" },
    },
  },
  plugins: [],
}
