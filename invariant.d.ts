/**
 * Package-owned invariant companion for `@deepseek-ai/dsh-tmux-context`.
 * @module @deepseek-ai/dsh-tmux-context/invariant
 */
import type { Context } from '@deepseek-ai/cordis';
/** Cordis companion plugin name: `'tmux-context-invariant'`. */
export declare const name = "tmux-context-invariant";
/** Service required before the companion can reserve package ownership: `['invariants']`. */
export declare const inject: string[];
/**
 * Register this package's invariant companion.
 * @param ctx - Cordis context carrying the invariant service.
 * @returns the installed registration's disposer after setup succeeds.
 */
export declare const apply: (ctx: Context) => Promise<() => void>;
