//! Which spec `run()` gets: the query's narrowed sandbox policy (decided by [`crate::sandbox`]; why
//! `resolve()` is asked again rather than the spec patched: docs/design.md, "How it reads tmux").

use napi::bindgen_prelude::{Env, JsObjectValue, Object, ToNapiValue, Unknown};
use napi::JsValue;

use crate::napi_ext::{object_of, Caught, JsResult, UnknownExt};
use crate::sandbox::{honours, narrowing_for, Narrowing};

/// `spec`, unless its policy is narrowed: then what `resolve` makes of `request` with the narrowed
/// policy, when it carries that policy. A second `resolve()` that throws fails the query.
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

/// `spec.sandboxPolicy` when it is an object (else the spec runs as resolved).
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

/// `Object.assign({}, ...sources)`, as JS spread makes a new object.
fn assign<'env>(env: &'env Env, sources: &[Unknown<'env>]) -> JsResult<Unknown<'env>> {
  let global = env.get_global().caught(env)?;
  let object: Unknown = global.get_c_named_property_unchecked(c"Object").caught(env)?;
  let target = Object::new(env).caught(env)?.to_unknown();
  let mut args = vec![target];
  args.extend_from_slice(sources);
  object.get_loose(env, c"assign")?.call_with(env, object, args)
}
