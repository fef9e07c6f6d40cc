//! `@deepseek-ai/dsh-tmux-context`, native: a Cordis plugin of the DeepSeek Harness that tells the
//! model where its agent process runs in tmux.
//!
//! The pure core, with no Node-API in it: [`config`] (what the config accepts), [`command`] (the
//! tmux query), [`executor`] (which executor API it goes through), [`server`] (which tmux binary may
//! answer it), [`parse`] (its output), [`layout`] (a layout's pane tree), [`render`] (the reading),
//! [`schedule`] (whether one is due), [`reading_index`] (which events to read for the newest
//! reading), [`surface`] (whether the model still sees it), [`backoff`] (after a stuck tmux),
//! [`sandbox`] (the query's policy), [`diagnostics`] (what is logged). The Node-API edge: `plugin`
//! (`apply`), `listener` (the pre-step flow), `pending` (calls in flight and their settling),
//! `session_index` (the newest reading per session), `message` (the reading as a message),
//! `sandbox_edge`, over napi-rs's typed API and the few extensions of it in `napi_ext`.

pub mod backoff;
pub mod command;
pub mod config;
pub mod diagnostics;
pub mod executor;
pub mod layout;
pub mod parse;
pub mod reading_index;
pub mod render;
pub mod sandbox;
pub mod schedule;
pub mod server;
pub mod surface;

mod listener;
mod message;
mod napi_ext;
mod pending;
mod plugin;
mod sandbox_edge;
mod session_index;

use napi::bindgen_prelude::{Env, JsObjectValue, Object, Result, Unknown};
use napi_derive::napi;

/// Module exports: `name` (`'tmux-context'`), `inject` (`['agents']`), `apply(ctx, config)`, and
/// `version`, the npm package's (package.json's `version`, for the debug line at load).
#[napi(module_exports)]
pub fn init(mut exports: Object, env: Env) -> Result<()> {
  exports.set_c_named_property(c"name", render::PLUGIN_NAME)?;
  exports.set_c_named_property(c"inject", vec!["agents"])?;
  exports.set_c_named_property(c"version", env!("NPM_PACKAGE_VERSION"))?;
  exports.set_c_named_property(
    c"apply",
    env.create_function_from_closure::<Unknown, _, _>("apply", plugin::apply)?,
  )?;
  Ok(())
}
