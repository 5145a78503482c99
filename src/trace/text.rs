//! The human text rendering of a trace: one event per line, fixed decimals,
//! stable and diff-friendly:
//!
//! ```text
//!   12.600  alice  swing -> bob  hit 7 Slash
//! ```

use std::fmt::Write as _;

use hecs::{Entity, World};

use super::record::RenderCx;
use super::{BlockReason, RemovalReason, TraceEvent, TraceKind};
use crate::abilities::EndReason;
use crate::catalog::Catalog;
use crate::effects::CueEvent;

/// Component: the name an entity goes by in rendered traces. Entities
/// without one render as `#<id>`; raw entity ids never appear otherwise.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Name(pub String);

/// Where renderers find entity names.
pub trait EntityNames {
    /// The name of `entity`.
    fn name_of(&self, entity: Entity) -> String;
}

impl EntityNames for World {
    /// The [`Name`] component, or `#<id>` without one (or once despawned).
    fn name_of(&self, entity: Entity) -> String {
        match self.get::<&Name>(entity) {
            Ok(name) => name.0.clone(),
            Err(_) => format!("#{}", entity.id()),
        }
    }
}

impl EntityNames for [(String, Entity)] {
    /// A roster kept beside the world, so despawned entities keep their names.
    fn name_of(&self, entity: Entity) -> String {
        self.iter()
            .find(|(_, e)| *e == entity)
            .map_or_else(|| format!("#{}", entity.id()), |(n, _)| n.clone())
    }
}

/// The name of `entity` in `world` (see [`EntityNames`]).
pub fn entity_name(world: &World, entity: Entity) -> String {
    world.name_of(entity)
}

/// One event as a line of text: `  12.600  alice  <what happened>`.
pub fn render_line(
    names: &(impl EntityNames + ?Sized),
    catalog: &Catalog,
    event: &TraceEvent,
) -> String {
    let names = ByRef(names);
    let cx = RenderCx::new(&names, catalog);
    let (subject, _) = event.kind.parties();
    format!(
        "{:>8}  {}  {}",
        event.time.to_string(),
        cx.name(subject),
        describe(&cx, &event.kind)
    )
}

/// Every event of `events` as text, one line each.
pub fn render_text(
    names: &(impl EntityNames + ?Sized),
    catalog: &Catalog,
    events: &[TraceEvent],
) -> String {
    super::lines(events, |event| render_line(names, catalog, event))
}

/// Names through a borrowed source, which may be unsized (a roster slice).
pub(super) struct ByRef<'a, N: ?Sized>(pub &'a N);

impl<N: EntityNames + ?Sized> EntityNames for ByRef<'_, N> {
    fn name_of(&self, entity: Entity) -> String {
        self.0.name_of(entity)
    }
}

