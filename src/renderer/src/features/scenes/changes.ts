// "Something changed, read me again": what the program and the mix tell the React views that show them.
export class Changes {
  private listeners = new Set<() => void>()

  /** Adds a listener; returns its removal (a React effect's cleanup). */
  on = (fn: () => void): (() => void) => {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  emit(): void {
    for (const fn of this.listeners) fn()
  }

  clear(): void {
    this.listeners.clear()
  }
}
