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

use std::collections::BTreeMap;

use hecs::{Entity, World};

use crate::abilities::{AbilitySystem, InstanceKey};
use crate::attributes::Bound;
use crate::effects::{EffectKey, EffectTimer};
use crate::gas::{Gas, Timer};
use crate::tags::TagCounts;
use crate::time::{SimTime, TimerKey};

/// Every broken invariant, one line each naming the entity and the rule;
/// empty when all hold. The core's rules:
///
/// - every attribute's current value lies within its bounds, and is what
///   its base, modifiers and bounds give (a recompute would not move it;
///   a formula that gives no finite value keeps the last one);
/// - each entity's owned tag counts equal its loose tags plus the granted
///   tags of its active, uninhibited effects plus the activation-owned tags
///   of its running abilities; its ability blocks equal the block tags of
///   its running abilities;
/// - every granted ability is granted by game code or by as many active,
///   uninhibited effects as it counts;
/// - the index of listening effects (immunity, ongoing requirements, live
///   captures) lists exactly those of the active effects, in slot order;
/// - no ability runs while its owner holds a tag that both blocks its
///   activation and cancels it when added (a stunned owner's stun-cancelled
///   ability has ended);
/// - an effect holds an expiry timer unless its definition [ends
///   lazily](crate::EffectDef::ends_lazily); no lazy effect ends before
///   its host's hint of the first lazy end; and on a host something
///   watches (a trace or observer of effects or tags, a wait on its tags
///   or state) each one still to end is noticed at its end or before, by
///   one notice of that end;
/// - every pending timer belongs to a live effect or a waiting ability
///   instance that still holds that very timer (so none can fire for
///   something that ended), or to an entity game code despawned outside the
///   context (it fires into nothing);
///
/// then every check a game module registered with
/// [`Gas::add_invariant`](crate::Gas::add_invariant) (the combat layer's
/// attacker sets and weave queue among them).
pub fn check(world: &World, gas: &Gas) -> Vec<String> {
    let mut broken = Vec::new();
    let catalog = gas.catalog();
    let abilities = catalog.abilities();
    let schema = catalog.attributes();

    let notices = notices_by_effect(gas);
    let mut query = world.query::<(Entity, &AbilitySystem)>();
    for (entity, system) in query.iter() {
        let at = |rule: &str| format!("{entity:?}: {rule}");
        for id in schema.ids() {
            let def = schema.def(id);
            let value = system.current(id);
            let bound = |b: Option<Bound>| match b {
                Some(Bound::Value(v)) => Some(v),
                Some(Bound::Attribute(other)) => Some(system.current(other)),
                None => None,
            };
            let (min, max) = (bound(def.min), bound(def.max));
            if min.is_some_and(|m| value < m) || max.is_some_and(|m| value > m) {
                broken.push(at(&format!(
                    "{} {value} outside its bounds [{}, {}]",
                    def.name,
                    min.unwrap_or(f64::NEG_INFINITY),
                    max.unwrap_or(f64::INFINITY)
                )));
            }
            let recomputed = system.attributes().breakdown(schema, id).value;
            if recomputed.is_finite() && recomputed.to_bits() != value.to_bits() {
                broken.push(at(&format!(
                    "{} is {value} where its base and modifiers give {recomputed}",
                    def.name
                )));
            }
        }

        let mut expected = TagCounts::new();
        for (tag, count) in system.abilities.loose.counts().iter() {
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
            let def = abilities.def(instance.ability());
            expected.add_all(&def.activation_owned_tags);
            blocked.add_all(&def.block_abilities_with_tags);
        }
        // The counts as kept: an effect that ended lazily holds its tags
        // until it is cleared, and is still listed until then.
        if !same_counts(&expected, &system.host.tags) {
            broken.push(at(
                "owned tag counts differ from loose + effect + ability tags",
            ));
        }
        if !blocked.iter().eq(system.abilities.loose.blocked().iter()) {
            broken.push(at(
                "ability blocks differ from the running abilities' block tags",
            ));
        }

        for granted in &system.abilities.granted {
            let by_effects = system
                .host
                .effects
                .values()
                .filter(|e| !e.inhibited)
                .flat_map(|e| &catalog.effects().def(e.def).granted_abilities)
                .filter(|&&a| a == granted.ability)
                .count();
            if by_effects != usize::from(granted.by_effects()) {
                broken.push(at(&format!(
                    "`{}` counts {} granting effects, {by_effects} are active",
                    abilities.def(granted.ability).name,
                    granted.by_effects()
                )));
            }
            if !granted.is_held() {
                broken.push(at(&format!(
                    "`{}` is held with nothing granting it",
                    abilities.def(granted.ability).name
                )));
            }
            if !gas.ever_granted(granted.ability) {
                broken.push(at(&format!(
                    "`{}` is granted but the context never saw it granted \
                     (the events that trigger it would go unheard)",
                    abilities.def(granted.ability).name
                )));
            }
        }

        let held = system.abilities.reactive_waits_held();
        if held.with(system.reactive_waits()) != system.reactive_waits() {
            broken.push(at(
                "an instance holds a reactive wait its ability system does not know of",
            ));
        }

        if !system.host.index_agrees(catalog.effects()) {
            broken.push(at(
                "the index of listening effects differs from the active effects",
            ));
        }

        lazy_end_problems(gas, &notices, entity, system, &mut |rule| {
            broken.push(at(rule))
        });

        let owned = system.tags(catalog.effects(), gas.now());
        let owned = owned.tags();
        for instance in system.abilities.instances.values() {
            let def = abilities.def(instance.ability());
            let blocks = def
                .activation_blocked
                .as_ref()
                .is_some_and(|q| !q.is_empty() && q.matches(owned));
            let cancels = def.cancelling_tag(|| owned.iter()).is_some();
            if blocks && cancels {
                broken.push(at(&format!(
                    "`{}` runs while its owner holds a tag that cancels it",
                    def.name
                )));
            }
        }
    }

    let mut event_timers = 0;
    for (key, timer) in gas.timers().iter() {
        if let Timer::Event(event) = timer {
            event_timers += 1;
            if gas.queued_events().get(*event).is_none() {
                broken.push("a queued event's timer has no event".to_owned());
            }
        }
        if let Some(problem) = timer_problem(world, key, timer) {
            broken.push(problem);
        }
    }
    if event_timers != gas.queued_events().len() {
        broken.push(format!(
            "{} queued events for {event_timers} event timers",
            gas.queued_events().len()
        ));
    }
    gas.check_registered_invariants(world, &mut broken);
    broken
}

