//! `@deepseek-ai/dsh-tmux-context`, native: a Cordis plugin of the DeepSeek Harness that tells the
//! model where its agent process runs in tmux.
//!
//! The pure core, with no Node-API in it: [`config`], [`command`] (the tmux query), [`executor`]
//! (which executor API), [`server`] (which tmux binary may answer), [`parse`], [`layout`],
//! [`render`], [`refresh`] (the refresh floor), [`change`] (whether a location is news),
//! [`reading_index`], [`surface`], [`backoff`], [`sandbox`], [`diagnostics`].
//!
//! The Node-API edge, in layers, each importing only those below it: `listener` (`afterNext`) →
//! `query` (the executor, `queryResult`) → `host` (one applied plugin; `plugin`'s `apply` stands on
//! it), `sandbox_edge` → `session_index` (the newest reading) → `helpers` (index.js's) → `napi_ext`.

// `cargo test` builds register no `#[napi]` export (napi-derive), so the edge goes unused there.
#![cfg_attr(test, allow(dead_code))]

pub mod backoff;
pub mod change;
pub mod command;
pub mod config;
pub mod diagnostics;
pub mod executor;
pub mod layout;
pub mod panes;
pub mod parse;
pub mod reading_index;
pub mod refresh;
pub mod render;
pub mod sandbox;
pub mod server;
pub mod surface;

mod helpers;
mod host;
mod listener;
mod napi_ext;
mod plugin;
mod query;
mod sandbox_edge;
mod session_index;
