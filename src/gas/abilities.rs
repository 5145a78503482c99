//! The ability operations of the context: granting and gameplay events,
//! with the authority rule a client's event meets. Activation and commit
//! are in `activation.rs`, waits in `waits.rs`, ending and despawning in
//! `ending.rs`, loose tags in `loose_tags.rs`.

use std::fmt;
use std::sync::Arc;

use hecs::{Entity, World};
use smallvec::SmallVec;

use super::lent::Lent;
use super::{Gas, Timer};
use crate::abilities::{
    AbilityBehaviour, AbilityDef, AbilityId, AbilitySystem, ActivationFailure, ClientField,
    EndReason, GameplayEvent, Granted, InstanceKey, NetOwner, NetPolicy, Origin, Wait, WakeReason,
};
use crate::diagnostics::nearest;
use crate::tags::{Tag, TagRegistry};
use crate::time::SimTime;
use crate::trace::TraceKind;

/// A misuse of the ability API. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AbilityError {
    /// The entity is despawned or has no ability system.
    NoSuchEntity(Entity),
    /// The ability id is not in this catalog.
    UnknownAbility(AbilityId),
    /// The ability is not granted to the entity.
    NotGranted(AbilityId),
    /// No ability in the catalog uses a behaviour by this name.
    UnknownBehaviour {
        /// The name given.
        name: String,
        /// The nearest name the catalog uses.
        suggestion: Option<String>,
    },
}

impl fmt::Display for AbilityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AbilityError::NoSuchEntity(e) => {
                write!(f, "entity {e:?} is gone or has no ability system")
            }
            AbilityError::UnknownAbility(id) => {
                write!(f, "ability #{} is not in this catalog", id.index())
            }
            AbilityError::NotGranted(id) => {
                write!(f, "ability #{} is not granted to the entity", id.index())
            }
            AbilityError::UnknownBehaviour { name, suggestion } => {
                write!(f, "no ability uses a behaviour called `{name}`")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean `{s}`?)")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for AbilityError {}

/// What one gameplay event did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventOutcome {
    /// Every ability the event triggered, with its activation result, in
    /// grant order.
    pub activations: SmallVec<[(AbilityId, Result<InstanceKey, ActivationFailure>); 2]>,
    /// How many waiting instances the event woke.
    pub woken: usize,
    /// How many waiting instances it could not wake: a client's event
    /// reaching an instance the client may not drive.
    pub refused_wakes: usize,
}

impl EventOutcome {
    /// True when at least one ability activated.
    pub fn activated(&self) -> bool {
        self.activations.iter().any(|(_, r)| r.is_ok())
    }

    /// The first failure, if any.
    pub fn first_failure(&self) -> Option<ActivationFailure> {
        self.activations.iter().find_map(|(_, r)| r.err())
    }
}

impl Gas {
    // ------------------------------------------------------------ setup

    /// Registers the behaviour that abilities written as
    /// `behaviour: Registered("name")` run. Fails if no ability in the
    /// catalog uses that name (a typo would otherwise go unnoticed).
    pub fn register_behaviour(
        &mut self,
        name: &str,
        behaviour: impl AbilityBehaviour + 'static,
    ) -> Result<(), AbilityError> {
        let abilities = self.catalog.abilities();
        let Some(id) = abilities.behaviour(name) else {
            let used = (0..abilities.behaviour_count())
                .map(|i| {
                    abilities
                        .behaviour_name(crate::abilities::BehaviourId::from_index(i))
                        .to_owned()
                })
                .collect::<Vec<_>>();
            return Err(AbilityError::UnknownBehaviour {
                name: name.to_owned(),
                suggestion: nearest(name, used.iter().map(String::as_str)),
            });
        };
        self.behaviours[id.index()] = Some(Lent::new(Arc::new(behaviour)));
        Ok(())
    }

    /// True when the behaviour `id` is registered.
    pub(crate) fn has_behaviour(&self, id: crate::abilities::BehaviourId) -> bool {
        self.behaviours.get(id.index()).is_some_and(Option::is_some)
    }

    /// Behaviour names the catalog uses that no one has registered.
    pub fn missing_behaviours(&self) -> Vec<&str> {
        let abilities = self.catalog.abilities();
        (0..abilities.behaviour_count())
            .filter(|&i| self.behaviours[i].is_none())
            .map(|i| abilities.behaviour_name(crate::abilities::BehaviourId::from_index(i)))
            .collect()
    }

    /// Grants `ability` at `level` (re-granting updates the level).
    pub fn grant_ability(
        &mut self,
        world: &mut World,
        entity: Entity,
        ability: AbilityId,
        level: u32,
    ) -> Result<(), AbilityError> {
        self.catalog
            .abilities()
            .try_def(ability)
            .ok_or(AbilityError::UnknownAbility(ability))?;
        let system = world
            .query_one_mut::<&mut AbilitySystem>(entity)
            .map_err(|_| AbilityError::NoSuchEntity(entity))?;
        self.note_granted(ability);
        match system
            .abilities
            .granted
            .iter_mut()
            .find(|g| g.ability == ability)
        {
            Some(granted) => {
                granted.level = level;
                granted.set_direct(true);
            }
            None => system
                .abilities
                .granted
                .push(Granted::new(ability, level, true, 0)),
        }
        Ok(())
    }

