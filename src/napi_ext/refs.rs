//! References that keep (or watch) a JS value across promise continuations.

use std::ptr;

use napi::bindgen_prelude::{Env, JsObjectValue, Object, Unknown};
use napi::{sys, JsValue, UnknownRef};

use super::{Caught, Failure, JsResult, UnknownExt};

/// A strong reference that keeps any JS value alive across promise continuations, released when
/// dropped (drops happen on the JS thread: in callbacks and finalizers). Primitives, which
/// Node-API cannot reference before Node 22, are kept in a one-element array.
pub struct Held {
  env: sys::napi_env,
  reference: Option<UnknownRef>,
  boxed: bool,
}

impl Held {
  pub fn new(env: &Env, value: Unknown) -> JsResult<Held> {
    let boxed = !value.is_object();
    let target = if boxed {
      let mut array = env.create_array(1).caught(env)?;
      array.set(0, value).caught(env)?;
      array.coerce_to_object().caught(env)?.to_unknown()
    } else {
      value
    };
    Ok(Held { env: env.raw(), reference: Some(target.create_ref().caught(env)?), boxed })
  }

  pub fn get<'env>(&self, env: &'env Env) -> JsResult<Unknown<'env>> {
    let reference = self.reference.as_ref().ok_or_else(|| Failure::new("reference released"))?;
    let value = reference.get_value(env).caught(env)?;
    if !self.boxed {
      return Ok(value);
    }
    let array = value.as_object().ok_or_else(|| Failure::new("reference lost its holder"))?;
    array.get_element::<Unknown>(0).caught(env)
  }
}

impl Drop for Held {
  fn drop(&mut self) {
    if let Some(reference) = self.reference.take() {
      let _ = reference.unref(&Env::from_raw(self.env));
    }
  }
}

/// A weak reference (napi-rs's references are strong only): it does not keep its value alive, so
/// a value that owns the holder of this reference is not kept alive by it. Deleted when dropped.
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
