//! index.js's functions that the edge calls, kept by each applied plugin: the `index.js` that
//! applied it (two copies of the package may share one native module, through the generated
//! loader's require cache, and each must hear back from its own).

use napi::bindgen_prelude::{Env, Unknown};

use crate::napi_ext::{Failure, Held, JsResult, UnknownExt};

/// The walk over the log (`spread`, `newestReading`), a query's start, and the decision with a reading.
pub struct Helpers {
  pub spread: Held,
  pub newest_reading: Held,
  pub started: Held,
  pub enter: Held,
}

/// Why `apply` refuses its `helpers`: they are not index.js's.
pub const HELPERS_WANTED: &str =
  "tmux-context: apply(ctx, config, helpers, pid) needs index.js's functions ({ spread, newestReading, started, enter })";

/// The helpers handed over at `apply`, held; fails on a non-function.
pub fn keep_helpers(env: &Env, helpers: Unknown) -> JsResult<Helpers> {
  let function = |key| -> JsResult<Held> {
    let f = helpers.get_loose(env, key)?;
    f.as_function().ok_or_else(|| Failure::new(HELPERS_WANTED))?;
    Held::new(env, f)
  };
  let (spread, newest_reading) = (function(c"spread")?, function(c"newestReading")?);
  let (started, enter) = (function(c"started")?, function(c"enter")?);
  Ok(Helpers { spread, newest_reading, started, enter })
}
