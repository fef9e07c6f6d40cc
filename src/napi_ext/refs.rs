//! References that keep (or watch) a JS value across calls.

use std::ptr;

use napi::bindgen_prelude::{Env, Object, Unknown};
use napi::{sys, JsValue, UnknownRef};

use super::{Caught, Failure, JsResult};

/// A strong reference to an object or a function (Node 20's Node-API references no primitive),
/// released when dropped (on the JS thread: in callbacks and finalizers).
pub struct Held {
  env: sys::napi_env,
  reference: Option<UnknownRef>,
}

impl Held {
  pub fn new(env: &Env, value: Unknown) -> JsResult<Held> {
    Ok(Held { env: env.raw(), reference: Some(value.create_ref().caught(env)?) })
  }

  pub fn get<'env>(&self, env: &'env Env) -> JsResult<Unknown<'env>> {
    let reference = self.reference.as_ref().ok_or_else(|| Failure::new("reference released"))?;
    reference.get_value(env).caught(env)
  }
}

impl Drop for Held {
  fn drop(&mut self) {
    if let Some(reference) = self.reference.take() {
      let _ = reference.unref(&Env::from_raw(self.env));
    }
  }
}

/// A weak reference (napi-rs's are strong only), deleted when dropped.
pub struct Weak {
  env: sys::napi_env,
  raw: sys::napi_ref,
}

impl Weak {
  pub fn new(env: &Env, value: Object) -> JsResult<Weak> {
    let mut raw = ptr::null_mut();
    // SAFETY: creates a reference with count 0 (weak) to a live object of this env; the out-pointer
    // is on this stack frame.
    let status = unsafe { sys::napi_create_reference(env.raw(), value.raw(), 0, &mut raw) };
    if status != sys::Status::napi_ok {
      return Err(Failure(format!("cannot create a reference (N-API status {status})")));
    }
    Ok(Weak { env: env.raw(), raw })
  }

  /// The value, `None` once it was collected.
  pub fn get<'env>(&self, env: &'env Env) -> Option<Object<'env>> {
    let mut value = ptr::null_mut();
    // SAFETY: `self.raw` is a live reference of this env (deleted only on drop); the out-pointer is
    // on this stack frame.
    let status = unsafe { sys::napi_get_reference_value(env.raw(), self.raw, &mut value) };
    (status == sys::Status::napi_ok && !value.is_null()).then(|| Object::from_raw(env.raw(), value))
  }
}

impl Drop for Weak {
  fn drop(&mut self) {
    // SAFETY: deletes the reference made in `new`, once; drops happen on the JS thread of its env.
    unsafe { sys::napi_delete_reference(self.env, self.raw) };
  }
}
