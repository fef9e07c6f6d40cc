/**
 * Opt-in tmux location context for the DeepSeek Harness, native (Rust, N-API) drop-in of the
 * JavaScript `@deepseek-ai/dsh-tmux-context`.
 *
 * On the first step of each turn the plugin asks tmux, through the harness's `ctx.shell` executor
 * (`ctx.bash` on 0.0.x harnesses), for the session, window, pane and window layout of the pane this
 * process really lives in (its controlling tty equals the pane's `pane_tty`). When the rendered
 * location differs from the session's newest durable reading, one source-tagged user message is
 * put in front of the step. An absent executor, a process outside tmux, a failed or timed-out query
 * is a no-op, never a turn failure; an executor that throws or rejects is logged with
 * `ctx.logger.warn`.
 *
 * @module @deepseek-ai/dsh-tmux-context
 */
import type { Context } from '@deepseek-ai/cordis';
import z from '@deepseek-ai/schemastery';
/** Cordis plugin name used by loader diagnostics: `'tmux-context'`. */
export declare const name = "tmux-context";
/** The agent registry that owns pre-step processing: `['agents']`. */
export declare const inject: string[];
/**
 * Per-turn tmux-location scheduling. Invalid values fail plugin load with a `TypeError`; a value of
 * another type is refused before that by Cordis's check of {@link Config} (`ValidationError: invalid
 * config: $.<field> …`).
 */
export interface Config {
    /**
     * Minimum milliseconds between durable readings in one session, measured on `Date.now()` from
     * the newest reading's event time. Omit or set to 0 to inject on every eligible change.
     * Must be a non-negative safe integer, else `apply` throws
     * `TypeError('tmux-context: refreshIntervalMs must be a non-negative safe integer, got <value> (change it under config: …)')`.
     */
    refreshIntervalMs?: number;
    /**
     * Bound on one tmux query in milliseconds (default 5000), passed to the executor as
     * `timeoutMs`; the plugin also stops waiting 1000 ms after it. Must be a positive safe integer
     * no greater than 2147483647, else `apply` throws
     * `TypeError('tmux-context: queryTimeoutMs must be a positive safe integer no greater than 2147483647, got <value> (change it under config: …)')`.
     */
    queryTimeoutMs?: number;
    /**
     * Also list panes after the three lines of a reading: `true` or `"window"` the panes of the agent's
     * window, `"session"` those of every window of its session (the agent's window first, each window
     * after a line `window <index> "<name>":`). Each pane's id, index, command and working directory
     * (home as `~`), which is the agent's own, and how its program ended where tmux keeps the pane
     * (`remain-on-exit`); never pane contents. Default `false`: the reading is byte for byte the
     * JavaScript package's. Else `apply` throws
     * `TypeError('tmux-context: panes must be true, false, "window" or "session", got <value> …')`.
     */
    panes?: boolean | 'window' | 'session';
    /**
     * With `panes` on, these tmux user options of each pane, shown after its path where set
     * (` @agent-name "scout"`, cut to 64 characters); unset ones are left out. At most 4 distinct
     * names, each `@` then 1 to 32 letters, digits, `_` or `-` (`/^@[A-Za-z0-9_-]{1,32}$/`), in a
     * real array; a name listed twice is refused. Default `[]`. Else `apply` throws a `TypeError`
     * naming the entry (`paneOptions[<index>]`), its value, the rule and where to change it.
     */
    paneOptions?: readonly string[];
    /**
     * With `panes` on, each pane's title after its options (` title "…"`, cut to 64 characters),
     * unless it is tmux's default (the host name). A title change alone is never news. Default
     * `false`. Must be a boolean, else `apply` throws
     * `TypeError('tmux-context: paneTitles must be true or false, got <value> …')`.
     */
    paneTitles?: boolean;
    /**
     * A line after the location's three: `clients: 1 attached, 1 showing this window` (tmux 3.1+;
     * older: `clients: 1 attached`), with `panes` on or off. News only when a count goes between 0
     * and some. Default `false`. Must be a boolean, else `apply` throws
     * `TypeError('tmux-context: clients must be true or false, got <value> …')`.
     */
    clients?: boolean;
}
/** Schemastery validation for {@link Config}. */
export declare const Config: z<Config>;
/**
 * Register a prepended `agent/pre-step` listener for the lifetime of `ctx`.
 * @param ctx - plugin context; the listener is disposed with it.
 * @param config - durable refresh scheduling, query bound and what a reading lists.
 * @throws TypeError when `refreshIntervalMs`, `queryTimeoutMs`, `panes`, `paneOptions`, `paneTitles` or
 *   `clients` is invalid.
 */
export declare function apply(ctx: Context, config: Config): void;
