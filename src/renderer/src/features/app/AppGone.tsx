// When Onair itself stops answering (the web shell's socket closed: the app quit or crashed), the page
// says so at once instead of showing a live state that is no longer true, and comes back by itself
// (a reload, so every screen starts from the truth) as soon as Onair answers again.
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { useApi } from '../../lib/api'

export function useAppReachable(): boolean {
  const api = useApi()
  const [reachable, setReachable] = useState(true)
  const wasGone = useRef(false)
  useEffect(
    () =>
      api.on('app:reachable', ({ reachable: r }) => {
        if (!r) wasGone.current = true
        else if (wasGone.current) location.reload()
        setReachable(r)
      }),
    [api]
  )
  return reachable
}

export function AppGone(): ReactNode {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <section className="panel app-gone" role="alert" data-testid="app-gone">
      <h1 ref={heading} tabIndex={-1}>
        Onair is not running
      </h1>
      <p>
        This page lost its connection to Onair: it was closed, or it stopped. Nothing is being
        broadcast from this page.
      </p>
      <p>
        Start Onair again (<code>npm start</code> in its terminal, or open the app). This page
        reconnects by itself when Onair is back.
      </p>
    </section>
  )
}
