//! The combat post-execute step: what follows every damage application
//! (the role of `PostGameplayEffectExecute` for the `Damage` meta attribute).

use std::sync::Arc;

use hecs::{Entity, World};

use super::defs::{DamageType, Style};
use super::native;
use super::progress::grant_damage_xp;
use super::record::CombatRecord;
use super::runtime::CombatRuntime;
use crate::abilities::GameplayEvent;
use crate::effects::{ApplyOutcome, EffectSpec, Execution};
use crate::gas::{EffectHook, Gas};
use crate::tags::TagSet;

/// After an execution drains `Damage` into `Health`:
///
/// - a combat hit fires the hit cue its spec carries (the per-type cue, or
///   the spell's), with the amount rolled;
/// - a combat hit (`GE_Damage`) that lowered health gives the source
///   style-routed XP and Hitpoints XP (never a miss, a hit for zero or a
///   heal), and refreshes `Status.InCombat` on both sides; entering combat
///   after a clean expiry sends `Combat.Event.EnterCombat` once;
/// - a target brought to zero receives `Combat.Event.Death` from the server,
///   handled at once.
pub struct CombatHook(pub Arc<CombatRuntime>);

impl EffectHook for CombatHook {
    fn post_execute(
        &self,
        world: &mut World,
        gas: &mut Gas,
        target: Entity,
        execution: &Execution,
    ) {
        let runtime = &self.0;
        let Some(outcome) = execution.meta.iter().find(|m| m.drained == runtime.health) else {
            return;
        };
        let tags = runtime.tags();
        let lowered = outcome.applied();
        let combat = execution.effect == runtime.damage_effect;
        let spec_tags = &execution.spec.tags;
        if combat && outcome.is_hit() {
            // The hit cue the resolver put on the spec fires now that the
            // damage has applied (an immune target never shows a splat).
            if let Some(cue) = spec_tags
                .iter()
                .find(|t| t.matches(tags[native::GAMEPLAY_CUE]))
            {
                gas.fire_cue(
                    target,
                    execution.spec.source,
                    cue,
                    outcome.amount,
                    &TagSet::new(),
                );
            }
        }
        if combat && outcome.is_hit() && lowered > 0.0 {
            let damage_type = DamageType::ALL
                .iter()
                .copied()
                .find(|t| spec_tags.has_exact(t.tag(tags)));
            let style = Style::ALL
                .iter()
                .copied()
                .find(|s| spec_tags.has_exact(s.tag(tags)))
                .unwrap_or(Style::Aggressive);
            if let Some(attacker) = execution.spec.source.filter(|&a| a != target) {
                if let Some(damage_type) = damage_type {
                    grant_damage_xp(runtime, world, gas, attacker, damage_type, style, lowered);
                }
                refresh_in_combat(runtime, world, gas, attacker);
            }
            refresh_in_combat(runtime, world, gas, target);
        }
        if outcome.reached_zero() {
            // Handled now, not queued: nothing else may happen at this
            // instant (a swing of the dying entity) before it is dead.
            let mut event = GameplayEvent::new(tags[native::COMBAT_EVENT_DEATH]).target(target);
            event.instigator = execution.spec.source;
            gas.handle_event(world, target, event);
        }
    }
}

/// Applies (or refreshes) `Status.InCombat`; a fresh entry sends
/// `Combat.Event.EnterCombat`.
pub(crate) fn refresh_in_combat(
    runtime: &CombatRuntime,
    world: &mut World,
    gas: &mut Gas,
    entity: Entity,
) {
    let tags = runtime.tags();
    let seconds = runtime.defs().settings.in_combat.as_secs_f64();
    let spec = EffectSpec::with_value(
        runtime.in_combat_effect,
        None,
        TagSet::new(),
        (tags[native::STATUS_IN_COMBAT], seconds),
    );
    if let Ok(ApplyOutcome::Added(_)) = gas.apply_effect(world, entity, spec) {
        gas.record_game(CombatRecord::EnteredCombat { entity });
        gas.send_event(
            entity,
            GameplayEvent::new(tags[native::COMBAT_EVENT_ENTER_COMBAT]),
        );
    }
}
