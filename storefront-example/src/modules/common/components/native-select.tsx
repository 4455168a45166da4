import { forwardRef, SelectHTMLAttributes } from "react"

// The starter's NativeSelect props: a placeholder as the first, empty
// choice, and no label of its own.
export type NativeSelectProps = {
  placeholder?: string
  errors?: Record<string, unknown>
  touched?: Record<string, unknown>
} & SelectHTMLAttributes<HTMLSelectElement>

/** A native select styled like the text fields. */
const NativeSelect = forwardRef<HTMLSelectElement, NativeSelectProps>(
  function NativeSelect(
    {
      placeholder = "Select...",
      className,
      children,
      errors: _errors,
      touched: _touched,
      ...props
    },
    ref
  ) {
    return (
      <div className={`relative flex w-full ${className ?? ""}`}>
        <select
          ref={ref}
          className="block h-14 w-full appearance-none rounded-md border border-ui-border bg-ui-field px-4 text-base text-ui-fg hover:bg-ui-field-hover focus:outline-none focus:ring-2 focus:ring-ui-interactive/30"
          {...props}
        >
          <option disabled value="">
            {placeholder}
          </option>
          {children}
        </select>
        <span
          aria-hidden="true"
          className="pointer-events-none absolute right-4 top-1/2 -translate-y-1/2 text-ui-fg-muted"
        >
          ▾
        </span>
      </div>
    )
  }
)

export default NativeSelect
