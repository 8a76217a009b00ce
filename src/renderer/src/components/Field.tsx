// A labelled form field with its problem said under it, outside the label: the control's accessible
// name is the label alone ("Name"), and the problem is its description (aria-describedby), so a screen
// reader says both and a test finds the field by its name while the error shows.
import { useId, type ReactNode } from 'react'

/** What the field's control takes: its id (the label's target) and the link to its problem. */
export interface ControlProps {
  id: string
  'aria-invalid'?: true
  'aria-describedby'?: string
}

export function Field({
  label,
  issue,
  issueTestId,
  describedBy,
  note,
  className,
  children
}: {
  label: ReactNode
  /** The field's problem, if any: shown under it and linked as the control's description. */
  issue?: string | null
  issueTestId?: string
  /** The id of a problem said elsewhere (an error note under the form) that is this field's. */
  describedBy?: string
  /** Other lines under the field (a warning that is not a problem). */
  note?: ReactNode
  className?: string
  children: (control: ControlProps) => ReactNode
}): ReactNode {
  const id = useId()
  const issueId = `${id}-issue`
  const describedby = issue ? issueId : describedBy
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        ...(issue || describedBy ? { 'aria-invalid': true as const } : {}),
        ...(describedby ? { 'aria-describedby': describedby } : {})
      })}
      {issue && (
        <span className="field-issue" id={issueId} data-testid={issueTestId}>
          {issue}
        </span>
      )}
      {note}
    </div>
  )
}
