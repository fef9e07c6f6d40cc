//! A thin, fallible layer over raw N-API calls, used on the JS thread only. Every call that lets JS
//! run (a getter, a function) may throw: the exception is taken off the engine at once and becomes
//! a [`Failure`], so a Rust caller decides what the JS error means and nothing stays pending.

use std::ffi::CStr;
use std::ptr;

use napi::sys;

/// A raw JS value, valid in the current N-API handle scope.
pub type Val = sys::napi_value;

/// Why a JS call failed: the thrown error's message (`error instanceof Error ? error.message :
/// String(error)`), or an N-API status when nothing was thrown.
#[derive(Debug, Clone)]
pub struct Failure(pub String);

pub type JsResult<T> = Result<T, Failure>;

/// The JS environment of one call on the JS thread.
#[derive(Clone, Copy)]
pub struct Js {
  pub env: sys::napi_env,
}

impl Js {
  pub fn new(env: sys::napi_env) -> Self {
    Js { env }
  }

  /// Turns a status into a result; a pending JS exception is cleared and its message kept.
  fn check(&self, status: sys::napi_status, what: &str) -> JsResult<()> {
    if status == sys::Status::napi_ok {
      return Ok(());
    }
    let mut pending = false;
    unsafe { sys::napi_is_exception_pending(self.env, &mut pending) };
    if pending {
      let mut error = ptr::null_mut();
      unsafe { sys::napi_get_and_clear_last_exception(self.env, &mut error) };
      return Err(Failure(self.error_message(error)));
    }
    Err(Failure(format!("{what} failed (N-API status {status})")))
  }

  /// `error instanceof Error ? error.message : String(error)`, never failing.
  pub fn error_message(&self, error: Val) -> String {
    let is_error = self
      .global("Error")
      .and_then(|ctor| {
        let mut result = false;
        self.check(unsafe { sys::napi_instanceof(self.env, error, ctor, &mut result) }, "instanceof")?;
        Ok(result)
      })
      .unwrap_or(false);
    let shown = if is_error { self.get(error, c"message").and_then(|m| self.to_js_string(m)) } else { self.to_js_string(error) };
    shown.unwrap_or_else(|_| String::from("unknown error"))
  }

  pub fn undefined(&self) -> Val {
    let mut v = ptr::null_mut();
    unsafe { sys::napi_get_undefined(self.env, &mut v) };
    v
  }

  pub fn global(&self, name: &str) -> JsResult<Val> {
    let mut g = ptr::null_mut();
    self.check(unsafe { sys::napi_get_global(self.env, &mut g) }, "get global")?;
    let key = self.string(name)?;
    self.get_by(g, key)
  }

  pub fn type_of(&self, v: Val) -> sys::napi_valuetype {
    let mut t = 0;
    unsafe { sys::napi_typeof(self.env, v, &mut t) };
    t
  }

  pub fn is_undefined(&self, v: Val) -> bool {
    self.type_of(v) == sys::ValueType::napi_undefined
  }

  pub fn is_object(&self, v: Val) -> bool {
    let t = self.type_of(v);
    t == sys::ValueType::napi_object || t == sys::ValueType::napi_function
  }

  pub fn get(&self, obj: Val, key: &CStr) -> JsResult<Val> {
    if !self.is_object(obj) {
      return Err(Failure(format!("cannot read '{}' of a non-object", key.to_string_lossy())));
    }
    let mut v = ptr::null_mut();
    self.check(unsafe { sys::napi_get_named_property(self.env, obj, key.as_ptr(), &mut v) }, "get property")?;
    Ok(v)
  }

  pub fn get_by(&self, obj: Val, key: Val) -> JsResult<Val> {
    let mut v = ptr::null_mut();
    self.check(unsafe { sys::napi_get_property(self.env, obj, key, &mut v) }, "get property")?;
    Ok(v)
  }

  pub fn set(&self, obj: Val, key: &CStr, value: Val) -> JsResult<()> {
    self.check(unsafe { sys::napi_set_named_property(self.env, obj, key.as_ptr(), value) }, "set property")
  }

  pub fn call(&self, func: Val, this: Val, args: &[Val]) -> JsResult<Val> {
    if self.type_of(func) != sys::ValueType::napi_function {
      return Err(Failure(String::from("not a function")));
    }
    let mut v = ptr::null_mut();
    self.check(unsafe { sys::napi_call_function(self.env, this, func, args.len(), args.as_ptr(), &mut v) }, "call")?;
    Ok(v)
  }

