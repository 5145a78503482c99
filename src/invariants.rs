//! [`check`]: gaskit's bookkeeping invariants, verified against a live
//! world, for tests and debug builds of games.
//!
//! Every rule here holds after every call into the [`Gas`] returns; a
//! violation is a bug in gaskit (or in game code that edited gaskit
//! components by hand). Checking walks every entity and every pending timer,
//! so it is meant for tests and soak runs, not for every frame of a
//! shipped game.
//!
//! ```
//! use gaskit::arena::{Arena, ArenaConfig};
//! use gaskit::prelude::*;
//!
//! let mut arena = Arena::new(ArenaConfig { combatants: 12, ..ArenaConfig::default() }).unwrap();
//! arena.run_for(SimDuration::from_secs(5), SimDuration::from_millis(50));
//! assert_eq!(gaskit::invariants::check(&arena.world, &arena.gas), Vec::<String>::new());
//! ```

use hecs::{Entity, World};

use crate::abilities::{AbilitySystem, InstanceKey};
use crate::combat::Combatant;
use crate::effects::{EffectKey, EffectTimer};
use crate::gas::{Gas, Timer};
use crate::tags::{native, TagCounts};
use crate::time::TimerKey;

/// Every broken invariant, one line each naming the entity and the rule;
/// empty when all hold.
///
/// - health lies within `[0, MaxHealth]`;
/// - each entity's owned tag counts equal its loose tags plus the granted
///   tags of its active, uninhibited effects plus the activation-owned tags
///   of its running abilities; its ability blocks equal the block tags of
///   its running abilities;
/// - an attacker set holds only entities whose auto-attack runs against
///   that target, and no more than the defender's kind allows;
/// - a weave is queued only while an engagement runs;
/// - no ability that `Status.Dead` cancels runs on a dead owner;
/// - every pending timer belongs to a live effect or a waiting ability
///   instance that still holds that very timer (so none can fire for
///   something that ended).
pub fn check(world: &World, gas: &Gas) -> Vec<String> {
    let mut broken = Vec::new();
    let catalog = gas.catalog();
    let tags = catalog.tags();
    let abilities = catalog.abilities();
    let attributes = catalog.attributes();
    let health = attributes.get("Health");
    let max_health = attributes.get("MaxHealth");
    let auto_attack = tags[native::ACTION_COMBAT_AUTO_ATTACK];
    let dead = tags[native::STATUS_DEAD];

    let attacking = |attacker: Entity, target: Entity| -> bool {
        world.get::<&AbilitySystem>(attacker).is_ok_and(|system| {
            system.abilities.instances.values().any(|instance| {
                abilities
                    .def(instance.ability)
                    .ability_tags
                    .has(auto_attack)
                    && instance.event.target == Some(target)
            })
        })
    };

    let mut query = world.query::<(Entity, &AbilitySystem, Option<&Combatant>)>();
    for (entity, system, combatant) in query.iter() {
        let at = |rule: &str| format!("{entity:?}: {rule}");
        if let (Some(h), Some(m)) = (health, max_health) {
            let (h, m) = (system.current(h), system.current(m));
            if !(0.0..=m).contains(&h) {
                broken.push(at(&format!("health {h} outside [0, {m}]")));
            }
        }

        let mut expected = TagCounts::new();
        for (tag, count) in system.abilities.loose.iter() {
            for _ in 0..count {
                expected.add(tag);
            }
        }
        for effect in system.host.effects.values() {
            if !effect.inhibited {
                expected.add_all(&catalog.effects().def(effect.def).granted_tags);
            }
        }
        let mut blocked = TagCounts::new();
        for instance in system.abilities.instances.values() {
            let def = abilities.def(instance.ability);
            expected.add_all(&def.activation_owned_tags);
            blocked.add_all(&def.block_abilities_with_tags);
        }
        if !same_counts(&expected, system.tags()) {
            broken.push(at(
                "owned tag counts differ from loose + effect + ability tags",
            ));
        }
        if !same_counts(&blocked, &system.abilities.blocked) {
            broken.push(at(
                "ability blocks differ from the running abilities' block tags",
            ));
        }

        if system.has_tag(dead) {
            for instance in system.abilities.instances.values() {
                let def = abilities.def(instance.ability);
                if def.cancel_on_tags_added.iter().any(|t| dead.matches(t)) {
                    broken.push(at(&format!("`{}` runs on a dead owner", def.name)));
                }
            }
        }

        if let Some(combatant) = combatant {
            let limit = catalog.combat().kind(combatant.kind).max_attackers as usize;
            if combatant.attackers.current.len() > limit {
                broken.push(at(&format!(
                    "{} attackers, the limit is {limit}",
                    combatant.attackers.current.len()
                )));
            }
            for &attacker in &combatant.attackers.current {
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
        }
    }

    for (key, timer) in gas.timers().iter() {
        if let Some(problem) = timer_problem(world, key, timer) {
            broken.push(problem);
        }
    }
    broken
}

/// Why a pending timer would fire for something that has ended, if it would.
fn timer_problem(world: &World, key: TimerKey, timer: &Timer) -> Option<String> {
    let effect_holds = |entity: Entity, effect: EffectKey, period: bool| {
        world.get::<&AbilitySystem>(entity).is_ok_and(|system| {
            system.host.effects.get(effect).is_some_and(|e| {
                if period {
                    e.period_timer == Some(key)
                } else {
                    e.expiry_timer == Some(key)
                }
            })
        })
    };
    let instance_holds = |owner: Entity, instance: InstanceKey| {
        world.get::<&AbilitySystem>(owner).is_ok_and(|system| {
            system
                .abilities
                .instances
                .get(instance)
                .is_some_and(|i| i.wait_timer == Some(key))
        })
    };
    match *timer {
        Timer::Effect(EffectTimer::Expire {
            entity,
            key: effect,
        }) => (!effect_holds(entity, effect, false))
            .then(|| format!("an expiry timer for an effect that ended ({entity:?})")),
        Timer::Effect(EffectTimer::Period {
            entity,
            key: effect,
        }) => (!effect_holds(entity, effect, true))
            .then(|| format!("a period timer for an effect that ended ({entity:?})")),
        Timer::AbilityWake { owner, instance } => (!instance_holds(owner, instance))
            .then(|| format!("a wake-up for an ability instance that ended ({owner:?})")),
        // Events may be sent to anyone, even the despawned: delivery checks.
        Timer::Event { .. } => None,
    }
}

fn same_counts(a: &TagCounts, b: &TagCounts) -> bool {
    a.iter().eq(b.iter())
}
