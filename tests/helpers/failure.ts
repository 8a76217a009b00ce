// The AppError a call failed with; the test fails if the call succeeded or threw anything else.
import { expect } from 'vitest'
import { AppFailure, type AppError } from '../../src/shared/result'

export const failure = async (p: Promise<unknown>): Promise<AppError> => {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(AppFailure)
    return (e as AppFailure).error
  }
  throw new Error('expected a failure')
}
