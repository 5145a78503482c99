//! Checking a snapshot against the context it is restored into, before
//! anything changes: every id it holds must mean something in this
//! catalog, every running instance's behaviour must be registered, and
//! the game's components must pass their own
//! [`check`](super::RollbackComponent::check).
//! A snapshot is trusted state, but a damaged file or a catalog that
//! changed under the same fingerprint must be refused, never half-loaded
//! into a panic on the next step.

use super::{Snapshot, SnapshotComponents, SnapshotError};
use crate::abilities::{AbilitySystem, Behaviour, GameplayEvent};
use crate::catalog::Catalog;
use crate::effects::{ActiveEffect, EffectSpec, EffectTimer};
use crate::gas::{Gas, SavedTimer};
use crate::tags::TagRegistry;
use crate::time::{Lane, TimerKey};
use hecs::Entity;

impl<C: SnapshotComponents> Snapshot<C> {
    /// Every id the snapshot holds is one of `gas`'s catalog's, and every
    /// instance's behaviour is registered with `gas`.
    pub(super) fn check_against(&self, gas: &Gas) -> Result<(), SnapshotError> {
        let catalog = gas.catalog();
        for state in &self.entities {
            if let Some(system) = &state.system {
                check_system(catalog, gas, system)
                    .map_err(|why| invalid(format!("entity {:?}: {why}", state.entity)))?;
            }
            C::check(&state.game, catalog)
                .map_err(|why| invalid(format!("entity {:?}: {why}", state.entity)))?;
        }
        self.check_timers(catalog.tags())
    }

    /// The pending timers, in one walk: an effect's expiry, and only that,
    /// fires in the expiry lane (it is an end, before anything else due at
    /// its instant); a queued event names what the catalog knows; and
    /// every timer an effect or an instance says it holds is pending, once,
    /// under the key it holds: one missing would never fire (a buff that
    /// never ends, a periodic effect that never ticks, an instance that
    /// never wakes), one twice would fire twice (a periodic effect ticking
    /// double), and one held under another timer's key would be taken for
    /// that one (a wake-up that is cancelled as stale, and the buff whose
    /// expiry its owner then cancels on ending, never ending). An expiry
    /// timer is not later than its effect's end (a buff outliving its
    /// duration).
    fn check_timers(&self, tags: &TagRegistry) -> Result<(), SnapshotError> {
        let mut pending = std::collections::HashMap::new();
        let mut wakes = std::collections::HashMap::new();
        for (at, lane, timer_key, timer) in self.gas.timer_entries() {
            let expiry = matches!(timer, SavedTimer::Effect(EffectTimer::Expire { .. }));
            if expiry != (lane == Lane::Expiry) {
                return Err(invalid(format!(
                    "a timer in the {lane:?} lane that fires {}",
                    if expiry {
                        "an expiry"
                    } else {
                        "something other than an expiry"
                    }
                )));
            }
            if let SavedTimer::Event { event, .. } = timer {
                check_event(tags, event)
                    .map_err(|why| invalid(format!("a queued event: {why}")))?;
            }
            let fresh = match *timer {
                SavedTimer::Effect(EffectTimer::Expire { entity, key }) => pending
                    .insert((entity, key, true), (at, timer_key))
                    .is_none(),
                SavedTimer::Effect(EffectTimer::Period { entity, key }) => pending
                    .insert((entity, key, false), (at, timer_key))
                    .is_none(),
                SavedTimer::AbilityWake { owner, instance } => {
                    wakes.insert((owner, instance), timer_key).is_none()
                }
                SavedTimer::Event { .. } => true,
            };
            if !fresh {
                return Err(invalid(
                    "two pending timers for one effect's expiry, period or one instance's wake-up"
                        .into(),
                ));
            }
        }
        // What a holder says it holds, against what is pending for it.
        let held = |entity: Entity, held: Option<TimerKey>, pending: Option<TimerKey>, what| match (
            held, pending,
        ) {
            (Some(held), Some(pending)) if held != pending => Err(invalid(format!(
                "entity {entity:?}: {what} timer under another timer's key"
            ))),
            (Some(_), None) => Err(invalid(format!(
                "entity {entity:?}: {what} timer that is not pending"
            ))),
            _ => Ok(()),
        };
        for state in &self.entities {
            let Some(system) = &state.system else {
                continue;
            };
            let entity = state.entity;
            for (key, effect) in system.host.effects.iter() {
                let expiry = pending.get(&(entity, key, true));
                let held_expiry = effect
                    .holds_expiry_timer()
                    .then(|| system.host.expiry_timer(key));
                if held_expiry == Some(None) {
                    return Err(invalid(format!(
                        "entity {entity:?}: an effect holds an expiry timer it has no key for"
                    )));
                }
                let expiry_key = expiry.map(|&(_, timer_key)| timer_key);
                held(
                    entity,
                    held_expiry.flatten(),
                    expiry_key,
                    "an effect holds an expiry",
                )?;
                let period = pending.get(&(entity, key, false));
                let period_key = period.map(|&(_, timer_key)| timer_key);
                held(
                    entity,
                    effect.period_timer(),
                    period_key,
                    "an effect holds a period",
                )?;
                let late = expiry.is_some_and(|&(at, _)| {
                    effect.holds_expiry_timer()
                        && effect.duration().is_some()
                        && at > effect.expires_at()
                });
                if late {
                    return Err(invalid(format!(
                        "entity {entity:?}: an effect's expiry timer is due after the effect ends"
                    )));
                }
            }
            for (key, instance) in system.abilities.instances.iter() {
                let wake = wakes.get(&(entity, key)).copied();
                held(
                    entity,
                    instance.wait_timer,
                    wake,
                    "an instance holds a wake-up",
                )?;
            }
        }
        Ok(())
    }
}

