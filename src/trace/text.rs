//! The human text rendering of a trace: one event per line, fixed decimals,
//! stable and diff-friendly.

use std::fmt::Write as _;

use hecs::{Entity, World};

use super::{AttackOutcome, BlockReason, ChasePhase, RemovalReason, TraceEvent, TraceKind};
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
        TraceKind::Engaged { attacker, target } => {
            (*attacker, format!("engage -> {}", name(*target)))
        }
        TraceKind::TargetChanged {
            entity,
            target,
            channel,
        } => match (target, channel) {
            (Some(t), Some(c)) => (*entity, format!("target {} ({c:?})", name(*t))),
            (Some(t), None) => (*entity, format!("target {}", name(*t))),
            (None, _) => (*entity, "target cleared".to_owned()),
        },
        TraceKind::Attack {
            attacker,
            target,
            outcome,
            damage_type,
            weaved,
            spell,
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
            (*attacker, format!("{verb} -> {}  {result}", name(*target)))
        }
        TraceKind::AttackFailed {
            attacker,
            target,
            reason,
        } => (
            *attacker,
            format!(
                "attack -> {} failed: {}",
                name(*target),
                catalog
                    .tags()
                    .comment(*reason)
                    .unwrap_or_else(|| tag(*reason))
            ),
        ),
        TraceKind::CooldownStamped {
            entity,
            cooldown,
            duration,
        } => (*entity, format!("cooldown {} {duration}", tag(*cooldown))),
        TraceKind::Chase {
            chaser,
            target,
            phase,
        } => {
            let what = match phase {
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
            };
            (*chaser, what)
        }
        TraceKind::WeaveQueued {
            entity,
            target,
            spell,
            replaced,
        } => {
            let mut what = format!(
                "weave queued {} -> {}",
                spell_name(catalog, *spell),
                name(*target)
            );
            if let Some(old) = replaced {
                let _ = write!(what, " (replaces {})", spell_name(catalog, *old));
            }
            (*entity, what)
        }
        TraceKind::WeaveDropped { entity, spell } => (
            *entity,
            format!("weave dropped {}", spell_name(catalog, *spell)),
        ),
        TraceKind::AmmoSpent { entity, left } => (*entity, format!("ammo spent ({left} left)")),
        TraceKind::RunesSpent { entity, spell } => (
            *entity,
            format!("runes spent for {}", spell_name(catalog, *spell)),
        ),
        TraceKind::Xp {
            entity,
            skill,
            centi_xp,
        } => (
            *entity,
            format!("xp {:?} +{}.{:02}", skill, centi_xp / 100, centi_xp % 100),
        ),
        TraceKind::LevelUp {
            entity,
            skill,
            level,
        } => (*entity, format!("level up {skill:?} {level}")),
        TraceKind::EnteredCombat { entity } => (*entity, "enter combat".to_owned()),
        TraceKind::Died {
            entity,
            kept,
            stored,
        } => (
            *entity,
            format!(
                "died: kept [{}] stored [{}]",
                item_list(catalog, kept),
                item_list(catalog, stored)
            ),
        ),
        TraceKind::Respawned { entity, at } => {
            (*entity, format!("respawn at ({:.1}, {:.1})", at.x, at.y))
        }
        TraceKind::StyleChanged { entity, style } => (*entity, format!("style {}", tag(*style))),
        TraceKind::AutocastChanged { entity, spell } => (
            *entity,
            match spell {
                Some(s) => format!("autocast {}", spell_name(catalog, *s)),
                None => "autocast cleared".to_owned(),
            },
        ),
        TraceKind::Ate { entity, item } => (
            *entity,
            format!(
                "eat {}",
                catalog
                    .combat()
                    .item(*item)
                    .map_or("?", |i| i.name.as_str())
            ),
        ),
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

fn item_list(catalog: &Catalog, items: &[(crate::combat::ItemId, u32)]) -> String {
    let names: Vec<String> = items
        .iter()
        .map(|(item, quantity)| {
            let name = catalog
                .combat()
                .item(*item)
                .map_or("?", |i| i.name.as_str());
            if *quantity == 1 {
                name.to_owned()
            } else {
                format!("{name} x{quantity}")
            }
        })
        .collect();
    names.join(", ")
}

fn spell_name(catalog: &Catalog, spell: crate::combat::SpellId) -> &str {
    catalog
        .combat()
        .spell(spell)
        .map_or("?", |s| s.name.as_str())
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
        EndReason::TargetGainedTag(t) => format!("target gained {}", catalog.tags().name(*t)),
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
