import { useEffect, useState, type ReactNode } from 'react'
import type { AppError, Result } from '../../../shared/result'

/**
 * Copies text fetched on demand (a stream key is only asked for when the user copies it). Falls back to
 * a hidden textarea where the async clipboard API is not allowed (plain http web shell).
 */
export function CopyButton({
  label,
  getText,
  testId,
  onError
}: {
  label: string
  getText: () => Promise<Result<string>> | Result<string>
  testId?: string
  onError?: (e: AppError) => void
}): ReactNode {
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return
    const t = setTimeout(() => setCopied(false), 1500)
    return () => clearTimeout(t)
  }, [copied])

  const copy = async (): Promise<void> => {
    const r = await getText()
    if (!r.ok) return onError?.(r.error)
    if (await writeClipboard(r.value)) setCopied(true)
    else onError?.({ code: 'internal', message: 'The clipboard refused the copy.' })
  }
  return (
    <button
      type="button"
      className="secondary"
      aria-label={label}
      data-testid={testId}
      onClick={copy}
    >
      {copied ? 'Copied' : 'Copy'}
    </button>
  )
}

export async function writeClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text)
    return true
  } catch {
    const area = document.createElement('textarea')
    area.value = text
    area.setAttribute('readonly', '')
    area.style.position = 'fixed'
    area.style.opacity = '0'
    document.body.appendChild(area)
    area.select()
    const done = document.execCommand('copy')
    area.remove()
    return done
  }
}