    /// Revokes `ability`, ending its running instance first. An ability
    /// an active effect grants too stays until that effect ends: remove
    /// the effect to take it away.
    pub fn revoke_ability(
        &mut self,
        world: &mut World,
        entity: Entity,
        ability: AbilityId,
    ) -> Result<(), AbilityError> {
        let running = {
            let system = world
                .query_one_mut::<&mut AbilitySystem>(entity)
                .map_err(|_| AbilityError::NoSuchEntity(entity))?;
            let granted = system
                .abilities
                .granted
                .iter_mut()
                .find(|g| g.ability == ability)
                .ok_or(AbilityError::NotGranted(ability))?;
            granted.set_direct(false);
            if granted.is_held() {
                return Ok(());
            }
            system.abilities.instance_of(ability)
        };
        self.drop_grant(world, entity, ability, running);
        self.reconcile(world);
        Ok(())
    }

    /// Ends `owner`'s `running` instance of `ability`, if any, as revoked,
    /// then drops the grant, unless by then something holds it again (the
    /// teardown applied an effect that grants it, say).
    pub(super) fn drop_grant(
        &mut self,
        world: &mut World,
        owner: Entity,
        ability: AbilityId,
        running: Option<InstanceKey>,
    ) {
        if let Some(instance) = running {
            self.end_instance(world, owner, instance, EndReason::Revoked);
        }
        if let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(owner) {
            system
                .abilities
                .granted
                .retain(|g| g.ability != ability || g.is_held());
        }
    }

    // ------------------------------------------------------------ events

    /// Queues `event` for `to` at the current time; it is handled the next
    /// time the clock advances (even by zero), after everything queued
    /// before it.
    ///
    /// An event naming a tag the catalog does not know, or with a
    /// magnitude that is not finite, is dropped, whoever sent it: its
    /// handling would refuse it, and queued it would make every save
    /// refused until then.
    pub fn send_event(&mut self, to: Entity, event: GameplayEvent) {
        self.send_event_at(self.now, to, event);
    }

    /// Queues `event` for `to` at `at` (not before now); a malformed
    /// event is dropped, as by [`send_event`](Self::send_event).
    pub fn send_event_at(&mut self, at: SimTime, to: Entity, event: GameplayEvent) {
        if !event.is_well_formed(self.catalog.tags()) {
            return;
        }
        let key = self.queued_events.insert((to, event));
        self.timers.schedule(at.max(self.now), Timer::Event(key));
    }

    /// Handles `event` on `to` now: tries to activate every granted
    /// ability whose trigger it matches, then wakes the instances that
    /// were waiting for it and still are, in Unreal's order (its
    /// `HandleGameplayEvent` triggers abilities before it tells the wait
    /// tasks): an ability the event starts may cancel a waiting one
    /// before that hears it, and one the event starts does not hear the
    /// event that started it.
    // The gate is inlined into every caller: most events are outcome
    // events nobody answers (a hit nobody procs on), and those then cost
    // the caller a check, not a call that builds and returns an outcome.
    #[inline]
    pub fn handle_event(
        &mut self,
        world: &mut World,
        to: Entity,
        event: GameplayEvent,
    ) -> EventOutcome {
        if !self.may_hear(event.tag) {
            return EventOutcome::default();
        }
        self.handle_heard_event(world, to, event)
    }

