//! Promises made and settled on the JS thread.

use std::ptr;

use napi::bindgen_prelude::{Env, Object, Unknown};
use napi::{sys, JsValue};

use super::{take_exception, Failure, JsResult};

/// The settling side of a promise made on the JS thread (napi-rs's deferreds settle from other
/// threads through a threadsafe function, a hop this plugin never needs).
pub struct Deferred(sys::napi_deferred);

impl Deferred {
  /// A new pending promise and the deferred that settles it.
  pub fn new(env: &Env) -> JsResult<(Deferred, Object<'_>)> {
    let mut deferred = ptr::null_mut();
    let mut promise = ptr::null_mut();
    // SAFETY: writes the two out-pointers on this stack frame; `env` is this thread's live env.
    let status = unsafe { sys::napi_create_promise(env.raw(), &mut deferred, &mut promise) };
    if status != sys::Status::napi_ok {
      return Err(Failure(format!("cannot create a promise (N-API status {status})")));
    }
    Ok((Deferred(deferred), Object::from_raw(env.raw(), promise)))
  }

  /// Resolves the promise with `value`; consumes the deferred, which Node-API frees on settling.
  pub fn resolve(self, env: &Env, value: Unknown) -> JsResult<()> {
    // SAFETY: `self.0` is a deferred from `napi_create_promise` on this env, settled once: `self`
    // is consumed here and deferreds are never copied.
    let status = unsafe { sys::napi_resolve_deferred(env.raw(), self.0, value.raw()) };
    if status != sys::Status::napi_ok {
      take_exception(env);
      return Err(Failure(format!("cannot settle a promise (N-API status {status})")));
    }
    Ok(())
  }
}