/// The rules of lazy ends on one host: an effect arms no expiry timer
/// exactly when its definition ends lazily, and the host keeps a timer for
/// exactly the effects that hold one; the host's hint of its first
/// lazy end is not late; and on a watched host every lazy effect still to
/// end is noticed no later than its end.
/// The instants of the pending notices of lazy ends, by effect, sorted.
type Notices = BTreeMap<(Entity, EffectKey), Vec<SimTime>>;

/// [`Notices`] read once from the context, for every entity's check.
fn notices_by_effect(gas: &Gas) -> Notices {
    let mut notices = Notices::new();
    for notice in gas.lazy_ends().iter() {
        notices
            .entry((notice.entity, notice.key))
            .or_default()
            .push(notice.at());
    }
    for due in notices.values_mut() {
        due.sort_unstable();
    }
    notices
}

fn lazy_end_problems(
    gas: &Gas,
    notices: &Notices,
    entity: Entity,
    system: &AbilitySystem,
    broken: &mut dyn FnMut(&str),
) {
    let defs = gas.catalog().effects();
    let now = gas.now();
    let mut holding = 0;
    for (key, effect) in system.host.effects.iter() {
        let def = defs.def(effect.def);
        if effect.holds_expiry_timer() != system.host.expiry_timer(key).is_some() {
            broken(&format!(
                "`{}` and its host disagree on whether it holds an expiry timer",
                def.name
            ));
        }
        holding += usize::from(effect.holds_expiry_timer());
        if effect.ends_lazily() != def.ends_lazily() {
            broken(&format!(
                "`{}` {} an expiry timer, against its definition",
                def.name,
                if effect.ends_lazily() {
                    "lacks"
                } else {
                    "holds"
                }
            ));
        }
        let due = notices.get(&(entity, key)).map_or(&[][..], Vec::as_slice);
        let noticed = || due.iter().any(|&at| at <= effect.expires_at());
        // A refresh to an earlier end leaves the later notice to find
        // nothing; two notices of one end are one too many, and each would
        // be moved on with every refresh, for good.
        if due.windows(2).any(|pair| pair[0] == pair[1]) {
            broken(&format!(
                "`{}` has two notices of one lazy end pending",
                def.name
            ));
        }
        if effect.ends_lazily() && !effect.has_ended(now) && gas.watches(system) && !noticed() {
            broken(&format!(
                "`{}` ends lazily on a watched host and nothing notices its end",
                def.name
            ));
        }
    }
    if system.host.aside.expiry().iter().count() != holding {
        broken("the host keeps an expiry timer for an effect that holds none");
    }
    if !system.host.lazy_due_agrees() {
        broken("the first lazy end is earlier than the host's hint of it");
    }
}

/// Why a pending timer would fire for something that has ended, if it would.
fn timer_problem(world: &World, key: TimerKey, timer: &Timer) -> Option<String> {
    let effect_holds = |entity: Entity, effect: EffectKey, period: bool| {
        world.get::<&AbilitySystem>(entity).is_ok_and(|system| {
            system.host.effects.get(effect).is_some_and(|e| {
                if period {
                    e.period_timer() == Some(key)
                } else {
                    system.host.expiry_timer(effect) == Some(key)
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
        // Game code may despawn an entity behind the context's back (a raw
        // `world.despawn`): its timers fire into nothing.
        Timer::Effect(EffectTimer::Expire { entity, .. } | EffectTimer::Period { entity, .. })
            if !world.contains(entity) =>
        {
            None
        }
        Timer::AbilityWake { owner, .. } if !world.contains(owner) => None,
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
        Timer::Event(_) => None,
    }
}

fn same_counts(a: &TagCounts, b: &TagCounts) -> bool {
    a.iter().eq(b.iter())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::CatalogBuilder;

    /// A current value its base and modifiers do not give is reported,
    /// naming the attribute and both values.
    #[test]
    fn a_current_value_out_of_step_with_its_base_is_reported() {
        let mut builder = CatalogBuilder::new();
        builder.add_source(
            "game.ron",
            r#"(attributes: [(name: "Stamina", base: 10), (name: "Focus", base: 2)])"#,
        );
        let gas = Gas::new(builder.build().unwrap());
        let mut world = World::new();
        let hero = world.spawn((gas.new_ability_system(),));
        assert_eq!(check(&world, &gas), Vec::<String>::new());
        let stamina = gas.catalog().attributes().get("Stamina").unwrap();
        let system = world.query_one_mut::<&mut AbilitySystem>(hero).unwrap();
        // The scratch write leaves the current value behind, as no path
        // outside an execution may.
        system.host.attributes.write_scratch_base(stamina, 321.0);
        let broken = check(&world, &gas);
        assert_eq!(broken.len(), 1, "{broken:?}");
        assert!(
            broken[0].contains("Stamina is 10 where its base and modifiers give 321"),
            "{broken:?}"
        );
    }
}
