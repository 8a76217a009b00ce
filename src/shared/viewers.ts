// Viewers (#20): the mark that tells the local studio a player is Onair's own live monitor, which it
// does not count as a viewer (src/studio/viewers.ts). Other services ignore the extra query; Livepeer
// counts viewers from its player's metrics, which the monitor never sends.

/** `?onair=monitor` on a live master playlist's URL. */
export const MONITOR_PARAM = 'onair'
export const MONITOR_VALUE = 'monitor'

/** The live monitor's copy of a playback URL. */
export const monitorUrl = (url: string): string =>
  `${url}${url.includes('?') ? '&' : '?'}${MONITOR_PARAM}=${MONITOR_VALUE}`
