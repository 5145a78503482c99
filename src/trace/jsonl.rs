//! The JSON-lines rendering of a trace: one object per event.
//!
//! Every line has `t` (seconds, a number), `kind` (string), `source` (the
//! name of the entity the event is about) and `target` (the other entity's
//! name, or `null`), then the fields of its kind; see the
//! [module documentation](crate::trace) for the full schema.

use std::fmt::Write as _;

use super::labels;
use super::text::EntityNames;
use super::{AttackOutcome, BlockReason, ChasePhase, RemovalReason, TraceEvent, TraceKind};
use crate::catalog::Catalog;
use crate::effects::CueEvent;

/// A JSON object under construction.
struct Object(String);

impl Object {
    fn new() -> Self {
        Object(String::from("{"))
    }

    fn key(&mut self, key: &str) {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        write_string(&mut self.0, key);
        self.0.push(':');
    }

    fn str(&mut self, key: &str, value: &str) {
        self.key(key);
        write_string(&mut self.0, value);
    }

    fn opt_str(&mut self, key: &str, value: Option<&str>) {
        match value {
            Some(v) => self.str(key, v),
            None => {
                self.key(key);
                self.0.push_str("null");
            }
        }
    }

    fn num(&mut self, key: &str, value: f64) {
        self.key(key);
        if value.is_finite() {
            let _ = write!(self.0, "{value}");
        } else {
            self.0.push_str("null");
        }
    }

    fn int(&mut self, key: &str, value: u64) {
        self.key(key);
        let _ = write!(self.0, "{value}");
    }

    fn bool(&mut self, key: &str, value: bool) {
        self.key(key);
        self.0.push_str(if value { "true" } else { "false" });
    }

