//! Follow-up work effect operations leave for the context: conditional
//! effects, effects applied when another expires or is removed, and the
//! abilities active effects grant.

use hecs::{Entity, World};

use super::Gas;
use crate::abilities::{AbilitySystem, Granted};
use crate::effects::{EffectError, EffectId, EffectSpec, FollowUp};
use crate::trace::TraceKind;

/// How many follow-up applications one operation may cause before the
/// rest are refused: far above what sane data needs, low enough that a
/// loop in the data ends at once with an error naming the effect.
pub(super) const FOLLOW_UP_LIMIT: u32 = 1024;

impl Gas {
    /// Does every queued follow-up, first in, first out (what one causes
    /// queues behind the rest).
    // Out of line: most calls leave no follow-up work, and the hot
    // reconcile stays small.
    #[cold]
    #[inline(never)]
    pub(super) fn run_follow_ups(&mut self, world: &mut World) {
        while let Some((entity, work)) = self.follow_ups.pop_front() {
            match work {
                FollowUp::Apply(spec) => self.apply_follow_up(world, entity, spec),
                FollowUp::Grants {
                    effect,
                    level,
                    grant,
                } => self.effect_grants(world, entity, effect, level, grant),
                FollowUp::Relevel { effect, level } => {
                    self.effect_relevels(world, entity, effect, level)
                }
            }
        }
    }

    /// Applies a follow-up spec; a failure is recorded in the trace (the
    /// operation that caused it has already happened).
    fn apply_follow_up(&mut self, world: &mut World, target: Entity, spec: EffectSpec) {
        if self.follow_up_budget > 0 {
            self.follow_up_budget -= 1;
            self.apply_effect_unreturned(world, target, spec);
            return;
        }
        let error = EffectError::FollowUpLimit {
            effect: self.defs().effect(spec.effect),
            limit: FOLLOW_UP_LIMIT,
        };
        self.record(TraceKind::EffectFailed {
            target,
            effect: spec.effect,
            error,
        });
    }

    /// A stack of `effect` took a new spec at `level`: the abilities it
    /// grants take that level, as abilities follow the spec that grants
    /// them; one game code granted keeps the level it gave. A running
    /// instance keeps the level it started at.
    fn effect_relevels(&mut self, world: &mut World, owner: Entity, effect: EffectId, level: u32) {
        let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(owner) else {
            return;
        };
        let granted = &self.catalog.effects().def(effect).granted_abilities;
        for entry in system.abilities.granted.iter_mut() {
            if !entry.direct() && granted.contains(&entry.ability) {
                entry.level = level;
            }
        }
    }

    /// An active effect started (`grant`) or stopped holding its granted
    /// abilities. Each ability counts the effects granting it; it is
    /// revoked, its running instance ended, when the last one stops and
    /// game code did not grant it too.
    fn effect_grants(
        &mut self,
        world: &mut World,
        owner: Entity,
        effect: EffectId,
        level: u32,
        grant: bool,
    ) {
        let catalog = self.catalog.clone();
        for &ability in &catalog.effects().def(effect).granted_abilities {
            if grant {
                self.note_granted(ability);
            }
            let running = {
                let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(owner) else {
                    return;
                };
                let granted = &mut system.abilities.granted;
                match granted.iter().position(|g| g.ability == ability) {
                    None if grant => {
                        granted.push(Granted::new(ability, level, false, 1));
                        continue;
                    }
                    None => continue,
                    Some(at) if grant => {
                        granted[at].add_effect();
                        continue;
                    }
                    Some(at) => {
                        let entry = &mut granted[at];
                        entry.remove_effect();
                        if entry.is_held() {
                            continue;
                        }
                        system.abilities.instance_of(ability)
                    }
                }
            };
            self.drop_grant(world, owner, ability, running);
        }
    }
}
