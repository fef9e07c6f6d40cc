// The newest-first walk over a session's events, handed to the native build at apply (index.js):
// V8 walks an array of objects at a few nanoseconds an element, where a walk through Node-API
// costs about half a microsecond an event. Being a module, it needs no code compiled from strings.
// It only finds candidates; the native build decides what a candidate holds.

/** `[...events]` for an iterable without `length` (a `Set`, a generator), as the JS package reads it. */
export function spread(events) {
  if (typeof events[Symbol.iterator] !== 'function') throw new TypeError('agent.session.events is not iterable')
  return [...events]
}

const isObject = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function'

/**
 * The index of the newest event in `from..to` whose `type` is `'user/message'` and whose
 * `data.source` names `plugin` (`{ kind: 'plugin', plugin }`, or the 0.1.7+ `{ kind: plugin }`), or -1.
 */
export function newestCandidate(events, from, to, plugin) {
  if (!Array.isArray(events)) events = [...events]
  for (let i = to - 1; i >= from; i--) {
    const e = events[i]
    if (isObject(e) && e.type === 'user/message') {
      const d = e.data
      if (isObject(d)) {
        const s = d.source
        if (isObject(s) && ((s.kind === 'plugin' && s.plugin === plugin) || s.kind === plugin)) return i
      }
    }
  }
  return -1
}
