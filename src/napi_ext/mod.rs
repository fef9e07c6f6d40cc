//! The gaps of napi-rs 3's typed API this plugin meets, as small extensions of its types, each
//! saying which gap it fills. All of the crate's `unsafe` code is here.

use std::ptr;

mod refs;

pub use refs::{Held, Weak};

use napi::bindgen_prelude::{
  Env, FromNapiValue, Function, JsObjectValue, JsValuesTupleIntoVec, Object, Result as NapiResult, ToNapiValue,
  Unknown, ValueType,
};
use napi::{sys, JsValue};

/// Why a JS step failed: the thrown error's message, or what napi-rs reported.
#[derive(Debug, Clone)]
pub struct Failure(pub String);

impl Failure {
  pub fn new(reason: impl Into<String>) -> Failure {
    Failure(reason.into())
  }
}

pub type JsResult<T> = Result<T, Failure>;

impl From<Failure> for napi::Error {
  fn from(Failure(reason): Failure) -> napi::Error {
    napi::Error::new(napi::Status::GenericFailure, reason)
  }
}

/// A JS function called with `this` and any number of arguments.
pub type JsFunction<'env> = Function<'env, Args<'env>, Unknown<'env>>;

/// Any number of arguments (napi-rs's `FnArgs` takes a tuple of a fixed size).
pub struct Args<'env>(pub Vec<Unknown<'env>>);

impl JsValuesTupleIntoVec for Args<'_> {
  fn into_vec(self, _env: sys::napi_env) -> NapiResult<Vec<sys::napi_value>> {
    Ok(self.0.iter().map(|v| v.raw()).collect())
  }
}

/// A napi-rs failure as a [`Failure`], with the pending JS exception taken (no safe napi-rs way).
pub trait Caught<T> {
  fn caught(self, env: &Env) -> JsResult<T>;
}

impl<T> Caught<T> for NapiResult<T> {
  fn caught(self, env: &Env) -> JsResult<T> {
    self.map_err(|error| match take_exception(env) {
      Some(thrown) => Failure(error_message(env, thrown)),
      None => Failure(format!("{} ({})", error.reason, error.status)),
    })
  }
}

/// The pending JS exception, taken off the engine; `None` when nothing is pending.
pub fn take_exception(env: &Env) -> Option<Unknown<'_>> {
  let mut pending = false;
  let mut thrown = ptr::null_mut();
  // SAFETY: napi-rs has no safe way to take a pending exception. The calls write only to the
  // out-pointers on this stack frame; `thrown` is then a live value of this env, of any type.
  unsafe {
    let taken = sys::napi_is_exception_pending(env.raw(), &mut pending) == sys::Status::napi_ok
      && pending
      && sys::napi_get_and_clear_last_exception(env.raw(), &mut thrown) == sys::Status::napi_ok;
    taken.then(|| Unknown::from_raw_unchecked(env.raw(), thrown))
  }
}

/// `error instanceof Error ? error.message : String(error)`, never failing: the JS package's wording.
pub fn error_message(env: &Env, error: Unknown) -> String {
  let shown = (|| {
    let global = env.get_global().caught(env)?;
    let error_class: Unknown = global.get_c_named_property_unchecked(c"Error").caught(env)?;
    let is_error = error.is_object() && error.instanceof(error_class).caught(env)?;
    let shown = if is_error { error.get_loose(env, c"message")? } else { error };
    let string: Unknown = global.get_c_named_property_unchecked(c"String").caught(env)?;
    Ok::<_, Failure>(string.call_with(env, undefined(env), vec![shown])?.as_string().unwrap_or_default())
  })();
  shown.unwrap_or_else(|_| String::from("unknown error"))
}

