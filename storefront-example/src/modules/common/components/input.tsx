import { forwardRef, InputHTMLAttributes } from "react"

// The starter's Input props: a floating label, a required name, no
// placeholder and no error prop (a message goes in an ErrorMessage beside it).
type InputProps = Omit<
  Omit<InputHTMLAttributes<HTMLInputElement>, "size">,
  "placeholder"
> & {
  label: string
  name: string
  errors?: Record<string, unknown>
  touched?: Record<string, unknown>
  topLabel?: string
}

/** A text field with its label floating inside, as the starter's checkout fields look. */
const Input = forwardRef<HTMLInputElement, InputProps>(function Input(
  { label, name, id, topLabel, errors: _errors, touched: _touched, ...props },
  ref
) {
  const inputId = id ?? name
  return (
    <div className="flex w-full flex-col">
      {topLabel ? (
        <span className="mb-2 text-sm font-medium">{topLabel}</span>
      ) : null}
      <div className="relative z-0 w-full">
        <input
          ref={ref}
          id={inputId}
          name={name}
          placeholder=" "
          className="peer mt-0 block h-14 w-full appearance-none rounded-md border border-ui-border bg-ui-field px-4 pb-1.5 pt-6 text-base text-ui-fg hover:bg-ui-field-hover focus:outline-none focus:ring-2 focus:ring-ui-interactive/30 aria-[invalid=true]:border-ui-error"
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
    </div>
  )
})

export default Input
