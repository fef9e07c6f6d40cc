//! `@deepseek-ai/dsh-tmux-context`, native: a Cordis plugin of the DeepSeek Harness that tells the
//! model where its agent process runs in tmux.
//!
//! The pure core, with no Node-API in it: [`schedule`] (whether a step asks tmux), [`refresh`]
//! (the refresh floor), [`command`] (the tmux query), [`server`] (which tmux binary may answer),
//! [`parse`], [`layout`], [`quote`], [`render`], [`panes`] (the window's or the session's panes), [`change`] (whether a location is news), [`backoff`],
//! [`diagnostics`]. The edge is `plugin`: plain values in and out, for index.js.

pub mod backoff;
pub mod bound;
pub mod change;
pub mod command;
pub mod diagnostics;
pub mod layout;
pub mod panes;
pub mod parse;
pub mod quote;
pub mod refresh;
pub mod render;
pub mod schedule;
pub mod server;

mod plugin;
