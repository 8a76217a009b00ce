// A session's copy on this computer (Record on this computer): "On this computer", with open-folder and
// play. The desktop app opens them with the OS (its file manager, its player); a browser page cannot,
// so the web shell answers the path, which LocalPathNote shows with a copy button.
import type { ReactNode } from 'react'
import type { LocalRecordingView, OpenLocalResult } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { CopyButton } from '../../components/CopyButton'
import { useApi } from '../../lib/api'
import { localCopyNote } from './local-copy-words'

const STATE_WORDS: Record<LocalRecordingView['state'], string> = {
  recording: 'recording now',
  saved: 'saved',
  interrupted: 'interrupted when Onair closed',
  stopped: 'stopped early'
}

export function LocalCopy({
  rec,
  when,
  subject = `the copy on this computer of the session from ${when}`,
  onPath,
  onError
}: {
  rec: LocalRecordingView
  /** The session's date, for the buttons' accessible names. */
  when: string
  /** What the buttons' accessible names call the file (a recording with no stream has no session). */
  subject?: string
  onPath: (r: OpenLocalResult) => void
  onError: (e: AppError) => void
}): ReactNode {
  const api = useApi()
  const open = (action: 'folder' | 'play'): void =>
    void api.openLocalRecording(rec.id, action).then((r) => {
      if (!r.ok) onError(r.error)
      else if (!r.value.opened) onPath(r.value)
    })
  const note = localCopyNote(rec)
  return (
    <span
      className="local-copy"
      data-testid="local-copy"
      data-state={rec.state}
      title={`${rec.file} (${note ?? STATE_WORDS[rec.state]}${rec.error ? `: ${rec.error.message}` : ''})`}
    >
      {/* The note goes under the label: the row is one line high, and beside it the buttons were
          pushed out of the row. */}
      <span className="local-copy-text">
        <span className="local-copy-label">On this computer</span>
        {note && (
          <span className="local-copy-note" data-testid="local-copy-note">
            {note}
          </span>
        )}
      </span>
      <button
        type="button"
        className="secondary"
        aria-label={`Open the folder of ${subject}`}
        data-testid="local-copy-folder"
        onClick={() => open('folder')}
      >
        Folder
      </button>
      <button
        type="button"
        className="secondary"
        aria-label={`Play ${subject}`}
        data-testid="local-copy-play"
        disabled={rec.state === 'recording'}
        onClick={() => open('play')}
      >
        Play file
      </button>
    </span>
  )
}

/** The web shell's answer: the file's path, to open from the OS yourself. */
export function LocalPathNote({ path, onClose }: { path: string; onClose: () => void }): ReactNode {
  return (
    <div className="local-path-note" role="status" data-testid="local-path-note">
      <p>
        A browser page cannot open files on this computer. The copy is here:{' '}
        <span className="mono">{path}</span>
      </p>
      <CopyButton label="Copy the path" getText={() => ({ ok: true, value: path })} />
      <button type="button" className="link" onClick={onClose}>
        Close
      </button>
    </div>
  )
}
