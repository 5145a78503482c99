//! The ability operations of the context: granting, gameplay events,
//! activation, commit, waits, ending, loose tags and despawning.

use std::fmt;
use std::sync::Arc;

use hecs::{Entity, World};
use smallvec::SmallVec;

use super::lent::Lent;
use super::{Gas, Timer};
use crate::abilities::{
    AbilityBehaviour, AbilityDef, AbilityId, AbilitySystem, Activation, ActivationFailure,
    Behaviour, ClientField, EndReason, GameplayEvent, Granted, Instance, InstanceKey, NetOwner,
    NetPolicy, Origin, Recipient, TargetedBy, Wait, WakeReason,
};
use crate::attributes::ModOp;
use crate::diagnostics::nearest;
use crate::effects::{Calculated, EffectSpec, Executing, Magnitude, TagLog};
use crate::tags::{NotHeld, Tag, TagSet};
use crate::time::{SimDuration, SimTime};
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
        if let Some(instance) = running {
            self.end_ability(world, entity, instance, EndReason::Revoked);
        }
        if let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(entity) {
            system.abilities.granted.retain(|g| g.ability != ability);
        }
        self.reconcile(world);
        Ok(())
    }

    // ------------------------------------------------------------ events

    /// Queues `event` for `to` at the current time; it is handled the next
    /// time the clock advances (even by zero), after everything queued
    /// before it.
    pub fn send_event(&mut self, to: Entity, event: GameplayEvent) {
        let key = self.queued_events.insert((to, event));
        self.timers.schedule(self.now, Timer::Event(key));
    }

    /// Queues `event` for `to` at `at` (not before now).
    pub fn send_event_at(&mut self, at: SimTime, to: Entity, event: GameplayEvent) {
        let key = self.queued_events.insert((to, event));
        self.timers.schedule(at.max(self.now), Timer::Event(key));
    }

    /// Handles `event` on `to` now: wakes instances waiting for it, then
    /// tries to activate every granted ability whose trigger it matches.
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
                .map(|(k, i)| (k, i.ability))
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
        for (instance, ability) in waiting {
            // A client's event wakes only what it could have activated.
            let def = self.catalog.abilities().def(ability);
            if let Err(reason) = client_may(world, to, def, &event) {
                self.record(TraceKind::AbilityFailed {
                    owner: to,
                    ability,
                    reason,
                });
                outcome.refused_wakes += 1;
                continue;
            }
            if self.clear_wait(world, to, instance, |w| matches!(w, Wait::Event(_))) {
                outcome.woken += 1;
                self.wake(world, to, instance, WakeReason::Event(event));
            }
        }
        for ability in triggered {
            let result = self.activate_ability(world, to, ability, event);
            outcome.activations.push((ability, result));
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

    // ------------------------------------------------------------ activation

    /// Tries to activate `ability` on `owner` for `event`, through every
    /// check an event-triggered activation runs (see the module docs of
    /// the ability layer for their order).
    pub fn activate_ability(
        &mut self,
        world: &mut World,
        owner: Entity,
        ability: AbilityId,
        event: GameplayEvent,
    ) -> Result<InstanceKey, ActivationFailure> {
        let result = self.try_activate(world, owner, ability, event);
        if let Err(reason) = result {
            self.trace.record(
                self.now,
                TraceKind::AbilityFailed {
                    owner,
                    ability,
                    reason,
                },
            );
        }
        self.reconcile(world);
        result
    }

    /// Would `ability` activate on `owner` now, for `event` (the event you
    /// would send; `None`: a server event with only the ability's trigger)?
    /// Runs every check an activation runs, in the same order, and changes
    /// nothing: no trace record, no cost, no cooldown. For AI and UI to ask
    /// before acting.
    ///
    /// ```
    /// # use gaskit::prelude::*;
    /// let mut builder = CatalogBuilder::new();
    /// builder.tags().add_source("game.tags", "Ability.Rest\nStatus.Stunned\n");
    /// builder.add_source("game.ron", r#"(abilities: [(
    ///     name: "GA_Rest", trigger: "Ability.Rest",
    ///     activation_blocked: (any: ["Status.Stunned"]),
    ///     behaviour: ApplyEffects([]),
    /// )])"#);
    /// let mut gas = Gas::new(builder.build().unwrap());
    /// let mut world = hecs::World::new();
    /// let hero = world.spawn((gas.new_ability_system(),));
    /// let rest = gas.catalog().abilities().get("GA_Rest").unwrap();
    /// gas.grant_ability(&mut world, hero, rest, 1).unwrap();
    /// assert_eq!(gas.can_activate(&world, hero, rest, None), Ok(()));
    ///
    /// let stunned = gas.catalog().tags().get("Status.Stunned").unwrap();
    /// gas.add_loose_tag(&mut world, hero, stunned, false);
    /// let refused = gas.can_activate(&world, hero, rest, None).unwrap_err();
    /// assert_eq!(refused, ActivationFailure::BlockedByTags { tag: Some(stunned) });
    /// assert_eq!(refused.detail(gas.catalog()).as_deref(), Some("Status.Stunned"));
    /// ```
    pub fn can_activate(
        &self,
        world: &World,
        owner: Entity,
        ability: AbilityId,
        event: Option<&GameplayEvent>,
    ) -> Result<(), ActivationFailure> {
        let def = self
            .catalog
            .abilities()
            .try_def(ability)
            .ok_or(ActivationFailure::NoBehaviour)?;
        let default = GameplayEvent::new(def.trigger);
        self.check_activation(world, owner, ability, def, event.unwrap_or(&default))
            .map(|_| ())
    }

    fn try_activate(
        &mut self,
        world: &mut World,
        owner: Entity,
        ability: AbilityId,
        event: GameplayEvent,
    ) -> Result<InstanceKey, ActivationFailure> {
        let catalog = self.catalog.clone();
        let def = catalog
            .abilities()
            .try_def(ability)
            .ok_or(ActivationFailure::NoBehaviour)?;
        let (level, running) = self.check_activation(world, owner, ability, def, &event)?;
        if let Some(running) = running {
            self.end_ability(world, owner, running, EndReason::Retriggered);
        }
        Ok(self.start(world, owner, ability, def, level, event))
    }

    /// Runs every read-only check; returns the granted level and the
    /// instance a retrigger must end.
    fn check_activation(
        &self,
        world: &World,
        owner: Entity,
        ability: AbilityId,
        def: &AbilityDef,
        event: &GameplayEvent,
    ) -> Result<(u32, Option<InstanceKey>), ActivationFailure> {
        let system = world
            .get::<&AbilitySystem>(owner)
            .map_err(|_| ActivationFailure::TargetRequirements)?;
        let granted = system
            .abilities
            .granted(ability)
            .ok_or(ActivationFailure::NoBehaviour)?;
        // 1. Authority.
        client_may(world, owner, def, event)?;
        // 2. Already active.
        let running = system.abilities.instance_of(ability);
        if running.is_some() && !def.retrigger {
            return Err(ActivationFailure::AlreadyActive);
        }
        // 3. Blocked. (The owned tags are copied only for a requirement
        // that states something, while an effect that ended lazily holds
        // some of them.)
        let defs = self.catalog.effects();
        let owned = system.host.tags_at(defs, self.now);
        if let Some(blocked) = def
            .activation_blocked
            .as_ref()
            .filter(|q| !q.is_empty() && owned.meet(q))
        {
            return Err(ActivationFailure::BlockedByTags {
                tag: first_held(blocked, owned.set()),
            });
        }
        if system.abilities.blocked.blocks_any(&def.ability_tags) {
            let abilities = self.catalog.abilities();
            let by = system.abilities.instances.values().find_map(|i| {
                let blocks = &abilities.def(i.ability).block_abilities_with_tags;
                blocks.has_any(&def.ability_tags).then_some(i.ability)
            });
            return Err(ActivationFailure::BlockedByAbility(by));
        }
        // 4. Required.
        if !owned.meet(&def.activation_required) {
            return Err(ActivationFailure::MissingTags {
                tag: first_missing(&def.activation_required, owned.set()),
            });
        }
        // 5. Source and target (read in place: no copy of their tags
        // while nothing of theirs has ended unseen).
        let matches_on = |entity: Option<Entity>, query: &crate::tags::TagQuery| {
            entity.is_some_and(|e| {
                world
                    .get::<&AbilitySystem>(e)
                    .is_ok_and(|s| s.host.tags_at(defs, self.now).meet(query))
            })
        };
        if !def.source_required.is_empty() && !matches_on(event.instigator, &def.source_required) {
            return Err(ActivationFailure::SourceRequirements);
        }
        if let Some(required) = &def.target_required {
            if !matches_on(event.target, required) {
                return Err(ActivationFailure::TargetRequirements);
            }
        }
        // 6. Cooldown.
        if let Some(cooldown) = def.cooldown {
            let gates = &self.catalog.effects().def(cooldown.effect).granted_tags;
            if let Some(tag) = gates.iter().find(|&t| owned.has(t)) {
                let remaining = system
                    .host
                    .time_remaining(self.catalog.effects(), self.now, tag)
                    .map_or(SimDuration::ZERO, |(remaining, _)| remaining);
                return Err(ActivationFailure::Cooldown { tag, remaining });
            }
        }
        // 7. Cost.
        if let Some(cost) = def.cost {
            if let Some(attribute) = self.unaffordable(&system, cost, granted.level) {
                return Err(ActivationFailure::Cost { attribute });
            }
        }
        // 8. The behaviour's own validation.
        match &def.behaviour {
            Behaviour::ApplyEffects(_) => {
                drop(system);
                self.check_apply_effects(world, owner, def, granted.level, event)?;
            }
            Behaviour::Registered(id) => {
                let behaviour = self.behaviours[id.index()]
                    .as_ref()
                    .ok_or(ActivationFailure::NoBehaviour)?
                    .get();
                drop(system);
                let activation = Activation {
                    owner,
                    ability,
                    def,
                    level: granted.level,
                    event,
                };
                behaviour
                    .can_activate(world, self, &activation)
                    .map_err(ActivationFailure::Refused)?;
            }
        }
        Ok((granted.level, running))
    }

    /// The built-in `ApplyEffects` behaviour's validation: every recipient
    /// exists, and every spec it would apply (cost and cooldown included)
    /// evaluates, so nothing that only run time can know fails after commit.
    fn check_apply_effects(
        &self,
        world: &World,
        owner: Entity,
        def: &AbilityDef,
        level: u32,
        event: &GameplayEvent,
    ) -> Result<(), ActivationFailure> {
        let commit = commit_specs(def, owner, level, None);
        let applied = apply_effects_specs(def, owner, level, event)?;
        let specs = commit
            .iter()
            .map(|s| (owner, s))
            .chain(applied.iter().map(|(r, s)| (*r, s)));
        self.check_specs(world, specs)
    }

    /// Evaluates each `(recipient, spec)` as its application would, changing
    /// nothing: the first that cannot apply refuses the activation.
    fn check_specs<'s>(
        &self,
        world: &World,
        specs: impl Iterator<Item = (Entity, &'s EffectSpec)>,
    ) -> Result<(), ActivationFailure> {
        let defs = self.defs();
        let effects = self.catalog.effects();
        // Calculations roll on a copy of the stream: the check draws the
        // numbers the application will, and moves nothing.
        let mut rng = self.rng.clone();
        for (recipient, spec) in specs {
            let system = world
                .get::<&AbilitySystem>(recipient)
                .map_err(|_| ActivationFailure::TargetRequirements)?;
            let cannot = || ActivationFailure::CannotApply(spec.effect);
            let effect = effects.try_def(spec.effect).ok_or_else(cannot)?;
            let captures =
                super::effects::source_captures(world, defs, effect, spec).map_err(|_| cannot())?;
            system
                .host
                .evaluate_spec(defs, effect, spec, &captures)
                .map_err(|_| cannot())?;
            let executes_now =
                effect.is_instant() || effect.period.is_some_and(|p| p.execute_on_application);
            if executes_now && !effect.executions.is_empty() {
                let mut calculated = Calculated::default();
                system
                    .host
                    .run_calculations(
                        defs,
                        &mut rng,
                        recipient,
                        Executing {
                            def: effect,
                            spec,
                            stacks: 1,
                            captures: &captures,
                            target_now: true,
                        },
                        &mut calculated,
                    )
                    .map_err(|_| cannot())?;
            }
        }
        Ok(())
    }

    /// The attribute a cost cannot be paid from, if any: a flat cost that
    /// would drive it below its lower bound (or below zero without one).
    fn unaffordable(
        &self,
        system: &AbilitySystem,
        cost: crate::effects::EffectId,
        level: u32,
    ) -> Option<crate::attributes::AttributeId> {
        let schema = self.catalog.attributes();
        self.catalog
            .effects()
            .def(cost)
            .modifiers
            .iter()
            .find_map(|m| {
                let amount = match &m.magnitude {
                    Magnitude::Constant(v) => *v,
                    Magnitude::Scaled(table) => table[(level.max(1) as usize).min(table.len()) - 1],
                    _ => return None,
                };
                if m.op != ModOp::Flat || amount >= 0.0 {
                    return None;
                }
                let floor = match schema.def(m.attribute).min {
                    Some(crate::attributes::Bound::Value(v)) => v,
                    _ => 0.0,
                };
                (system.current(m.attribute) + amount < floor).then_some(m.attribute)
            })
    }

    fn start(
        &mut self,
        world: &mut World,
        owner: Entity,
        ability: AbilityId,
        def: &AbilityDef,
        level: u32,
        event: GameplayEvent,
    ) -> InstanceKey {
        let (instance, to_cancel) = {
            let system = world
                .query_one_mut::<&mut AbilitySystem>(owner)
                .expect("checked by check_activation");
            self.catch_up(owner, system);
            let instance = system.abilities.instances.insert(Instance {
                ability,
                level,
                event: event.into(),
                wait: Wait::Nothing,
                wait_timer: None,
                state: None,
            });
            let mut log = self.tag_log(owner);
            system.host.grant_tags(&def.activation_owned_tags, &mut log);
            system
                .abilities
                .blocked
                .add_all(&def.block_abilities_with_tags);
            let to_cancel: SmallVec<[InstanceKey; 2]> = if def.cancel_abilities_with_tags.is_empty()
            {
                SmallVec::new()
            } else {
                let abilities = self.catalog.abilities();
                system
                    .abilities
                    .instances
                    .iter()
                    .filter(|&(k, i)| {
                        k != instance
                            && abilities
                                .def(i.ability)
                                .ability_tags
                                .has_any(&def.cancel_abilities_with_tags)
                    })
                    .map(|(k, _)| k)
                    .collect()
            };
            self.note_touched(owner, system);
            (instance, to_cancel)
        };
        if let Some(target) = event.target.filter(|&t| t != owner) {
            note_targeting(world, target, (owner, instance));
        }
        self.trace.record(
            self.now,
            TraceKind::AbilityActivated {
                owner,
                ability,
                target: event.target,
            },
        );
        for other in to_cancel {
            self.end_ability(world, owner, other, EndReason::CancelledByAbility(ability));
        }
        match &def.behaviour {
            Behaviour::ApplyEffects(_) => {
                self.run_apply_effects(world, owner, ability, instance, level, event)
            }
            Behaviour::Registered(_) => {
                self.run_behaviour(world, owner, instance, (ability, event, level), |b, cx| {
                    b.activate(cx)
                });
            }
        }
        instance
    }

    /// The built-in `ApplyEffects` behaviour: commit, apply, end. Every spec
    /// was evaluated by the activation checks, so nothing fails after the
    /// commit.
    fn run_apply_effects(
        &mut self,
        world: &mut World,
        owner: Entity,
        ability: AbilityId,
        instance: InstanceKey,
        level: u32,
        event: GameplayEvent,
    ) {
        if let Err(reason) = self.commit_ability(world, owner, ability, level, None) {
            let tag = reason.tag(self.catalog.tags());
            self.end_ability(world, owner, instance, EndReason::Behaviour(tag));
            return;
        }
        let catalog = self.catalog.clone();
        let def = catalog.abilities().def(ability);
        // The checks ran these very specs; a recipient gone since is skipped.
        for (recipient, spec) in apply_effects_specs(def, owner, level, &event).unwrap_or_default()
        {
            self.apply_effect_recorded(world, recipient, spec);
        }
        self.end_ability(world, owner, instance, EndReason::Completed);
    }

    /// Applies an effect and records a failure in the trace instead of
    /// returning it (for behaviours that cannot do anything about it).
    pub(crate) fn apply_effect_recorded(
        &mut self,
        world: &mut World,
        target: Entity,
        spec: EffectSpec,
    ) {
        self.apply_effect_unreturned(world, target, spec);
        self.reconcile(world);
    }

    /// Pays `ability`'s cost and applies its cooldown; `seconds` overrides
    /// the authored cooldown duration.
    pub(crate) fn commit_ability(
        &mut self,
        world: &mut World,
        owner: Entity,
        ability: AbilityId,
        level: u32,
        seconds: Option<f64>,
    ) -> Result<(), ActivationFailure> {
        let catalog = self.catalog.clone();
        let def = catalog.abilities().def(ability);
        if let Some(cost) = def.cost {
            let short = match world.get::<&AbilitySystem>(owner) {
                Ok(system) => self.unaffordable(&system, cost, level),
                Err(_) => return Err(ActivationFailure::TargetRequirements),
            };
            if let Some(attribute) = short {
                return Err(ActivationFailure::Cost { attribute });
            }
        }
        let specs = commit_specs(def, owner, level, seconds);
        // All or nothing: a cooldown that cannot apply spends no cost.
        self.check_specs(world, specs.iter().map(|s| (owner, s)))?;
        for spec in specs {
            let effect = spec.effect;
            // Checked just above: an application cannot fail here.
            self.apply_effect(world, owner, spec)
                .map_err(|_| ActivationFailure::CannotApply(effect))?;
        }
        Ok(())
    }

    // ------------------------------------------------------------ ending

    /// Ends an active instance: its wait is dropped, its owned and block
    /// tags released, then its behaviour's teardown runs. Returns `false`
    /// (and does nothing) if the instance already ended, so teardown runs
    /// exactly once whatever the path.
    pub fn end_ability(
        &mut self,
        world: &mut World,
        owner: Entity,
        instance: InstanceKey,
        reason: EndReason,
    ) -> bool {
        let ended = {
            let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(owner) else {
                return false;
            };
            let Some(ended) = system.abilities.instances.remove(instance) else {
                return false;
            };
            self.catch_up(owner, system);
            if let Some(timer) = ended.wait_timer {
                self.timers.cancel(timer);
            }
            let def = self.catalog.abilities().def(ended.ability);
            // Both were granted when the instance started.
            let mut log = TagLog {
                trace: &mut self.trace,
                now: self.now,
                entity: owner,
            };
            let _ = system
                .host
                .release_tags(&def.activation_owned_tags, &mut log);
            let _ = system
                .abilities
                .blocked
                .remove_all(&def.block_abilities_with_tags);
            self.note_touched(owner, system);
            ended
        };
        if let Some(target) = ended.event.target().filter(|&t| t != owner) {
            if let Ok(target_system) = world.query_one_mut::<&mut AbilitySystem>(target) {
                target_system
                    .abilities
                    .targeted_by
                    .retain(|&mut (o, k)| (o, k) != (owner, instance));
            }
        }
        self.trace.record(
            self.now,
            TraceKind::AbilityEnded {
                owner,
                ability: ended.ability,
                reason,
            },
        );
        let what = (ended.ability, ended.event.get(), ended.level);
        self.run_behaviour_with(world, owner, instance, what, ended.state, |b, cx| {
            b.end(cx, reason)
        });
        true
    }

    /// Cancels the owner's active abilities whose ability tags match any of
    /// `with` and none of `without`; returns how many ended.
    pub fn cancel_abilities(
        &mut self,
        world: &mut World,
        owner: Entity,
        with: &TagSet,
        without: &TagSet,
    ) -> usize {
        let doomed: SmallVec<[InstanceKey; 2]> = {
            let Ok(system) = world.get::<&AbilitySystem>(owner) else {
                return 0;
            };
            let abilities = self.catalog.abilities();
            system
                .abilities
                .instances
                .iter()
                .filter(|(_, i)| {
                    let tags = &abilities.def(i.ability).ability_tags;
                    tags.has_any(with) && !tags.has_any(without)
                })
                .map(|(k, _)| k)
                .collect()
        };
        let ended = doomed
            .into_iter()
            .filter(|&k| self.end_ability(world, owner, k, EndReason::Cancelled))
            .count();
        self.reconcile(world);
        ended
    }

    /// Despawns `entity` after ending its instances (`OwnerDespawned`) and
    /// the instances of others that target it (`TargetLost`), so every
    /// teardown runs, and cancelling its effects' timers. With a rollback
    /// window its handle is kept ([`Reserved`](crate::Reserved)) until the
    /// window has passed. Returns `false` if the entity did not exist.
    pub fn despawn(&mut self, world: &mut World, entity: Entity) -> bool {
        let (own, targeting) = match world.get::<&AbilitySystem>(entity) {
            Ok(system) => (
                system
                    .abilities
                    .instances
                    .keys()
                    .collect::<SmallVec<[InstanceKey; 2]>>(),
                system.abilities.targeted_by.clone(),
            ),
            Err(_) => (SmallVec::new(), SmallVec::new()),
        };
        for instance in own {
            self.end_ability(world, entity, instance, EndReason::OwnerDespawned);
        }
        for (other, instance) in targeting {
            self.end_ability(world, other, instance, EndReason::TargetLost);
        }
        // Its effects end with it: no expiry or period may fire afterwards.
        if let Ok(system) = world.query_one_mut::<&AbilitySystem>(entity) {
            for timer in system.host.timers() {
                self.timers.cancel(timer);
            }
        }
        self.live_holders.retain(|&holder| holder != entity);
        let despawned = self.retire(world, entity);
        self.reconcile(world);
        despawned
    }

    // ------------------------------------------------------------ loose tags

    /// Where `entity`'s tag changes are told.
    fn tag_log(&mut self, entity: Entity) -> TagLog<'_> {
        TagLog {
            trace: &mut self.trace,
            now: self.now,
            entity,
        }
    }

    /// Adds one reference to a loose tag; `saved` marks it as part of saved
    /// state. Returns `true` when the tag became present.
    pub fn add_loose_tag(
        &mut self,
        world: &mut World,
        entity: Entity,
        tag: Tag,
        saved: bool,
    ) -> bool {
        let appeared = {
            let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(entity) else {
                return false;
            };
            system.abilities.loose.add(tag, saved);
            self.catch_up(entity, system);
            let before = system.host.tags.tags().has_exact(tag);
            system.host.grant_tag(tag, &mut self.tag_log(entity));
            self.note_touched(entity, system);
            !before
        };
        self.reconcile(world);
        appeared
    }

    /// Releases one reference to a loose tag; `Ok(true)` when it vanished.
    pub fn remove_loose_tag(
        &mut self,
        world: &mut World,
        entity: Entity,
        tag: Tag,
    ) -> Result<bool, NotHeld> {
        let vanished = {
            let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(entity) else {
                return Err(NotHeld(tag));
            };
            self.catch_up(entity, system);
            system.abilities.loose.remove(tag)?;
            system.host.release_tag(tag, &mut self.tag_log(entity))?;
            self.note_touched(entity, system);
            !system.host.tags.tags().has_exact(tag)
        };
        self.reconcile(world);
        Ok(vanished)
    }
}

