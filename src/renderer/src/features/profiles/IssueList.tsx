import type { ReactNode } from 'react'
import type { ProfileIssue } from '../../../../shared/profiles'

/** Every rule the form broke, by field, and a plain statement that nothing went to the service. */
export function IssueList({ issues }: { issues: ProfileIssue[] }): ReactNode {
  if (issues.length === 0) return null
  return (
    <div className="issues" role="alert" data-testid="form-issues">
      <p>Nothing was sent. Fix these first:</p>
      <ul>
        {issues.map((i) => (
          <li key={`${i.field}:${i.message}`} data-field={i.field}>
            <code>{i.field}</code>: {i.message}
          </li>
        ))}
      </ul>
    </div>
  )
}
