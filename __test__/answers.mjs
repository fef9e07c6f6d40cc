// What the executor answers in the suites and the bench: a tmux reading line and a ShellRunResult.
// A module of its own, so that a bench process can use them without importing either package
// (harness.mjs imports both).
export const SEP = '\\t'

/** A tmux reading as the executor prints it: the eight fields joined by the two characters `\t`. */
export function line(fields = {}) {
  const f = {
    session: 'main',
    windowIndex: '1',
    windowName: 'editor',
    paneIndex: '0',
    paneId: '%3',
    windowActive: '1',
    paneActive: '1',
    layout: 'b25f,80x24,0,0,3',
    ...fields,
  }
  return [f.session, f.windowIndex, f.windowName, f.paneIndex, f.paneId, f.windowActive, f.paneActive, f.layout].join(SEP)
}

/** A ShellRunResult. */
export function runResult(text, exitCode = 0) {
  return {
    exitCode,
    signal: null,
    timedOut: false,
    aborted: false,
    timeoutMs: 1000,
    stdout: { text, bytes: Buffer.byteLength(text), truncated: false },
    stderr: { text: '', bytes: 0, truncated: false },
  }
}
