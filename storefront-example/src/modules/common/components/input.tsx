import { forwardRef, InputHTMLAttributes, useId } from "react"

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "placeholder"> & {
  label: string
  /** Shown under the field and announced; marks the field invalid. */
  error?: string | null
}

/** A text field with its label floating inside, as the starter's checkout fields look. */
const Input = forwardRef<HTMLInputElement, InputProps>(function Input(
  { label, error, className, id, ...props },
  ref
) {
  const generated = useId()
  const inputId = id ?? generated
  const errorId = `${inputId}-error`
  return (
    <div className={`flex w-full flex-col ${className ?? ""}`}>
      <div className="relative z-0 w-full">
        <input
          ref={ref}
          id={inputId}
          placeholder=" "
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          className={`peer mt-0 block h-14 w-full appearance-none rounded-md border bg-ui-field px-4 pb-1.5 pt-6 text-base text-ui-fg hover:bg-ui-field-hover focus:outline-none focus:ring-2 focus:ring-ui-interactive/30 ${
            error ? "border-ui-error" : "border-ui-border"
          }`}
          {...props}
        />
        <label
          htmlFor={inputId}
          className="pointer-events-none absolute left-4 top-2 origin-top-left text-xs text-ui-fg-muted transition-all peer-placeholder-shown:top-4 peer-placeholder-shown:text-base peer-focus:top-2 peer-focus:text-xs"
        >
          {label}
          {props.required ? <span className="text-ui-error">*</span> : null}
        </label>
      </div>
      {error ? (
        <span id={errorId} role="alert" className="pt-1 text-sm text-ui-error">
          {error}
        </span>
      ) : null}
    </div>
  )
})

export default Input