  /// Calls `func` and leaves a thrown exception pending (for a caller that rethrows it as is).
  pub fn call_rethrowing(&self, func: Val, this: Val, args: &[Val]) -> Option<Val> {
    let mut v = ptr::null_mut();
    let status = unsafe { sys::napi_call_function(self.env, this, func, args.len(), args.as_ptr(), &mut v) };
    (status == sys::Status::napi_ok).then_some(v)
  }

  /// `obj[key](...args)` with `this = obj`.
  pub fn call_method(&self, obj: Val, key: &CStr, args: &[Val]) -> JsResult<Val> {
    let func = self.get(obj, key)?;
    self.call(func, obj, args)
  }

  pub fn string(&self, s: &str) -> JsResult<Val> {
    let mut v = ptr::null_mut();
    self.check(unsafe { sys::napi_create_string_utf8(self.env, s.as_ptr().cast(), s.len() as isize, &mut v) }, "create string")?;
    Ok(v)
  }

  pub fn number(&self, n: f64) -> JsResult<Val> {
    let mut v = ptr::null_mut();
    self.check(unsafe { sys::napi_create_double(self.env, n, &mut v) }, "create number")?;
    Ok(v)
  }

  pub fn boolean(&self, b: bool) -> JsResult<Val> {
    let mut v = ptr::null_mut();
    self.check(unsafe { sys::napi_get_boolean(self.env, b, &mut v) }, "create boolean")?;
    Ok(v)
  }

  pub fn object(&self) -> JsResult<Val> {
    let mut v = ptr::null_mut();
    self.check(unsafe { sys::napi_create_object(self.env, &mut v) }, "create object")?;
    Ok(v)
  }

  /// A plain object with these properties, in this order.
  pub fn object_of(&self, props: &[(&CStr, Val)]) -> JsResult<Val> {
    let obj = self.object()?;
    for (key, value) in props {
      self.set(obj, key, *value)?;
    }
    Ok(obj)
  }

  pub fn array_of(&self, items: &[Val]) -> JsResult<Val> {
    let mut arr = ptr::null_mut();
    self.check(unsafe { sys::napi_create_array_with_length(self.env, items.len(), &mut arr) }, "create array")?;
    for (i, item) in items.iter().enumerate() {
      self.check(unsafe { sys::napi_set_element(self.env, arr, i as u32, *item) }, "set element")?;
    }
    Ok(arr)
  }

  pub fn freeze(&self, obj: Val) -> JsResult<Val> {
    self.check(unsafe { sys::napi_object_freeze(self.env, obj) }, "freeze")?;
    Ok(obj)
  }

  /// `v.length` as a number: fast for arrays, through the property for array-likes (a Proxy).
  pub fn length_of(&self, v: Val) -> JsResult<u32> {
    let mut n = 0;
    if unsafe { sys::napi_get_array_length(self.env, v, &mut n) } == sys::Status::napi_ok {
      return Ok(n);
    }
    self.take_exception();
    let length = self.get(v, c"length")?;
    match self.number_of(length) {
      Some(n) if n.is_finite() && n >= 0.0 => Ok(n.min(u32::MAX as f64) as u32),
      _ => Err(Failure(String::from("not an array-like value"))),
    }
  }

  /// JS `Number(v)` without throwing: `NaN` when it cannot be had.
  pub fn to_number(&self, v: Val) -> f64 {
    if let Some(n) = self.number_of(v) {
      return n;
    }
    let mut out = ptr::null_mut();
    if self.type_of(v) == sys::ValueType::napi_symbol
      || unsafe { sys::napi_coerce_to_number(self.env, v, &mut out) } != sys::Status::napi_ok
    {
      self.take_exception();
      return f64::NAN;
    }
    self.number_of(out).unwrap_or(f64::NAN)
  }

  /// JS truthiness (`!!v`).
  pub fn truthy(&self, v: Val) -> bool {
    let mut out = ptr::null_mut();
    if unsafe { sys::napi_coerce_to_bool(self.env, v, &mut out) } != sys::Status::napi_ok {
      self.take_exception();
      return false;
    }
    self.bool_of(out).unwrap_or(false)
  }

