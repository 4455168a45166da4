import { ButtonHTMLAttributes } from "react"

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: "primary" | "secondary"
  isLoading?: boolean
  size?: "base" | "large"
}

export default function Button({
  variant = "primary",
  isLoading,
  size = "base",
  className,
  children,
  disabled,
  ...props
}: ButtonProps) {
  const look =
    variant === "primary"
      ? "bg-ui-fg text-white hover:bg-black disabled:bg-ui-border-strong disabled:text-ui-fg-muted"
      : "border border-ui-border bg-white text-ui-fg hover:bg-ui-field-hover disabled:text-ui-fg-muted"
  return (
    <button
      className={`inline-flex items-center justify-center gap-2 rounded-md font-medium transition-colors ${
        size === "large" ? "h-12 px-5 text-base" : "h-9 px-4 text-sm"
      } ${look} ${className ?? ""}`}
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