    fn raw(&mut self, key: &str, json: &str) {
        self.key(key);
        self.0.push_str(json);
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
    let tags = catalog.tags();
    let effect = |id| labels::effect_name(catalog, id);
    let ability = |id| labels::ability_name(catalog, id);
    let spell = |id| labels::spell_name(catalog, id);
    let item = |id| labels::item_name(catalog, id);
    let items = |list: &[(crate::combat::ItemId, u32)]| {
        let parts: Vec<String> = list
            .iter()
            .map(|(i, q)| {
                let mut o = Object::new();
                o.str("item", item(*i));
                o.int("quantity", u64::from(*q));
                o.finish()
            })
            .collect();
        format!("[{}]", parts.join(","))
    };
    let (subject, other) = event.kind.parties();
    let mut o = Object::new();
    o.num("t", event.time.as_secs_f64());
    o.str("kind", event.kind.name());
    o.str("source", &names.name_of(subject));
    o.opt_str("target", other.map(|e| names.name_of(e)).as_deref());
    match &event.kind {
        TraceKind::EffectApplied {
            effect: e,
            stacks,
            duration,
            ..
        } => {
            o.str("effect", effect(*e));
            o.int("stacks", u64::from(*stacks));
            match duration {
                Some(d) => o.num("duration", d.as_secs_f64()),
                None => o.raw("duration", "null"),
            }
        }
        TraceKind::EffectExecuted { effect: e, .. } => o.str("effect", effect(*e)),
        TraceKind::EffectBlocked {
            effect: e, reason, ..
        } => {
            o.str("effect", effect(*e));
            match reason {
                BlockReason::Requirements => o.str("reason", "requirements"),
                BlockReason::Immune { by } => {
                    o.str("reason", "immune");
                    o.str("by", effect(*by));
                }
            }
        }
        TraceKind::EffectRemoved {
            effect: e, reason, ..
        } => {
            o.str("effect", effect(*e));
            match reason {
                RemovalReason::Expired => o.str("reason", "expired"),
                RemovalReason::Removed => o.str("reason", "removed"),
                RemovalReason::RemovedBy(by) => {
                    o.str("reason", "removed_by");
                    o.str("by", effect(*by));
                }
            }
        }
        TraceKind::EffectInhibited {
            effect: e,
            inhibited,
            ..
        } => {
            o.str("effect", effect(*e));
            o.bool("inhibited", *inhibited);
        }
        TraceKind::EffectFailed {
            effect: e, error, ..
        } => {
            o.str("effect", effect(*e));
            o.str("error", &error.to_string());
        }
        TraceKind::AttributeChanged {
            attribute,
            old,
            new,
            ..
        } => {
            o.str("attribute", catalog.attributes().name(*attribute));
            o.num("old", *old);
            o.num("new", *new);
        }
        TraceKind::AbilityActivated { ability: a, .. } => o.str("ability", ability(*a)),
        TraceKind::AbilityFailed {
            ability: a, reason, ..
        } => {
            o.str("ability", ability(*a));
            o.str("reason", tags.name(reason.tag(tags)));
            o.str("message", reason.message(tags));
        }
        TraceKind::AbilityEnded {
            ability: a, reason, ..
        } => {
            o.str("ability", ability(*a));
            o.str("reason", &format!("{reason:?}"));
        }
        TraceKind::Engaged { .. } | TraceKind::EnteredCombat { .. } | TraceKind::Saved { .. } => {}
        TraceKind::TargetChanged { channel, .. } => {
            o.opt_str("channel", channel.map(|c| tags.name(c.tag(tags))));
        }
        TraceKind::Attack {
            outcome,
            damage_type,
            weaved,
            spell: s,
            ..
        } => {
            match outcome {
                AttackOutcome::Hit(amount) => {
                    o.str("outcome", "hit");
                    o.int("amount", u64::from(*amount));
                }
                AttackOutcome::Miss => {
                    o.str("outcome", "miss");
                    o.int("amount", 0);
                }
            }
            o.str("damage_type", tags.name(damage_type.tag(tags)));
            o.bool("weaved", *weaved);
            o.opt_str("spell", s.map(spell));
        }
        TraceKind::AttackFailed { reason, .. } => {
            o.str("reason", tags.name(*reason));
            o.str(
                "message",
                tags.comment(*reason).unwrap_or_else(|| tags.name(*reason)),
            );
        }
        TraceKind::CooldownStamped {
            cooldown, duration, ..
        } => {
            o.str("cooldown", tags.name(*cooldown));
            o.num("duration", duration.as_secs_f64());
        }
        TraceKind::Chase { phase, .. } => match phase {
            ChasePhase::Begin(to) | ChasePhase::Reissue(to) => {
                o.str(
                    "phase",
                    if matches!(phase, ChasePhase::Begin(_)) {
                        "begin"
                    } else {
                        "reissue"
                    },
                );
                o.num("x", to.x);
                o.num("y", to.y);
            }
            ChasePhase::End => o.str("phase", "end"),
        },
        TraceKind::WeaveQueued {
            spell: s, replaced, ..
        } => {
            o.str("spell", spell(*s));
            o.opt_str("replaced", replaced.map(spell));
        }
        TraceKind::WeaveDropped { spell: s, .. } | TraceKind::RunesSpent { spell: s, .. } => {
            o.str("spell", spell(*s))
        }
        TraceKind::AmmoSpent { left, .. } => o.int("left", u64::from(*left)),
        TraceKind::Xp {
            skill, centi_xp, ..
        } => {
            o.str("skill", tags.name(skill.tag(tags)));
            o.num("xp", *centi_xp as f64 / 100.0);
        }
        TraceKind::LevelUp { skill, level, .. } => {
            o.str("skill", tags.name(skill.tag(tags)));
            o.int("level", u64::from(*level));
        }
        TraceKind::Died { kept, stored, .. } => {
            o.raw("kept", &items(kept));
            o.raw("stored", &items(stored));
        }
        TraceKind::Respawned { at, .. } => {
            o.num("x", at.x);
            o.num("y", at.y);
        }
        TraceKind::StyleChanged { style, .. } => o.str("style", tags.name(*style)),
        TraceKind::AutocastChanged { spell: s, .. } => o.opt_str("spell", s.map(spell)),
        TraceKind::Ate { item: i, .. } => o.str("item", item(*i)),
        TraceKind::Cue {
            cue, event: when, ..
        } => {
            o.str("cue", tags.name(*cue));
            o.str(
                "event",
                match when {
                    CueEvent::Execute => "execute",
                    CueEvent::Add => "add",
                    CueEvent::Remove => "remove",
                },
            );
        }
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