  /// `v[key]` with JS property-access semantics: a primitive (but `null`/`undefined`) reads
  /// through its wrapper object.
  pub fn get_loose(&self, v: Val, key: &CStr) -> JsResult<Val> {
    if self.is_object(v) {
      return self.get(v, key);
    }
    let t = self.type_of(v);
    if t == sys::ValueType::napi_undefined || t == sys::ValueType::napi_null {
      return Err(Failure(format!("cannot read properties of {} (reading '{}')", if t == sys::ValueType::napi_null { "null" } else { "undefined" }, key.to_string_lossy())));
    }
    let mut obj = ptr::null_mut();
    self.check(unsafe { sys::napi_coerce_to_object(self.env, v, &mut obj) }, "to object")?;
    self.get(obj, key)
  }

  /// Runs `body` inside its own handle scope; it must not return handles made inside it.
  pub fn in_handle_scope<T>(&self, body: impl FnOnce() -> T) -> T {
    let mut scope = ptr::null_mut();
    let opened = unsafe { sys::napi_open_handle_scope(self.env, &mut scope) } == sys::Status::napi_ok;
    let out = body();
    if opened {
      unsafe { sys::napi_close_handle_scope(self.env, scope) };
    }
    out
  }

  pub fn element(&self, arr: Val, index: u32) -> JsResult<Val> {
    let mut v = ptr::null_mut();
    self.check(unsafe { sys::napi_get_element(self.env, arr, index, &mut v) }, "get element")?;
    Ok(v)
  }

  pub fn number_of(&self, v: Val) -> Option<f64> {
    let mut n = 0.0;
    (unsafe { sys::napi_get_value_double(self.env, v, &mut n) } == sys::Status::napi_ok).then_some(n)
  }

  pub fn bool_of(&self, v: Val) -> Option<bool> {
    let mut b = false;
    (unsafe { sys::napi_get_value_bool(self.env, v, &mut b) } == sys::Status::napi_ok).then_some(b)
  }

  /// A JS string's text (lone surrogates become U+FFFD); `None` when `v` is not a string.
  pub fn string_of(&self, v: Val) -> Option<String> {
    if self.type_of(v) != sys::ValueType::napi_string {
      return None;
    }
    let mut len = 0;
    if unsafe { sys::napi_get_value_string_utf16(self.env, v, ptr::null_mut(), 0, &mut len) } != sys::Status::napi_ok {
      return None;
    }
    let mut buf = vec![0u16; len + 1];
    let mut written = 0;
    if unsafe { sys::napi_get_value_string_utf16(self.env, v, buf.as_mut_ptr(), buf.len(), &mut written) }
      != sys::Status::napi_ok
    {
      return None;
    }
    buf.truncate(written);
    Some(String::from_utf16_lossy(&buf))
  }

  /// Whether `v` is the string `expected`, without copying long strings.
  pub fn string_is(&self, v: Val, expected: &str) -> bool {
    if self.type_of(v) != sys::ValueType::napi_string {
      return false;
    }
    let mut len = 0;
    if unsafe { sys::napi_get_value_string_utf8(self.env, v, ptr::null_mut(), 0, &mut len) } != sys::Status::napi_ok
      || len != expected.len()
    {
      return false;
    }
    let mut buf = [0u8; 32];
    if len >= buf.len() {
      return self.string_of(v).as_deref() == Some(expected);
    }
    let mut written = 0;
    unsafe { sys::napi_get_value_string_utf8(self.env, v, buf.as_mut_ptr().cast(), buf.len(), &mut written) };
    &buf[..written] == expected.as_bytes()
  }

  /// `String(v)` for the values a turn holds: `napi_coerce_to_string` (no JS call), else `String(v)`.
  pub fn coerce_to_string(&self, v: Val) -> JsResult<String> {
    let mut s = ptr::null_mut();
    if self.type_of(v) != sys::ValueType::napi_symbol
      && unsafe { sys::napi_coerce_to_string(self.env, v, &mut s) } == sys::Status::napi_ok
    {
      return Ok(self.string_of(s).unwrap_or_default());
    }
    self.take_exception();
    self.to_js_string(v)
  }

  /// JS `String(v)` (works for symbols too).
  pub fn to_js_string(&self, v: Val) -> JsResult<String> {
    let string = self.global("String")?;
    let shown = self.call(string, self.undefined(), &[v])?;
    Ok(self.string_of(shown).unwrap_or_default())
  }

  pub fn strict_equals(&self, a: Val, b: Val) -> bool {
    let mut result = false;
    unsafe { sys::napi_strict_equals(self.env, a, b, &mut result) };
    result
  }

