import type { ReactNode } from 'react'
import type { ProfileIssue } from '../../../../shared/profiles'
import { describeIssue } from './profile-rows'

/** Every rule the form broke, by field, and a plain statement that nothing went to the service. */
export function IssueList({ issues }: { issues: ProfileIssue[] }): ReactNode {
  if (issues.length === 0) return null
  return (
    <div className="issues" role="alert" data-testid="form-issues">
      <p>Nothing was sent. Fix these first:</p>
      <ul>
        {issues.map((i) => {
          const d = describeIssue(i)
          return (
            <li key={`${i.field}:${i.message}`} data-field={i.field}>
              <strong>{d.where}</strong>: {d.message}
            </li>
          )
        })}
      </ul>
    </div>
  )
}
