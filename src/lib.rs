//! `@deepseek-ai/dsh-tmux-context`, native: a Cordis plugin of the DeepSeek Harness that tells the
//! model where its agent process runs in tmux. `core` holds the pure rules, `plugin` the N-API
//! edge, `js` the raw N-API helpers the edge uses.

pub mod core;
mod js;
mod plugin;

use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Module exports: `name` (`'tmux-context'`), `inject` (`['agents']`) and `apply(ctx, config)`.
#[napi(module_exports)]
pub fn init(exports: Object, env: Env) -> Result<()> {
  let js = js::Js::new(env.raw());
  let setup = || -> js::JsResult<()> {
    let exports = exports.raw();
    js.set(exports, c"name", js.string(core::PLUGIN_NAME)?)?;
    js.set(exports, c"inject", js.array_of(&[js.string("agents")?])?)?;
    let apply = js.function(c"apply", |js, _this, args| plugin::apply(js, args[0], args[1]))?;
    js.set(exports, c"apply", apply)
  };
  setup().map_err(|js::Failure(reason)| Error::new(Status::GenericFailure, reason))
}