/// What happened, after the subject's name.
fn describe(cx: &RenderCx<'_>, kind: &TraceKind) -> String {
    match kind {
        TraceKind::EffectApplied {
            target,
            source,
            effect,
            stacks,
            duration,
        } => {
            let mut what = format!("effect+ {}", cx.effect(*effect));
            if *stacks > 1 {
                let _ = write!(what, " x{stacks}");
            }
            if let Some(d) = duration {
                let _ = write!(what, " {d}");
            }
            // Who applied it, when someone else did (which of several
            // appliers added a stack; whose hit refreshed a mark).
            if let Some(source) = source.filter(|source| source != target) {
                let _ = write!(what, " from {}", cx.name(source));
            }
            what
        }
        TraceKind::EffectExecuted { effect, .. } => format!("execute {}", cx.effect(*effect)),
        TraceKind::EffectBlocked { effect, reason, .. } => {
            let mut what = format!("blocked {} {}", cx.effect(*effect), reason.name());
            if let BlockReason::Immune { by } = reason {
                let _ = write!(what, " ({})", cx.effect(*by));
            }
            what
        }
        TraceKind::EffectRemoved { effect, reason, .. } => match reason {
            RemovalReason::Expired => format!("effect- {} expired", cx.effect(*effect)),
            RemovalReason::Removed => format!("effect- {} removed", cx.effect(*effect)),
            RemovalReason::RemovedBy(by) => {
                format!(
                    "effect- {} removed by {}",
                    cx.effect(*effect),
                    cx.effect(*by)
                )
            }
            RemovalReason::OwnerDied => format!("effect- {} owner died", cx.effect(*effect)),
        },
        TraceKind::EffectInhibited {
            effect, inhibited, ..
        } => {
            let what = if *inhibited { "inhibited" } else { "resumed" };
            format!("{what} {}", cx.effect(*effect))
        }
        TraceKind::EffectStacksChanged { effect, stacks, .. } => {
            format!("stacks {} x{stacks}", cx.effect(*effect))
        }
        TraceKind::EffectFailed { error, .. } => format!("effect failed: {error}"),
        TraceKind::ReactionLimit { limit, .. } => {
            format!("reactions unsettled after {limit}: dropped")
        }
        TraceKind::AttributeChanged {
            attribute,
            old,
            new,
            ..
        } => format!("{} {old} -> {new}", cx.attribute(*attribute)),
        TraceKind::Cue {
            cue,
            event,
            magnitude,
            tags,
            ..
        } => {
            let mut what = format!("cue {} {}", cx.tag(*cue), cue_event_name(*event));
            if *magnitude != 0.0 {
                let _ = write!(what, " {magnitude}");
            }
            if !tags.is_empty() {
                let names: Vec<&str> = tags.iter().map(|t| cx.tag(t)).collect();
                let _ = write!(what, " [{}]", names.join(", "));
            }
            what
        }
        TraceKind::AbilityActivated {
            ability, target, ..
        } => match target {
            Some(t) => format!("activate {} -> {}", cx.ability(*ability), cx.name(*t)),
            None => format!("activate {}", cx.ability(*ability)),
        },
        TraceKind::AbilityFailed {
            ability, reason, ..
        } => {
            let mut what = format!(
                "fail {}: {}",
                cx.ability(*ability),
                reason.message(cx.catalog().tags())
            );
            if let Some(detail) = reason.detail(cx.catalog()) {
                let _ = write!(what, " [{detail}]");
            }
            what
        }
        TraceKind::AbilityEnded {
            ability, reason, ..
        } => format!("end {} ({})", cx.ability(*ability), end_reason(cx, reason)),
        TraceKind::TagChanged { tag, present, .. } => {
            format!("tag{} {}", if *present { "+" } else { "-" }, cx.tag(*tag))
        }
        TraceKind::Game(record) => record.describe(cx),
    }
}

/// The word for a cue event, shared by both renderers.
pub(super) fn cue_event_name(event: CueEvent) -> &'static str {
    match event {
        CueEvent::Execute => "execute",
        CueEvent::Add => "add",
        CueEvent::Remove => "remove",
    }
}

pub(super) fn end_reason(cx: &RenderCx<'_>, reason: &EndReason) -> String {
    match reason {
        EndReason::Completed => "completed".into(),
        EndReason::Cancelled => "cancelled".into(),
        EndReason::CancelledByTag(t) => format!("cancelled by {}", cx.tag(*t)),
        EndReason::CancelledByAbility(a) => format!("cancelled by {}", cx.ability(*a)),
        EndReason::Retriggered => "retriggered".into(),
        EndReason::Revoked => "revoked".into(),
        EndReason::OwnerDespawned => "owner despawned".into(),
        EndReason::TargetLost => "target lost".into(),
        EndReason::TargetGainedTag(t) => format!("target gained {}", cx.tag(*t)),
        EndReason::Behaviour(t) => cx.tag(*t).to_owned(),
        EndReason::InvalidWait => "invalid wait".into(),
    }
}