/// The specs a commit applies to the owner: the cost, then the cooldown
/// (its SetByCaller duration from `seconds`, else the authored seconds).
fn commit_specs(
    def: &AbilityDef,
    owner: Entity,
    level: u32,
    seconds: Option<f64>,
) -> SmallVec<[EffectSpec; 2]> {
    let mut specs = SmallVec::new();
    if let Some(cost) = def.cost {
        specs.push(EffectSpec::new(cost).with_level(level).with_source(owner));
    }
    if let Some(cooldown) = def.cooldown {
        let mut spec = EffectSpec::new(cooldown.effect)
            .with_level(level)
            .with_source(owner);
        if let (Some(key), Some(seconds)) = (cooldown.duration_key, seconds.or(cooldown.seconds)) {
            spec.set(key, seconds);
        }
        specs.push(spec);
    }
    specs
}

/// What an `ApplyEffects` ability applies, to whom: one spec per entry, with
/// its authored SetByCaller values and the event's magnitude. A recipient
/// the event does not name refuses the activation.
fn apply_effects_specs(
    def: &AbilityDef,
    owner: Entity,
    level: u32,
    event: &GameplayEvent,
) -> Result<SmallVec<[(Entity, EffectSpec); 2]>, ActivationFailure> {
    let Behaviour::ApplyEffects(list) = &def.behaviour else {
        return Ok(SmallVec::new());
    };
    list.iter()
        .map(|application| {
            let recipient = match application.to {
                Recipient::Owner => Some(owner),
                Recipient::Target => event.target,
                Recipient::Instigator => event.instigator,
            }
            .ok_or(ActivationFailure::TargetRequirements)?;
            let mut spec = EffectSpec::new(application.effect)
                .with_level(level)
                .with_source(owner);
            for &(key, value) in &application.set_by_caller {
                spec.set(key, value);
            }
            if let (Some(key), Some(value)) = (application.event_magnitude, event.magnitude) {
                spec.set(key, value);
            }
            Ok((recipient, spec))
        })
        .collect()
}

