import { forwardRef, SelectHTMLAttributes, useId } from "react"

type NativeSelectProps = SelectHTMLAttributes<HTMLSelectElement> & {
  /** The first, empty choice ("Country", "MM"...). */
  placeholder: string
  label?: string
}

/** A native select styled like the text fields. */
const NativeSelect = forwardRef<HTMLSelectElement, NativeSelectProps>(
  function NativeSelect(
    { placeholder, label, className, id, children, ...props },
    ref
  ) {
    const generated = useId()
    const selectId = id ?? generated
    return (
      <div className={`flex w-full flex-col ${className ?? ""}`}>
        {label ? (
          <label htmlFor={selectId} className="sr-only">
            {label}
          </label>
        ) : null}
        <div className="relative">
          <select
            ref={ref}
            id={selectId}
            className="block h-14 w-full appearance-none rounded-md border border-ui-border bg-ui-field px-4 text-base text-ui-fg hover:bg-ui-field-hover focus:outline-none focus:ring-2 focus:ring-ui-interactive/30"
            {...props}
          >
            <option value="">{placeholder}</option>
            {children}
          </select>
          <span
            aria-hidden="true"
            className="pointer-events-none absolute right-4 top-1/2 -translate-y-1/2 text-ui-fg-muted"
          >
            ▾
          </span>
        </div>
      </div>
    )
  }
)

export default NativeSelect
