// The newest-first walk over a session's events, compiled once per JS environment by
// src/session_index.rs (napi_run_script, which `--disallow-code-generation-from-strings` does not
// forbid). V8 walks an array of objects at a few nanoseconds an element; a walk through Node-API
// costs about half a microsecond an event. It only finds candidates; Rust decides what one holds.
;({
  /** `[...events]` for an iterable without `length` (a `Set`, a generator), as the JS package reads it. */
  spread(events) {
    if (typeof events[Symbol.iterator] !== 'function') throw new TypeError('agent.session.events is not iterable')
    return [...events]
  },
  /**
   * The index of the newest event in `from..to` whose `type` is `'user/message'` and whose
   * `data.source` names `plugin` (`{ kind: 'plugin', plugin }`, or the 0.1.7+ `{ kind: plugin }`), or -1.
   */
  newestCandidate(events, from, to, plugin) {
    if (!Array.isArray(events)) events = [...events]
    const isObject = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function'
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
  },
})
