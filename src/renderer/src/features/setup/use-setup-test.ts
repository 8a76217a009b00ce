// The setup test as the guide runs it: start, its progress events, cancel, the result or the error.
import { useCallback, useEffect, useState } from 'react'
import type { SetupTestProgress, SetupTestResult } from '../../../../shared/contract'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'

export type SetupTestState =
  | { kind: 'idle' }
  | { kind: 'running'; progress: SetupTestProgress | null }
  | { kind: 'done'; result: SetupTestResult }
  | { kind: 'failed'; error: AppError }

export function useSetupTest(): {
  state: SetupTestState
  run: () => void
  cancel: () => void
} {
  const api = useApi()
  const [state, setState] = useState<SetupTestState>({ kind: 'idle' })

  useEffect(
    () =>
      api.on('setup:progress', (p) =>
        setState((s) => (s.kind === 'running' ? { kind: 'running', progress: p } : s))
      ),
    [api]
  )

  const run = useCallback(() => {
    setState({ kind: 'running', progress: null })
    void api
      .runSetupTest()
      .then((r) =>
        setState(
          r.ok
            ? { kind: 'done', result: r.value }
            : r.error.code === 'cancelled'
              ? { kind: 'idle' }
              : { kind: 'failed', error: r.error }
        )
      )
  }, [api])

  const cancel = useCallback(() => void api.cancelSetupTest(), [api])
  return { state, run, cancel }
}