fn invalid(why: String) -> SnapshotError {
    SnapshotError::Invalid(why)
}

fn check_system(catalog: &Catalog, gas: &Gas, system: &AbilitySystem) -> Result<(), String> {
    let tags = catalog.tags();
    let host = &system.host;
    host.attributes.check(catalog.attributes())?;
    let tags_ok = host.tags.is_valid_in(tags)
        && host.notes.is_valid_in(tags)
        && system.abilities.loose.counts().is_valid_in(tags)
        && system.abilities.loose.saved().is_valid_in(tags)
        && system.abilities.loose.blocked().is_valid_in(tags);
    if !tags_ok {
        return Err("a tag is not in this catalog".into());
    }
    for effect in host.effects.values() {
        check_effect(catalog, effect)?;
    }
    let abilities = catalog.abilities();
    for granted in &system.abilities.granted {
        if abilities.try_def(granted.ability).is_none() {
            return Err(format!(
                "ability #{} is not in this catalog",
                granted.ability.index()
            ));
        }
    }
    for instance in system.abilities.instances.values() {
        let def = abilities.try_def(instance.ability()).ok_or_else(|| {
            format!(
                "ability #{} is not in this catalog",
                instance.ability().index()
            )
        })?;
        check_event(tags, &instance.activation.event())?;
        if !instance.wait.is_known(catalog) {
            return Err(format!(
                "`{}` waits on something not in this catalog",
                def.name
            ));
        }
        if let Behaviour::Registered(id) = def.behaviour {
            if !gas.has_behaviour(id) {
                return Err(format!(
                    "`{}` is running, and its behaviour `{}` is not registered with this context",
                    def.name,
                    abilities.behaviour_name(id)
                ));
            }
        }
    }
    Ok(())
}

fn check_effect(catalog: &Catalog, effect: &ActiveEffect) -> Result<(), String> {
    let def = catalog
        .effects()
        .try_def(effect.def)
        .ok_or_else(|| format!("effect #{} is not in this catalog", effect.def.index()))?;
    check_spec(catalog, &effect.spec())?;
    if effect.magnitudes().len() != def.modifiers.len()
        || effect.stacks == 0
        || effect.magnitudes().iter().any(|m| !m.is_finite())
    {
        return Err(format!(
            "active effect `{}` does not fit its definition",
            def.name
        ));
    }
    if effect.ends_lazily() != def.ends_lazily() {
        return Err(format!(
            "active effect `{}` {} an expiry timer, against its definition",
            def.name,
            if def.ends_lazily() { "holds" } else { "lacks" }
        ));
    }
    let attributes = catalog.attributes().len();
    if effect
        .captures()
        .iter()
        .any(|&(_, a, v)| a.index() >= attributes || !v.is_finite())
    {
        return Err(format!(
            "active effect `{}` captured an unknown attribute",
            def.name
        ));
    }
    Ok(())
}

fn check_spec(catalog: &Catalog, spec: &EffectSpec) -> Result<(), String> {
    if catalog.effects().try_def(spec.effect).is_none() || !spec.is_well_formed(catalog.tags()) {
        return Err("an effect spec names something not in this catalog".into());
    }
    Ok(())
}

fn check_event(tags: &TagRegistry, event: &GameplayEvent) -> Result<(), String> {
    if !event.is_well_formed(tags) {
        return Err("an event names a tag not in this catalog".into());
    }
    Ok(())
}
