// What every modal dialog does for keyboard and screen-reader users: focus moves into it (to `first`),
// Tab and Shift+Tab stay inside it, Esc closes it wherever focus is inside (a focused <video> too:
// the key is caught before the element sees it), and on close focus goes back to what opened it.
import { useEffect, useRef, type RefObject } from 'react'

const TABBABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), video[controls], [tabindex]:not([tabindex="-1"])'

export function useDialog(
  dialog: RefObject<HTMLElement | null>,
  first: RefObject<HTMLElement | null>,
  onClose: () => void
): void {
  // The latest onClose, without re-running the effect (which would move focus again) on each render.
  const close = useRef(onClose)
  close.current = onClose
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null
    first.current?.focus()
    const onKey = (e: KeyboardEvent): void => {
      const box = dialog.current
      if (!box) return
      if (e.key === 'Escape') {
        e.preventDefault()
        e.stopPropagation()
        close.current()
        return
      }
      if (e.key !== 'Tab') return
      const items = [...box.querySelectorAll<HTMLElement>(TABBABLE)].filter(
        (el) => el.offsetParent !== null || el === document.activeElement
      )
      const head = items[0]
      const tail = items[items.length - 1]
      if (!head || !tail) return
      const active = document.activeElement
      if (e.shiftKey && (active === head || !box.contains(active))) {
        e.preventDefault()
        tail.focus()
      } else if (!e.shiftKey && (active === tail || !box.contains(active))) {
        e.preventDefault()
        head.focus()
      }
    }
    // Capture phase: the dialog hears Esc and Tab before any element inside it can swallow them.
    window.addEventListener('keydown', onKey, true)
    return () => {
      window.removeEventListener('keydown', onKey, true)
      opener?.focus()
    }
  }, [dialog, first])
}