/// The first tag `query` names that `owned` holds (parent-aware): what
/// made a blocking query match.
fn first_held(query: &crate::tags::TagQuery, owned: &TagSet) -> Option<Tag> {
    let mut named = TagSet::new();
    query.collect_tags(&mut named);
    let found = named.iter().find(|&t| owned.has(t));
    found.map(|t| owned.iter().find(|o| o.matches(t)).unwrap_or(t))
}

/// The first tag `query` names that `owned` lacks: what a requirement missed.
fn first_missing(query: &crate::tags::TagQuery, owned: &TagSet) -> Option<Tag> {
    let mut named = TagSet::new();
    query.collect_tags(&mut named);
    let missing = named.iter().find(|&t| !owned.has(t));
    missing
}

/// The one authority rule, on every path a client's event takes
/// (activation, wake-up; the weave queue is an activation): the entity
/// must be the client's and the ability `LocalPredicted`; the event's
/// instigator, if any, is that entity; a magnitude lies in the ability's
/// `client_magnitude`. Server events pass.
fn client_may(
    world: &World,
    owner: Entity,
    def: &AbilityDef,
    event: &GameplayEvent,
) -> Result<(), ActivationFailure> {
    let Origin::Client(client) = event.origin else {
        return Ok(());
    };
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

/// Records on `target` that an instance targets it. Entries whose owner
/// was despawned behind the context's back (a raw `world.despawn`) are
/// swept out each time the list doubles, so it never holds more than
/// twice the live entries.
fn note_targeting(world: &mut World, target: Entity, entry: (Entity, InstanceKey)) {
    let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(target) else {
        return;
    };
    let list = &mut system.abilities.targeted_by;
    if !(list.len() >= 8 && list.len().is_power_of_two()) {
        list.push(entry);
        return;
    }
    let listed = list.clone();
    let live = |&(owner, instance): &(Entity, InstanceKey)| {
        world
            .get::<&AbilitySystem>(owner)
            .is_ok_and(|s| s.abilities.instances.contains_key(instance))
    };
    let mut swept: TargetedBy = listed.into_iter().filter(live).collect();
    swept.push(entry);
    if let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(target) {
        system.abilities.targeted_by = swept;
    }
}
