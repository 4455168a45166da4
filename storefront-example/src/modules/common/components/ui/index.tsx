import { ButtonHTMLAttributes, forwardRef, LabelHTMLAttributes } from "react"

// The starter's UI kit is one module of named components
// (`@modules/common/components/ui`); these two are the ones the checkout uses,
// with the starter's props.

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: "primary" | "secondary" | "transparent"
  size?: "small" | "medium" | "large"
  isLoading?: boolean
}

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(
  function Button(
    {
      variant = "primary",
      size = "medium",
      isLoading,
      className,
      children,
      disabled,
      ...props
    },
    ref
  ) {
    const look =
      variant === "primary"
        ? "bg-ui-fg text-white hover:bg-black disabled:bg-ui-border-strong disabled:text-ui-fg-muted"
        : variant === "secondary"
          ? "border border-ui-border bg-white text-ui-fg hover:bg-ui-field-hover disabled:text-ui-fg-muted"
          : "bg-transparent text-ui-fg hover:bg-ui-field-hover"
    const height =
      size === "large"
        ? "h-12 px-5 text-base"
        : size === "small"
          ? "h-8 px-3 text-sm"
          : "h-9 px-4 text-sm"
    return (
      <button
        ref={ref}
        className={`inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors ${height} ${look} ${className ?? ""}`}
        disabled={disabled || isLoading}
        aria-busy={isLoading || undefined}
        {...props}
      >
        {isLoading ? (
          <span
            aria-hidden="true"
            className="h-4 w-4 animate-spin rounded-full border-2 border-current border-t-transparent"
          />
        ) : null}
        {children}
      </button>
    )
  }
)

export const Label = forwardRef<
  HTMLLabelElement,
  LabelHTMLAttributes<HTMLLabelElement>
>(function Label({ className, ...props }, ref) {
  return (
    <label
      ref={ref}
      className={`text-sm font-medium text-ui-fg-subtle ${className ?? ""}`}
      {...props}
    />
  )
})