  pub fn is_promise(&self, v: Val) -> bool {
    let mut result = false;
    unsafe { sys::napi_is_promise(self.env, v, &mut result) };
    result
  }

  /// A new promise and the deferred that settles it.
  pub fn deferred(&self) -> JsResult<(sys::napi_deferred, Val)> {
    let mut deferred = ptr::null_mut();
    let mut promise = ptr::null_mut();
    self.check(unsafe { sys::napi_create_promise(self.env, &mut deferred, &mut promise) }, "create promise")?;
    Ok((deferred, promise))
  }

  pub fn resolve_deferred(&self, deferred: sys::napi_deferred, value: Val) -> JsResult<()> {
    self.check(unsafe { sys::napi_resolve_deferred(self.env, deferred, value) }, "resolve promise")
  }

  pub fn reject_deferred(&self, deferred: sys::napi_deferred, value: Val) -> JsResult<()> {
    self.check(unsafe { sys::napi_reject_deferred(self.env, deferred, value) }, "reject promise")
  }

  /// Throws a `TypeError` with exactly `message`.
  pub fn throw_type_error(&self, message: &str) {
    let message = std::ffi::CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    unsafe { sys::napi_throw_type_error(self.env, ptr::null(), message.as_ptr()) };
  }

  pub fn throw(&self, error: Val) {
    unsafe { sys::napi_throw(self.env, error) };
  }

  /// Takes the pending exception, if any.
  pub fn take_exception(&self) -> Option<Val> {
    let mut pending = false;
    unsafe { sys::napi_is_exception_pending(self.env, &mut pending) };
    if !pending {
      return None;
    }
    let mut error = ptr::null_mut();
    unsafe { sys::napi_get_and_clear_last_exception(self.env, &mut error) };
    Some(error)
  }

  /// A JS function that runs `body` with `(this, args)`; the closure is dropped when the function
  /// is collected. `body` returns the value to hand back to JS.
  pub fn function<F>(&self, name: &CStr, body: F) -> JsResult<Val>
  where
    F: Fn(Js, Val, &[Val]) -> JsResult<Val> + 'static,
  {
    let data = Box::into_raw(Box::new(body));
    let mut func = ptr::null_mut();
    let status = unsafe {
      sys::napi_create_function(self.env, name.as_ptr(), name.count_bytes() as isize, Some(trampoline::<F>), data.cast(), &mut func)
    };
    if status != sys::Status::napi_ok {
      drop(unsafe { Box::from_raw(data) });
      return self.check(status, "create function").map(|_| ptr::null_mut());
    }
    let status = unsafe { sys::napi_add_finalizer(self.env, func, data.cast(), Some(drop_box::<F>), ptr::null_mut(), ptr::null_mut()) };
    if status != sys::Status::napi_ok {
      drop(unsafe { Box::from_raw(data) });
      return self.check(status, "add finalizer").map(|_| ptr::null_mut());
    }
    Ok(func)
  }

  /// An external value owning `value`, dropped when collected.
  pub fn external<T: 'static>(&self, value: T) -> JsResult<(Val, *mut T)> {
    let data = Box::into_raw(Box::new(value));
    let mut v = ptr::null_mut();
    let status = unsafe { sys::napi_create_external(self.env, data.cast(), Some(drop_box::<T>), ptr::null_mut(), &mut v) };
    if status != sys::Status::napi_ok {
      drop(unsafe { Box::from_raw(data) });
      return self.check(status, "create external").map(|_| (ptr::null_mut(), ptr::null_mut()));
    }
    Ok((v, data))
  }

  /// The data this addon attached to `obj` with [`Js::attach`] under `tag`, if any.
  pub fn attached<T>(&self, obj: Val, tag: &sys::napi_type_tag) -> Option<*mut T> {
    let mut tagged = false;
    if unsafe { sys::napi_check_object_type_tag(self.env, obj, tag, &mut tagged) } != sys::Status::napi_ok || !tagged {
      return None;
    }
    let mut data = ptr::null_mut();
    (unsafe { sys::napi_unwrap(self.env, obj, &mut data) } == sys::Status::napi_ok && !data.is_null()).then_some(data.cast())
  }

  /// Attaches `value` to `obj` (dropped when `obj` is collected) and tags `obj` with `tag`; `None`
  /// when `obj` cannot take it (already tagged or wrapped by someone else, or not an object).
  pub fn attach<T: 'static>(&self, obj: Val, tag: &sys::napi_type_tag, value: T) -> Option<*mut T> {
    let data = Box::into_raw(Box::new(value));
    let wrapped = unsafe { sys::napi_wrap(self.env, obj, data.cast(), Some(drop_box::<T>), ptr::null_mut(), ptr::null_mut()) };
    if wrapped != sys::Status::napi_ok {
      drop(unsafe { Box::from_raw(data) });
      self.take_exception();
      return None;
    }
    if unsafe { sys::napi_type_tag_object(self.env, obj, tag) } != sys::Status::napi_ok {
      let mut back = ptr::null_mut();
      unsafe { sys::napi_remove_wrap(self.env, obj, &mut back) };
      drop(unsafe { Box::from_raw(data) });
      self.take_exception();
      return None;
    }
    Some(data)
  }

  /// The data of an external made by [`Js::external`] with the same `T`.
  ///
  /// # Safety
  /// `v` must have been made by `external::<T>`.
  pub unsafe fn external_data<T>(&self, v: Val) -> Option<*mut T> {
    if self.type_of(v) != sys::ValueType::napi_external {
      return None;
    }
    let mut data = ptr::null_mut();
    (unsafe { sys::napi_get_value_external(self.env, v, &mut data) } == sys::Status::napi_ok).then_some(data.cast())
  }
}

