//! The JSON-lines rendering of a trace: one object per event.
//!
//! Every line has `t` (seconds, a number), `kind` (string), `source` (the
//! name of the entity the event is about) and `target` (the other entity's
//! name, or `null`), then the fields of its kind; see the
//! [module documentation](crate::trace) for the full schema.

use std::fmt::Write as _;

use super::record::RenderCx;
use super::text::{cue_event_name, ByRef, EntityNames};
use super::{BlockReason, RemovalReason, TraceEvent, TraceKind};
use crate::abilities::ActivationFailure;
use crate::catalog::Catalog;

/// The fields of one JSON object under construction, for a
/// [`TraceRecord`](super::TraceRecord)'s own fields. Keys are written in
/// call order; strings are escaped; non-finite numbers become `null`.
pub struct JsonFields(String);

impl JsonFields {
    fn new() -> Self {
        JsonFields(String::from("{"))
    }

    fn key(&mut self, key: &str) {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        write_string(&mut self.0, key);
        self.0.push(':');
    }

    /// A string field.
    pub fn str(&mut self, key: &str, value: &str) {
        self.key(key);
        write_string(&mut self.0, value);
    }

    /// A string field, or `null`.
    pub fn opt_str(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(v) => self.str(key, v),
            None => self.null(key),
        }
    }

    /// A number field (`null` when not finite).
    pub fn num(&mut self, key: &str, value: f64) {
        self.key(key);
        if value.is_finite() {
            let _ = write!(self.0, "{value}");
        } else {
            self.0.push_str("null");
        }
    }

    /// A number field, or `null`.
    pub fn opt_num(&mut self, key: &str, value: Option<f64>) {
        match value {
            Some(v) => self.num(key, v),
            None => self.null(key),
        }
    }

    /// An integer field.
    pub fn int(&mut self, key: &str, value: u64) {
        self.key(key);
        let _ = write!(self.0, "{value}");
    }

    /// A boolean field.
    pub fn bool(&mut self, key: &str, value: bool) {
        self.key(key);
        self.0.push_str(if value { "true" } else { "false" });
    }

    /// A `null` field.
    pub fn null(&mut self, key: &str) {
        self.key(key);
        self.0.push_str("null");
    }

    /// A field whose value is a list of strings.
    pub fn strs<'s>(&mut self, key: &str, items: impl IntoIterator<Item = &'s str>) {
        self.key(key);
        self.0.push('[');
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.0.push(',');
            }
            write_string(&mut self.0, item);
        }
        self.0.push(']');
    }

    /// A field whose value is a list of objects, each filled by `fill`.
    pub fn list<T>(&mut self, key: &str, items: &[T], mut fill: impl FnMut(&mut JsonFields, &T)) {
        self.key(key);
        self.0.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.0.push(',');
            }
            let mut object = JsonFields::new();
            fill(&mut object, item);
            self.0.push_str(&object.finish());
        }
        self.0.push(']');
    }

    fn finish(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

fn write_string(out: &mut String, value: &str) {
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// One event as a JSON object (no trailing newline).
pub fn render_json(
    names: &(impl EntityNames + ?Sized),
    catalog: &Catalog,
    event: &TraceEvent,
) -> String {
    let names = ByRef(names);
    let cx = RenderCx::new(&names, catalog);
    let (subject, other) = event.kind.parties();
    let mut o = JsonFields::new();
    o.num("t", event.time.as_secs_f64());
    o.str("kind", event.kind.name());
    o.str("source", &cx.name(subject));
    o.opt_str("target", other.map(|e| cx.name(e)).as_deref());
    match &event.kind {
        TraceKind::EffectApplied {
            effect,
            stacks,
            duration,
            ..
        } => {
            o.str("effect", cx.effect(*effect));
            o.int("stacks", u64::from(*stacks));
            o.opt_num("duration", duration.map(|d| d.as_secs_f64()));
        }
        TraceKind::EffectExecuted { effect, .. } => o.str("effect", cx.effect(*effect)),
        TraceKind::EffectBlocked { effect, reason, .. } => {
            o.str("effect", cx.effect(*effect));
            o.str("reason", reason.name());
            if let BlockReason::Immune { by } = reason {
                o.str("by", cx.effect(*by));
            }
        }
        TraceKind::EffectRemoved { effect, reason, .. } => {
            o.str("effect", cx.effect(*effect));
            match reason {
                RemovalReason::Expired => o.str("reason", "expired"),
                RemovalReason::Removed => o.str("reason", "removed"),
                RemovalReason::RemovedBy(by) => {
                    o.str("reason", "removed_by");
                    o.str("by", cx.effect(*by));
                }
                RemovalReason::OwnerDied => o.str("reason", "owner_died"),
            }
        }
        TraceKind::EffectInhibited {
            effect, inhibited, ..
        } => {
            o.str("effect", cx.effect(*effect));
            o.bool("inhibited", *inhibited);
        }
        TraceKind::EffectStacksChanged { effect, stacks, .. } => {
            o.str("effect", cx.effect(*effect));
            o.int("stacks", u64::from(*stacks));
        }
        TraceKind::EffectFailed { effect, error, .. } => {
            o.str("effect", cx.effect(*effect));
            o.str("error", &error.to_string());
        }
        TraceKind::ReactionLimit { limit, .. } => {
            o.int("limit", u64::from(*limit));
        }
        TraceKind::AttributeChanged {
            attribute,
            old,
            new,
            ..
        } => {
            o.str("attribute", cx.attribute(*attribute));
            o.num("old", *old);
            o.num("new", *new);
        }
        TraceKind::AbilityActivated { ability, .. } => o.str("ability", cx.ability(*ability)),
        TraceKind::AbilityFailed {
            ability, reason, ..
        } => {
            let tags = catalog.tags();
            o.str("ability", cx.ability(*ability));
            o.str("reason", tags.name(reason.tag(tags)));
            o.str("message", reason.message(tags));
            match *reason {
                ActivationFailure::BlockedByTags { tag: Some(tag) } => {
                    o.str("blocked_by", cx.tag(tag))
                }
                ActivationFailure::BlockedByAbility(Some(by)) => {
                    o.str("blocked_by_ability", cx.ability(by))
                }
                ActivationFailure::MissingTags { tag: Some(tag) } => o.str("missing", cx.tag(tag)),
                ActivationFailure::Cooldown { tag, remaining } => {
                    o.str("cooldown", cx.tag(tag));
                    o.num("remaining", remaining.as_secs_f64());
                }
                ActivationFailure::Cost { attribute } => {
                    o.str("attribute", cx.attribute(attribute))
                }
                ActivationFailure::CannotApply(effect)
                | ActivationFailure::UnsettableCooldown(Some(effect)) => {
                    o.str("effect", cx.effect(effect))
                }
                ActivationFailure::ClientInput(field) => o.str(
                    "client_field",
                    match field {
                        crate::abilities::ClientField::Instigator => "instigator",
                        crate::abilities::ClientField::Magnitude => "magnitude",
                        crate::abilities::ClientField::Tag => "tag",
                    },
                ),
                _ => {}
            }
        }
        TraceKind::AbilityEnded {
            ability, reason, ..
        } => {
            o.str("ability", cx.ability(*ability));
            // In the text trace's words: names, never raw ids.
            o.str("reason", &super::text::end_reason(&cx, reason));
        }
        TraceKind::Cue {
            cue,
            event,
            effect,
            magnitude,
            tags,
            ..
        } => {
            o.str("cue", cx.tag(*cue));
            o.str("event", cue_event_name(*event));
            o.opt_str("effect", effect.map(|e| cx.effect(e)));
            o.num("magnitude", *magnitude);
            if !tags.is_empty() {
                o.strs("tags", tags.iter().map(|t| cx.tag(t)));
            }
        }
        TraceKind::TagChanged { tag, present, .. } => {
            o.str("tag", cx.tag(*tag));
            o.bool("present", *present);
        }
        TraceKind::Game(record) => record.json(&cx, &mut o),
    }
    o.finish()
}

/// Every event as JSON lines.
pub fn render_jsonl(
    names: &(impl EntityNames + ?Sized),
    catalog: &Catalog,
    events: &[TraceEvent],
) -> String {
    super::lines(events, |event| render_json(names, catalog, event))
}
