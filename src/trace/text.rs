//! The human text rendering of a trace: one event per line, fixed decimals,
//! stable and diff-friendly:
//!
//! ```text
//!   12.600  alice  swing -> bob  hit 7 Slash
//! ```

use std::fmt::Write as _;

use hecs::{Entity, World};

use super::labels::{self, item_name, spell_name};
use super::{AttackOutcome, BlockReason, ChasePhase, RemovalReason, TraceEvent, TraceKind};
use crate::abilities::EndReason;
use crate::catalog::Catalog;
use crate::combat::ItemId;
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
    let (subject, _) = event.kind.parties();
    format!(
        "{:>8}  {}  {}",
        event.time.to_string(),
        names.name_of(subject),
        describe(names, catalog, &event.kind)
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

/// What happened, after the subject's name.
fn describe(names: &(impl EntityNames + ?Sized), catalog: &Catalog, kind: &TraceKind) -> String {
    let name = |e: Entity| names.name_of(e);
    let tag = |t| catalog.tags().name(t);
    let effect = |id| labels::effect_name(catalog, id);
    let ability = |id| labels::ability_name(catalog, id);
    match kind {
        TraceKind::EffectApplied {
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
            what
        }
        TraceKind::EffectExecuted { effect: e, .. } => format!("execute {}", effect(*e)),
        TraceKind::EffectBlocked {
            effect: e, reason, ..
        } => match reason {
            BlockReason::Requirements => format!("blocked {} requirements", effect(*e)),
            BlockReason::Immune { by } => {
                format!("blocked {} immune ({})", effect(*e), effect(*by))
            }
        },
        TraceKind::EffectRemoved {
            effect: e, reason, ..
        } => match reason {
            RemovalReason::Expired => format!("effect- {} expired", effect(*e)),
            RemovalReason::Removed => format!("effect- {} removed", effect(*e)),
            RemovalReason::RemovedBy(by) => {
                format!("effect- {} removed by {}", effect(*e), effect(*by))
            }
        },
        TraceKind::EffectInhibited {
            effect: e,
            inhibited,
            ..
        } => {
            format!(
                "{} {}",
                if *inhibited { "inhibited" } else { "resumed" },
                effect(*e)
            )
        }
        TraceKind::EffectFailed { error, .. } => format!("effect failed: {error}"),
        TraceKind::AttributeChanged {
            attribute,
            old,
            new,
            ..
        } => {
            format!("{} {old} -> {new}", catalog.attributes().name(*attribute))
        }
        TraceKind::Cue { cue, event, .. } => {
            let when = match event {
                CueEvent::Execute => "execute",
                CueEvent::Add => "add",
                CueEvent::Remove => "remove",
            };
            format!("cue {} {when}", tag(*cue))
        }
        TraceKind::AbilityActivated {
            ability: a, target, ..
        } => match target {
            Some(t) => format!("activate {} -> {}", ability(*a), name(*t)),
            None => format!("activate {}", ability(*a)),
        },
        TraceKind::AbilityFailed {
            ability: a, reason, ..
        } => {
            format!("fail {}: {}", ability(*a), reason.message(catalog.tags()))
        }
        TraceKind::AbilityEnded {
            ability: a, reason, ..
        } => {
            format!("end {} ({})", ability(*a), end_reason(catalog, reason))
        }
        TraceKind::Engaged { target, .. } => format!("engage -> {}", name(*target)),
        TraceKind::TargetChanged {
            target, channel, ..
        } => match (target, channel) {
            (Some(t), Some(c)) => format!("target {} ({c:?})", name(*t)),
            (Some(t), None) => format!("target {}", name(*t)),
            (None, _) => "target cleared".to_owned(),
        },
        TraceKind::Attack {
            target,
            outcome,
            damage_type,
            weaved,
            spell,
            ..
        } => {
            let verb = match (spell, weaved) {
                (None, _) => "swing".to_owned(),
                (Some(s), true) => format!("weave {}", spell_name(catalog, *s)),
                (Some(s), false) => format!("cast {}", spell_name(catalog, *s)),
            };
            let result = match outcome {
                AttackOutcome::Hit(amount) => format!("hit {amount} {damage_type:?}"),
                AttackOutcome::Miss => format!("miss {damage_type:?}"),
            };
            format!("{verb} -> {}  {result}", name(*target))
        }
        TraceKind::AttackFailed { target, reason, .. } => format!(
            "attack -> {} failed: {}",
            name(*target),
            catalog
                .tags()
                .comment(*reason)
                .unwrap_or_else(|| tag(*reason))
        ),
        TraceKind::CooldownStamped {
            cooldown, duration, ..
        } => format!("cooldown {} {duration}", tag(*cooldown)),
        TraceKind::Chase { target, phase, .. } => match phase {
            ChasePhase::Begin(to) => format!(
                "chase begin -> {} to ({:.1}, {:.1})",
                name(*target),
                to.x,
                to.y
            ),
            ChasePhase::Reissue(to) => format!(
                "chase reissue -> {} to ({:.1}, {:.1})",
                name(*target),
                to.x,
                to.y
            ),
            ChasePhase::End => format!("chase end -> {}", name(*target)),
        },
        TraceKind::WeaveQueued {
            target,
            spell,
            replaced,
            ..
        } => {
            let mut what = format!(
                "weave queued {} -> {}",
                spell_name(catalog, *spell),
                name(*target)
            );
            if let Some(old) = replaced {
                let _ = write!(what, " (replaces {})", spell_name(catalog, *old));
            }
            what
        }
        TraceKind::WeaveDropped { spell, .. } => {
            format!("weave dropped {}", spell_name(catalog, *spell))
        }
        TraceKind::AmmoSpent { left, .. } => format!("ammo spent ({left} left)"),
        TraceKind::RunesSpent { spell, .. } => {
            format!("runes spent for {}", spell_name(catalog, *spell))
        }
        TraceKind::Xp {
            skill, centi_xp, ..
        } => format!("xp {skill:?} +{}.{:02}", centi_xp / 100, centi_xp % 100),
        TraceKind::LevelUp { skill, level, .. } => format!("level up {skill:?} {level}"),
        TraceKind::EnteredCombat { .. } => "enter combat".to_owned(),
        TraceKind::Died { kept, stored, .. } => format!(
            "died: kept [{}] stored [{}]",
            item_list(catalog, kept),
            item_list(catalog, stored)
        ),
        TraceKind::Respawned { at, .. } => format!("respawn at ({:.1}, {:.1})", at.x, at.y),
        TraceKind::StyleChanged { style, .. } => format!("style {}", tag(*style)),
        TraceKind::AutocastChanged { spell, .. } => match spell {
            Some(s) => format!("autocast {}", spell_name(catalog, *s)),
            None => "autocast cleared".to_owned(),
        },
        TraceKind::Ate { item, .. } => format!("eat {}", item_name(catalog, *item)),
        TraceKind::Saved { .. } => "saved profile".to_owned(),
    }
}

fn item_list(catalog: &Catalog, items: &[(ItemId, u32)]) -> String {
    let names: Vec<String> = items
        .iter()
        .map(|&(item, quantity)| match quantity {
            1 => item_name(catalog, item).to_owned(),
            n => format!("{} x{n}", item_name(catalog, item)),
        })
        .collect();
    names.join(", ")
}

fn end_reason(catalog: &Catalog, reason: &EndReason) -> String {
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
        EndReason::TargetGainedTag(t) => format!("target gained {}", catalog.tags().name(*t)),
        EndReason::Behaviour(t) => catalog.tags().name(*t).to_owned(),
    }
}