unsafe extern "C" fn drop_box<T>(_env: sys::napi_env, data: *mut std::ffi::c_void, _hint: *mut std::ffi::c_void) {
  drop(unsafe { Box::from_raw(data.cast::<T>()) });
}

unsafe extern "C" fn trampoline<F>(env: sys::napi_env, info: sys::napi_callback_info) -> Val
where
  F: Fn(Js, Val, &[Val]) -> JsResult<Val> + 'static,
{
  let js = Js::new(env);
  let mut argc: usize = 4;
  let mut argv = [ptr::null_mut(); 4];
  let mut this = ptr::null_mut();
  let mut data = ptr::null_mut();
  if unsafe { sys::napi_get_cb_info(env, info, &mut argc, argv.as_mut_ptr(), &mut this, &mut data) } != sys::Status::napi_ok {
    return ptr::null_mut();
  }
  let argc = argc.min(argv.len());
  for slot in argv.iter_mut().skip(argc) {
    *slot = js.undefined();
  }
  let body = unsafe { &*data.cast::<F>() };
  let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(js, this, &argv)));
  match outcome {
    Ok(Ok(v)) => v,
    Ok(Err(Failure(message))) => {
      // A body that fails on purpose has already thrown; otherwise surface its message.
      if js.take_exception().map(|e| js.throw(e)).is_none() {
        let message = std::ffi::CString::new(message.replace('\0', "\\0")).unwrap_or_default();
        unsafe { sys::napi_throw_error(env, ptr::null(), message.as_ptr()) };
      }
      ptr::null_mut()
    }
    Err(_) => {
      unsafe { sys::napi_throw_error(env, ptr::null(), c"tmux-context: internal panic".as_ptr()) };
      ptr::null_mut()
    }
  }
}

/// A strong reference that keeps a JS value alive across continuations; released on drop (drops
/// happen on the JS thread, inside callbacks or finalizers).
pub struct JsRef {
  env: sys::napi_env,
  raw: sys::napi_ref,
}

impl JsRef {
  pub fn new(js: Js, v: Val) -> JsResult<JsRef> {
    let mut raw = ptr::null_mut();
    js.check(unsafe { sys::napi_create_reference(js.env, v, 1, &mut raw) }, "create reference")?;
    Ok(JsRef { env: js.env, raw })
  }

  /// A weak reference (count 0): does not keep `v` alive, so a value that owns the holder of
  /// this reference (a context owning its listener) is not kept alive by it.
  pub fn weak(js: Js, v: Val) -> JsResult<JsRef> {
    let mut raw = ptr::null_mut();
    js.check(unsafe { sys::napi_create_reference(js.env, v, 0, &mut raw) }, "create reference")?;
    Ok(JsRef { env: js.env, raw })
  }

  pub fn get(&self, js: Js) -> JsResult<Val> {
    let mut v = ptr::null_mut();
    js.check(unsafe { sys::napi_get_reference_value(js.env, self.raw, &mut v) }, "read reference")?;
    if v.is_null() {
      return Err(Failure(String::from("the referenced value was collected")));
    }
    Ok(v)
  }
}

impl Drop for JsRef {
  fn drop(&mut self) {
    unsafe { sys::napi_delete_reference(self.env, self.raw) };
  }
}