    /// [`handle_event`](Self::handle_event) of an event something may
    /// answer.
    #[inline(never)]
    fn handle_heard_event(
        &mut self,
        world: &mut World,
        to: Entity,
        event: GameplayEvent,
    ) -> EventOutcome {
        let mut outcome = EventOutcome::default();
        let (waiting, triggered) = {
            // `query_one_mut`: the world is ours, so no borrow flags to keep.
            let Ok(system) = world.query_one_mut::<&AbilitySystem>(to) else {
                return outcome;
            };
            let waiting: SmallVec<[(InstanceKey, AbilityId); 2]> = system
                .abilities
                .instances
                .iter()
                .filter(|(_, i)| matches!(i.wait, Wait::Event(t) if event.tag.matches(t)))
                .map(|(k, i)| (k, i.ability()))
                .collect();
            let abilities = self.catalog.abilities();
            let owned = system.host.tags_at(self.catalog.effects(), self.now);
            let triggered: SmallVec<[AbilityId; 2]> = system
                .abilities
                .granted
                .iter()
                .filter(|g| {
                    let def = abilities.def(g.ability);
                    event.tag.matches(def.trigger) && owned.meet(&def.trigger_when)
                })
                .map(|g| g.ability)
                .collect();
            (waiting, triggered)
        };
        if waiting.is_empty() && triggered.is_empty() {
            // Nobody listens (an outcome event most fights ignore): nothing
            // happened, so there is nothing to reconcile or deliver.
            return outcome;
        }
        // A malformed event wakes nothing; the activations it would start
        // are refused, each with its reason.
        let waiting = if event.is_well_formed(self.catalog.tags()) {
            waiting
        } else {
            SmallVec::new()
        };
        // An observer that restores a snapshot while the event is handled
        // (told of what an activation did) abandons the timeline the
        // event came in: nothing more of it runs in the restored world.
        let restores = self.restores;
        for ability in triggered {
            let result = self.activate_ability(world, to, ability, event);
            outcome.activations.push((ability, result));
            if self.restores != restores {
                return outcome;
            }
        }
        for (instance, ability) in waiting {
            // A client's event wakes only what it could have activated.
            let def = self.catalog.abilities().def(ability);
            if let Err(reason) = client_may(world, self.catalog.tags(), to, def, &event) {
                self.record(TraceKind::AbilityFailed {
                    owner: to,
                    ability,
                    reason,
                });
                outcome.refused_wakes += 1;
                continue;
            }
            // Only a wait this event meets: an activation or an earlier
            // wake may have run game code that moved this instance on to
            // another wait, or ended it.
            let met = |w: Wait| matches!(w, Wait::Event(t) if event.tag.matches(t));
            if self.clear_wait(world, to, instance, met) {
                outcome.woken += 1;
                self.wake(world, to, instance, WakeReason::Event(event));
                if self.restores != restores {
                    return outcome;
                }
            }
        }
        self.reconcile(world);
        outcome
    }

    /// Could anything answer an event tagged `tag`: an ability it triggers
    /// that was ever granted to some entity, or an instance that ever
    /// waited on it? Most published outcome events (a hit nobody procs on,
    /// though the catalog has a proc) stop here, before any entity is
    /// looked up.
    #[inline]
    fn may_hear(&self, tag: Tag) -> bool {
        self.catalog
            .abilities()
            .abilities_triggered_by(tag)
            .iter()
            .any(|ability| self.ever_granted[ability.index()])
            || self.waited_events.iter().any(|waited| tag.matches(waited))
    }

    /// True when `ability` was ever granted to some entity through this
    /// context or came with a restored one: every granted ability must be
    /// (an invariant), or the events that trigger it would go unheard.
    pub(crate) fn ever_granted(&self, ability: AbilityId) -> bool {
        self.ever_granted.get(ability.index()) == Some(&true)
    }

    /// Takes in a system a snapshot restored: rebuilds what its save did
    /// not keep (`queued`: whether this context's reconcile queue holds
    /// it; see [`AbilitySystem::rebuild_derived`]), then notes what its
    /// events may answer, its instances' event waits and its granted
    /// abilities (see [`Self::may_hear`]).
    pub(crate) fn adopt_restored(&mut self, system: &mut AbilitySystem, queued: bool) {
        system.rebuild_derived(self.catalog.effects(), queued);
        for instance in system.abilities.instances.values() {
            if let Wait::Event(tag) = instance.wait {
                self.waited_events.insert(tag);
            }
        }
        for granted in &system.abilities.granted {
            self.note_granted(granted.ability);
        }
    }

    /// Notes that `ability` is granted to some entity (see
    /// [`Self::may_hear`]).
    pub(super) fn note_granted(&mut self, ability: AbilityId) {
        if let Some(ever) = self.ever_granted.get_mut(ability.index()) {
            *ever = true;
        }
    }
}

/// The one authority rule, on every path a client's event takes
/// (activation, wake-up; the weave queue is an activation): the entity
/// must be the client's and the ability `LocalPredicted`; the event's
/// instigator, if any, is that entity; a magnitude lies in the ability's
/// `client_magnitude`. Server events pass.
pub(super) fn client_may(
    world: &World,
    tags: &TagRegistry,
    owner: Entity,
    def: &AbilityDef,
    event: &GameplayEvent,
) -> Result<(), ActivationFailure> {
    let Origin::Client(client) = event.origin else {
        return Ok(());
    };
    // A tag the catalog does not know whole (a made-up id or subtree end)
    // would be kept with the instance it starts, and every save after
    // would be refused.
    if !event.tags_known(tags) {
        return Err(ActivationFailure::ClientInput(ClientField::Tag));
    }
    let owned = world.get::<&NetOwner>(owner).is_ok_and(|o| o.0 == client);
    if !owned || def.net != NetPolicy::LocalPredicted {
        return Err(ActivationFailure::Authority);
    }
    if event.instigator.is_some_and(|i| i != owner) {
        return Err(ActivationFailure::ClientInput(ClientField::Instigator));
    }
    if let Some(magnitude) = event.magnitude {
        let within = def
            .client_magnitude
            .is_some_and(|(min, max)| (min..=max).contains(&magnitude));
        if !within {
            return Err(ActivationFailure::ClientInput(ClientField::Magnitude));
        }
    }
    Ok(())
}
