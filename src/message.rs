//! The reading as the harness receives it: a deep-frozen user message with the contract's keys in
//! the contract's order, put in front of the downstream decision's messages.

use napi::bindgen_prelude::{Env, JsObjectValue, Object, ToNapiValue, Unknown};
use napi::JsValue;

use crate::napi_ext::{array_of, object_of, Caught, Failure, JsResult, UnknownExt};
use crate::render::PLUGIN_NAME;

/// More downstream messages than any step carries: a longer list (a sparse array, an array-like
/// with a huge `length`) is a malformed decision, not a list to copy.
const MAX_MESSAGES: u32 = 1 << 16;

/// `{ kind: 'enter', messages: [reading, ...decision.messages] }`: the downstream messages are the
/// same objects, after the reading (its source of the host's own kind with `own_kind`).
pub fn enter_with_reading<'env>(
  env: &'env Env,
  decision: Unknown<'env>,
  text: &str,
  own_kind: bool,
) -> JsResult<Object<'env>> {
  let messages = decision.get_loose(env, c"messages")?;
  if !messages.is_object() {
    return Err(Failure::new("decision.messages is not iterable"));
  }
  let count = messages.length(env)?;
  if count > MAX_MESSAGES {
    return Err(Failure(format!("decision.messages holds {count} entries")));
  }
  let messages = messages.as_object().ok_or_else(|| Failure::new("decision.messages is not iterable"))?;
  let mut all = Vec::with_capacity(count as usize + 1);
  all.push(reading_message(env, text, own_kind)?.to_unknown());
  for index in 0..count {
    all.push(messages.get_element::<Unknown>(index).caught(env)?);
  }
  object_of(env, &[(c"kind", "enter".into_unknown(env).caught(env)?), (c"messages", array_of(env, &all)?.to_unknown())])
}

/// The user message of a reading: `{ content: [{ type: 'text', text }], source: { kind: 'plugin',
/// plugin: 'tmux-context', form: 'snapshot', sections: [{ name: 'tmux-context', text }] }, role:
/// 'user', id: <fresh UUID v4> }`, every object frozen. With `own_kind` (the `execute()`
/// generation), the source is `{ kind: 'tmux-context', form: 'snapshot', sections }`.
pub fn reading_message<'env>(env: &'env Env, text: &str, own_kind: bool) -> JsResult<Object<'env>> {
  let frozen = |mut object: Object<'env>| -> JsResult<Unknown<'env>> {
    object.freeze().caught(env)?;
    Ok(object.to_unknown())
  };
  let text = text.into_unknown(env).caught(env)?;
  let plugin = PLUGIN_NAME.into_unknown(env).caught(env)?;
  let block = frozen(object_of(env, &[(c"type", "text".into_unknown(env).caught(env)?), (c"text", text)])?)?;
  let content = frozen(array_of(env, &[block])?)?;
  let section = frozen(object_of(env, &[(c"name", plugin), (c"text", text)])?)?;
  let sections = frozen(array_of(env, &[section])?)?;
  let form = "snapshot".into_unknown(env).caught(env)?;
  let source = frozen(if own_kind {
    object_of(env, &[(c"kind", plugin), (c"form", form), (c"sections", sections)])?
  } else {
    object_of(
      env,
      &[
        (c"kind", "plugin".into_unknown(env).caught(env)?),
        (c"plugin", plugin),
        (c"form", form),
        (c"sections", sections),
      ],
    )?
  })?;
  let id = (uuid::Uuid::new_v4().to_string()).into_unknown(env).caught(env)?;
  let mut message = object_of(
    env,
    &[(c"content", content), (c"source", source), (c"role", "user".into_unknown(env).caught(env)?), (c"id", id)],
  )?;
  message.freeze().caught(env)?;
  Ok(message)
}