/// Typed views of an [`Unknown`] whose type was checked (napi-rs's `from_unknown` checks none),
/// and JS's loose property access.
pub trait UnknownExt<'env>: Sized {
  fn unknown(&self) -> Unknown<'env>;

  fn type_is(&self, expected: ValueType) -> bool {
    self.unknown().get_type().is_ok_and(|t| t == expected)
  }

  /// `typeof v === 'object' && v !== null || typeof v === 'function'`.
  fn is_object(&self) -> bool {
    matches!(self.unknown().get_type(), Ok(ValueType::Object | ValueType::Function))
  }

  fn is_undefined(&self) -> bool {
    self.type_is(ValueType::Undefined)
  }

  fn cast_as<V: FromNapiValue>(&self, expected: ValueType) -> Option<V> {
    self.type_is(expected).then(|| V::from_unknown(self.unknown()).ok()).flatten()
  }

  fn as_object(&self) -> Option<Object<'env>> {
    self.is_object().then(|| Object::from_unknown(self.unknown()).ok()).flatten()
  }

  fn as_function(&self) -> Option<JsFunction<'env>> {
    self.cast_as(ValueType::Function)
  }

  fn as_number(&self) -> Option<f64> {
    self.cast_as(ValueType::Number)
  }

  /// The string's text (lone surrogates become U+FFFD); `None` when it is not a string.
  fn as_string(&self) -> Option<String> {
    self.cast_as(ValueType::String)
  }

  /// A string's text, or a `String` object's; `None` for anything else.
  fn as_string_value(&self, env: &Env) -> Option<String> {
    let v = self.unknown();
    if !v.is_object() {
      return v.as_string();
    }
    let string = env.get_global().ok()?.get_named_property_unchecked::<Unknown>("String").ok()?;
    v.instanceof(string).caught(env).ok()?.then(|| v.coerce_to_string().caught(env).ok()?.to_unknown().as_string())?
  }

  /// Whether the value is the string `expected`, without copying a long string.
  fn string_is(&self, expected: &str) -> bool {
    let Some(s) = self.cast_as::<napi::JsString>(ValueType::String) else {
      return false;
    };
    s.utf8_len().is_ok_and(|len| len == expected.len())
      && s.into_utf8().is_ok_and(|utf8| utf8.as_slice() == expected.as_bytes())
  }

  /// `v[key]` as JS reads it: a primitive through its wrapper; `null`/`undefined` fail.
  fn get_loose(&self, env: &Env, key: &std::ffi::CStr) -> JsResult<Unknown<'env>> {
    let v = self.unknown();
    let object = match v.get_type().caught(env)? {
      ValueType::Object | ValueType::Function => Object::from_unknown(v).caught(env)?,
      ValueType::Undefined | ValueType::Null => {
        let nothing = if v.type_is(ValueType::Null) { "null" } else { "undefined" };
        return Err(Failure(format!("cannot read properties of {nothing} (reading '{}')", key.to_string_lossy())));
      }
      _ => v.coerce_to_object().caught(env)?,
    };
    object.get_c_named_property_unchecked(key).caught(env)
  }

  /// JS truthiness (`!!v`).
  fn truthy(&self, env: &Env) -> bool {
    self.unknown().coerce_to_bool().caught(env).unwrap_or(false)
  }

  /// `f.apply(this, args)` for a function value; a thrown error becomes a [`Failure`].
  fn call_with(&self, env: &Env, this: Unknown, args: Vec<Unknown<'env>>) -> JsResult<Unknown<'env>> {
    let f = self.unknown().as_function().ok_or_else(|| Failure::new("not a function"))?;
    f.apply(this, Args(args)).caught(env)
  }
}

impl<'env> UnknownExt<'env> for Unknown<'env> {
  fn unknown(&self) -> Unknown<'env> {
    *self
  }
}

/// One value of type `T` per JS environment, made by `make` on first use, in a map by type in the
/// instance-data slot (left to the environment at teardown), read through napi-sys: napi-rs's own
/// needs its `napi6` feature, whose custom GC costs every load 10–15 µs (a thread-safe function).
pub fn per_env<T: 'static>(env: &Env, make: impl FnOnce() -> JsResult<T>) -> JsResult<&'static T> {
  type PerEnv = std::collections::HashMap<std::any::TypeId, Box<dyn std::any::Any>>;
  let mut data = ptr::null_mut();
  // SAFETY: the calls write only `data` and the slot, which nothing else uses (napi-rs: only with
  // `napi6`), so non-null is the `Box<PerEnv>` set below, leaked for the env; only its JS thread runs.
  let map = unsafe {
    if sys::napi_get_instance_data(env.raw(), &mut data) != sys::Status::napi_ok || data.is_null() {
      data = Box::into_raw(Box::<PerEnv>::default()).cast();
      if sys::napi_set_instance_data(env.raw(), data, None, ptr::null_mut()) != sys::Status::napi_ok {
        drop(Box::from_raw(data.cast::<PerEnv>()));
        return Err(Failure::new("tmux-context: no instance data"));
      }
    }
    &mut *data.cast::<PerEnv>()
  };
  let key = std::any::TypeId::of::<T>();
  if map.get(&key).is_none() {
    // Made before it is put in, so `make` may itself use per_env.
    let value: Box<dyn std::any::Any> = Box::new(make()?);
    map.entry(key).or_insert(value);
  }
  let found = map.get(&key).and_then(|value| value.downcast_ref::<T>());
  found.ok_or_else(|| Failure::new("tmux-context: instance data of another type"))
}

/// A plain object with these properties, in this order.
pub fn object_of<'env>(env: &'env Env, props: &[(&std::ffi::CStr, Unknown)]) -> JsResult<Object<'env>> {
  let mut object = Object::new(env).caught(env)?;
  for (key, value) in props {
    object.set_c_named_property(key, *value).caught(env)?;
  }
  Ok(object)
}

/// `undefined` (napi-rs makes it through a `Result`).
pub fn undefined(env: &Env) -> Unknown<'_> {
  ().into_unknown(env).expect("undefined")
}
