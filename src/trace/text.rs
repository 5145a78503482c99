//! The human text rendering of a trace: one event per line, fixed decimals,
//! stable and diff-friendly.

use std::fmt::Write as _;

use hecs::{Entity, World};

use super::{BlockReason, RemovalReason, TraceEvent, TraceKind};
use crate::catalog::Catalog;
use crate::effects::CueEvent;

/// Component: the name an entity goes by in rendered traces. Entities
/// without one render as `#<id>`; raw entity ids never appear otherwise.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Name(pub String);

/// The name of `entity` for output.
pub fn entity_name(world: &World, entity: Entity) -> String {
    match world.get::<&Name>(entity) {
        Ok(name) => name.0.clone(),
        Err(_) => format!("#{}", entity.id()),
    }
}

/// One event as a line of text: `  12.600  alice  <what happened>`.
pub fn render_line(world: &World, catalog: &Catalog, event: &TraceEvent) -> String {
    let name = |e: Entity| entity_name(world, e);
    let tag = |t| catalog.tags().name(t);
    let effect = |id: crate::effects::EffectId| {
        catalog
            .effects()
            .try_def(id)
            .map_or("?", |d| d.name.as_str())
    };
    let ability = |id: crate::abilities::AbilityId| {
        catalog
            .abilities()
            .try_def(id)
            .map_or("?", |d| d.name.as_str())
    };
    let (subject, what) = match &event.kind {
        TraceKind::EffectApplied {
            target,
            effect: e,
            stacks,
            duration,
            ..
        } => {
            let mut what = format!("effect+ {}", effect(*e));
            if *stacks > 1 {
                let _ = write!(what, " x{stacks}");
            }
            if let Some(d) = duration {
                let _ = write!(what, " {d}");
            }
            (*target, what)
        }
        TraceKind::EffectExecuted {
            target, effect: e, ..
        } => (*target, format!("execute {}", effect(*e))),
        TraceKind::EffectBlocked {
            target,
            effect: e,
            reason,
        } => {
            let why = match reason {
                BlockReason::Requirements => "requirements".to_owned(),
                BlockReason::Immune { by } => format!("immune ({})", effect(*by)),
            };
            (*target, format!("blocked {} {why}", effect(*e)))
        }
        TraceKind::EffectRemoved {
            target,
            effect: e,
            reason,
        } => {
            let why = match reason {
                RemovalReason::Expired => "expired".to_owned(),
                RemovalReason::Removed => "removed".to_owned(),
                RemovalReason::RemovedBy(by) => format!("removed by {}", effect(*by)),
            };
            (*target, format!("effect- {} {why}", effect(*e)))
        }
        TraceKind::EffectInhibited {
            target,
            effect: e,
            inhibited,
        } => {
            let state = if *inhibited { "inhibited" } else { "resumed" };
            (*target, format!("{state} {}", effect(*e)))
        }
        TraceKind::EffectFailed {
            target,
            effect: e,
            error,
        } => {
            let _ = e;
            (*target, format!("effect failed: {error}"))
        }
        TraceKind::AttributeChanged {
            entity,
            attribute,
            old,
            new,
        } => (
            *entity,
            format!("{} {old} -> {new}", catalog.attributes().name(*attribute)),
        ),
        TraceKind::Cue {
            target,
            cue,
            event: when,
            ..
        } => {
            let when = match when {
                CueEvent::Execute => "execute",
                CueEvent::Add => "add",
                CueEvent::Remove => "remove",
            };
            (*target, format!("cue {} {when}", tag(*cue)))
        }
        TraceKind::AbilityActivated {
            owner,
            ability: a,
            target,
        } => {
            let mut what = format!("activate {}", ability(*a));
            if let Some(t) = target {
                let _ = write!(what, " -> {}", name(*t));
            }
            (*owner, what)
        }
        TraceKind::AbilityFailed {
            owner,
            ability: a,
            reason,
        } => (
            *owner,
            format!("fail {}: {}", ability(*a), reason.message(catalog.tags())),
        ),
        TraceKind::AbilityEnded {
            owner,
            ability: a,
            reason,
        } => (
            *owner,
            format!("end {} ({})", ability(*a), end_reason(catalog, reason)),
        ),
    };
    format!("{:>8}  {}  {what}", event.time.to_string(), name(subject))
}

fn end_reason(catalog: &Catalog, reason: &crate::abilities::EndReason) -> String {
    use crate::abilities::EndReason;
    match reason {
        EndReason::Completed => "completed".into(),
        EndReason::Cancelled => "cancelled".into(),
        EndReason::CancelledByTag(t) => format!("cancelled by {}", catalog.tags().name(*t)),
        EndReason::CancelledByAbility(a) => {
            format!(
                "cancelled by {}",
                catalog.abilities().try_def(*a).map_or("?", |d| &d.name)
            )
        }
        EndReason::Retriggered => "retriggered".into(),
        EndReason::Revoked => "revoked".into(),
        EndReason::OwnerDespawned => "owner despawned".into(),
        EndReason::TargetLost => "target lost".into(),
        EndReason::Behaviour(t) => catalog.tags().name(*t).to_owned(),
    }
}

/// Every event of `events` as text, one line each.
pub fn render_text(world: &World, catalog: &Catalog, events: &[TraceEvent]) -> String {
    let mut out = String::new();
    for event in events {
        out.push_str(&render_line(world, catalog, event));
        out.push('\n');
    }
    out
}
