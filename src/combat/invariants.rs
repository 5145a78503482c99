//! The combat layer's bookkeeping rules, added to
//! [`crate::invariants::check`] by [`install`](super::install).

use hecs::{Entity, World};

use super::combatant::Combatant;
use super::native;
use super::runtime::CombatRuntime;
use crate::abilities::AbilitySystem;
use crate::gas::Gas;

/// - an attacker set holds only entities whose auto-attack runs against
///   that target, and no more than the defender's kind allows;
/// - a weave is queued only while an engagement runs;
/// - `State.Chasing` is owned exactly while a chase runs.
pub(super) fn check(runtime: &CombatRuntime, world: &World, gas: &Gas, broken: &mut Vec<String>) {
    let auto_attack = runtime.tags()[native::ACTION_COMBAT_AUTO_ATTACK];
    let chasing = runtime.tags()[native::STATE_CHASING];
    let abilities = gas.catalog().abilities();
    let attacking = |attacker: Entity, target: Entity| -> bool {
        world.get::<&AbilitySystem>(attacker).is_ok_and(|system| {
            system.active_abilities().any(|(key, ability)| {
                abilities.def(ability).ability_tags.has(auto_attack)
                    && system.instance_event(key).and_then(|e| e.target) == Some(target)
            })
        })
    };
    let mut query = world.query::<(Entity, &Combatant)>();
    for (entity, combatant) in query.iter() {
        let at = |rule: &str| format!("{entity:?}: {rule}");
        let limit = runtime.defs().kind(combatant.kind).max_attackers as usize;
        if combatant.attackers.current.len() > limit {
            broken.push(at(&format!(
                "{} attackers, the limit is {limit}",
                combatant.attackers.current.len()
            )));
        }
        // An attacker despawned behind the context's back is swept out at
        // the next engagement; until then it is dead weight, not a break.
        for &attacker in combatant
            .attackers
            .current
            .iter()
            .filter(|&&a| world.contains(a))
        {
            if !attacking(attacker, entity) {
                broken.push(at(&format!("attacker {attacker:?} is not attacking it")));
            }
        }
        if combatant.targeting.pending_weave.is_some()
            && !combatant
                .targeting
                .target
                .is_some_and(|target| attacking(entity, target))
        {
            broken.push(at("a weave is queued without a running engagement"));
        }
        let tagged = gas.has_tag(world, entity, chasing);
        if tagged != runtime.pawn.is_chase_active(world, entity) {
            broken.push(at(if tagged {
                "owns State.Chasing with no chase running"
            } else {
                "a chase runs without State.Chasing"
            }));
        }
    }
}
