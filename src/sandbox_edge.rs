//! The query's narrowed sandbox policy at the Node-API edge: which spec `run()` gets, between the
//! query's `resolve()` and `run()` (the decision is [`crate::sandbox`]; why it asks `resolve()`
//! again rather than patch the spec: docs/design.md, "How it reads tmux").

use napi::bindgen_prelude::{Env, JsObjectValue, Object, ToNapiValue, Unknown};
use napi::JsValue;

use crate::napi_ext::{object_of, Caught, JsResult, UnknownExt};
use crate::sandbox::{honours, narrowing_for, Narrowing};

/// The spec to hand to `run()`: `spec` itself, unless its policy is narrowed (module doc); then
/// the spec `resolve` makes for `request` with the narrowed policy, when it carries that policy.
/// A failure of that second `resolve()` is a failure of the query (one warning, no location).
pub fn spec_to_run<'env>(
  env: &'env Env,
  shell: Unknown<'env>,
  resolve: Unknown<'env>,
  request: Object<'env>,
  spec: Unknown<'env>,
) -> JsResult<Unknown<'env>> {
  let Some(policy) = policy_of(env, spec) else {
    return Ok(spec);
  };
  let Narrowing::To(mode) = narrowing_for(mode_of(env, policy).as_deref()) else {
    return Ok(spec);
  };
  let mode_only = object_of(env, &[(c"mode", mode.into_unknown(env).caught(env)?)])?;
  let narrowed_policy = assign(env, &[policy, mode_only.to_unknown()])?;
  let with_policy = object_of(env, &[(c"sandboxPolicy", narrowed_policy)])?;
  let narrowed_request = assign(env, &[request.to_unknown(), with_policy.to_unknown()])?;
  let narrowed = resolve.call_with(env, shell, vec![narrowed_request])?;
  let resolved_mode = policy_of(env, narrowed).and_then(|p| mode_of(env, p));
  Ok(if honours(mode, resolved_mode.as_deref()) { narrowed } else { spec })
}

/// `spec.sandboxPolicy` when it is an object; `None` for anything else, a spec that is not an
/// object or whose read throws included (then the spec runs as resolved, as today).
fn policy_of<'env>(env: &Env, spec: Unknown<'env>) -> Option<Unknown<'env>> {
  if !spec.is_object() {
    return None;
  }
  spec.get_loose(env, c"sandboxPolicy").ok().filter(|p| p.is_object())
}

/// `policy.mode` when it is a string.
fn mode_of(env: &Env, policy: Unknown) -> Option<String> {
  policy.get_loose(env, c"mode").ok().and_then(|m| m.as_string())
}

/// `Object.assign({}, ...sources)`: a new plain object with the sources' own enumerable
/// properties, later ones winning, in the order JS spread gives.
fn assign<'env>(env: &'env Env, sources: &[Unknown<'env>]) -> JsResult<Unknown<'env>> {
  let global = env.get_global().caught(env)?;
  let object: Unknown = global.get_c_named_property_unchecked(c"Object").caught(env)?;
  let target = Object::new(env).caught(env)?.to_unknown();
  let mut args = vec![target];
  args.extend_from_slice(sources);
  object.get_loose(env, c"assign")?.call_with(env, object, args)
}
