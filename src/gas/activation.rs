//! Activating an ability: every check an activation runs, the start of
//! an instance, what an `ApplyEffects` ability applies, and the commit
//! (cost and cooldown).

use hecs::{Entity, World};
use smallvec::SmallVec;

use super::abilities::client_may;
use super::Gas;
use crate::abilities::{
    AbilityDef, AbilityId, AbilitySystem, Activation, ActivationFailure, Behaviour, EndReason,
    GameplayEvent, Instance, InstanceKey, Origin, Recipient, TargetedBy,
};
use crate::attributes::ModOp;
use crate::effects::{Applied, Calculated, EffectSpec, Executing, TargetRead};
use crate::tags::{Tag, TagSet};
use crate::time::SimDuration;
use crate::trace::TraceKind;

impl Gas {
    /// Tries to activate `ability` on `owner` for `event`, through every
    /// check an event-triggered activation runs, in this order, stopping at
    /// the first failure:
    ///
    /// 1. authority: a client may only trigger `LocalPredicted` abilities on
    ///    entities it owns ([`NetOwner`](crate::NetOwner)); `ServerOnly` needs the server;
    /// 2. already active (unless the ability retriggers: the checks below
    ///    run first with the instance still running, as Unreal's do, then
    ///    it is ended, and every check runs again on the world its
    ///    teardown left);
    /// 3. blocked: the owner matches `activation_blocked`, or an active ability
    ///    blocks one of this ability's tags (or a parent of one);
    /// 4. required: the owner matches `activation_required`;
    /// 5. source and target requirements;
    /// 6. cooldown: the owner holds a tag its cooldown effect grants;
    /// 7. cost: the owner can afford the cost effect (its flat amounts,
    ///    of any kind of magnitude, summed per attribute), and neither the
    ///    cost nor the cooldown
    ///    would be refused on the owner (requirements, life rule, immunity);
    /// 8. the behaviour's own validation.
    ///
    /// A refused activation changes nothing: it burns no cooldown and pays
    /// no cost. Called directly, it activates `ability` whatever its
    /// `trigger_when` (which routes an event among the abilities it
    /// triggers, before any of these checks: [`can_activate`] asks it, as
    /// sending the event would).
    ///
    /// [`can_activate`]: Self::can_activate
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
    /// before sending the event. First, as sending it would, it asks whether
    /// the event reaches the ability at all: an owner its `trigger_when`
    /// does not match routes the event elsewhere (a cast while engaged
    /// queues a weave), refused as [`ActivationFailure::BlockedByTags`] or
    /// [`ActivationFailure::MissingTags`] with the tag that decides it.
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
        if !def.trigger_when.is_empty() {
            if let Ok(system) = world.get::<&AbilitySystem>(owner) {
                let owned = system.host.tags_at(self.catalog.effects(), self.now);
                if !owned.meet(&def.trigger_when) {
                    let query = &def.trigger_when;
                    return Err(match query.first_missing(owned.set()) {
                        Some(tag) => ActivationFailure::MissingTags { tag: Some(tag) },
                        // The owned tag itself (`Action.Modal.Bank` for
                        // a `none` of `Action.Modal`), as a block names it.
                        None => ActivationFailure::BlockedByTags {
                            tag: query
                                .first_forbidden(owned.set())
                                .map(|t| held_leaf(owned.set(), t)),
                        },
                    });
                }
            }
        }
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
        let (mut level, running) = self.check_activation(world, owner, ability, def, &event)?;
        if let Some(running) = running {
            let restores = self.restores;
            self.end_instance(world, owner, running, EndReason::Retriggered);
            // An observer told of the teardown restored a snapshot: the
            // retrigger belonged to the timeline it abandoned.
            if self.restores != restores {
                return Err(ActivationFailure::AlreadyActive);
            }
            // The teardown may have changed what the checks read (the owner
            // despawned, a cooldown applied, the grant revoked): they run
            // again on the world as it now is.
            let (now_level, still_running) =
                self.check_activation(world, owner, ability, def, &event)?;
            if still_running.is_some() {
                return Err(ActivationFailure::AlreadyActive);
            }
            level = now_level;
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
        // An entity being despawned is as good as gone: what started on it
        // or aimed at it now would outlive it.
        let departing = |entity: Entity| self.departing.contains(&entity);
        if !self.departing.is_empty() && (departing(owner) || event.target.is_some_and(departing)) {
            return Err(ActivationFailure::TargetRequirements);
        }
        let system = world
            .get::<&AbilitySystem>(owner)
            .map_err(|_| ActivationFailure::TargetRequirements)?;
        // A grant being let go activates nothing: the instance would
        // outlive it.
        let granted = system
            .abilities
            .held(ability)
            .ok_or(ActivationFailure::NoBehaviour)?;
        // 1. Authority, and an event the catalog can hold: an instance
        // keeps the event it started on, and a save of one naming what the
        // catalog lacks could never be restored.
        client_may(world, self.catalog.tags(), owner, def, event)?;
        if !event.is_well_formed(self.catalog.tags()) {
            return Err(ActivationFailure::MalformedEvent);
        }
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
        if system
            .abilities
            .loose
            .blocked()
            .blocks_any(&def.ability_tags)
        {
            let abilities = self.catalog.abilities();
            let by = system.abilities.instances.values().find_map(|i| {
                let blocks = &abilities.def(i.ability()).block_abilities_with_tags;
                def.ability_tags.has_any(blocks).then_some(i.ability())
            });
            return Err(ActivationFailure::BlockedByAbility(by));
        }
        // 4. Required.
        if !owned.meet(&def.activation_required) {
            return Err(ActivationFailure::MissingTags {
                tag: def.activation_required.first_missing(owned.set()),
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
        // A source that holds no tags (none named, or one without an
        // ability system) is judged as holding none: a requirement that
        // only forbids tags (`none: ["Status.Silenced"]`) passes, one
        // that needs a tag fails. (Unreal skips the source's requirements
        // when there are no source tags; forbidding only what is held is
        // the part of that which a requirement can mean.)
        // A client's event comes from the owner, whether or not it says
        // so (an instigator it names must be the owner): naming none must
        // not pass for a source holding no tags.
        let source = match event.origin {
            Origin::Client(_) => Some(event.instigator.unwrap_or(owner)),
            Origin::Server => event.instigator,
        };
        if !def.source_required.is_empty() {
            let required = &def.source_required;
            let met = match source.and_then(|e| world.get::<&AbilitySystem>(e).ok()) {
                Some(system) => system.host.tags_at(defs, self.now).meet(required),
                None => required.matches(&TagSet::new()),
            };
            if !met {
                return Err(ActivationFailure::SourceRequirements);
            }
        }
        if let Some(required) = &def.target_required {
            if !matches_on(event.target, required) {
                return Err(ActivationFailure::TargetRequirements);
            }
        }
        // 6. Cooldown; 7. cost, and a commit the owner would refuse.
        self.commit_check(world, &system, owner, def, |t| owned.has(t), granted.level)?;
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
                .evaluate_spec(defs, effect, spec, &captures, TargetRead::PLAIN)
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

    /// What a commit of `def` at `level` needs of its owner, which `holds`
    /// the tags it holds: no cooldown running, the cost affordable, and
    /// neither the cost nor the cooldown refused. Asked by an activation's
    /// checks and again by the commit itself.
    fn commit_check(
        &self,
        world: &World,
        system: &AbilitySystem,
        owner: Entity,
        def: &AbilityDef,
        holds: impl Fn(Tag) -> bool,
        level: u32,
    ) -> Result<(), ActivationFailure> {
        if let Some((tag, remaining)) = self.cooling_down(system, holds, def) {
            return Err(ActivationFailure::Cooldown { tag, remaining });
        }
        if let Some(cost) = def.cost {
            if let Some(attribute) = self.unaffordable(world, system, owner, cost, level) {
                return Err(ActivationFailure::Cost { attribute });
            }
        }
        match self.commit_refused(system, def) {
            Some(effect) => Err(ActivationFailure::CannotApply(effect)),
            None => Ok(()),
        }
    }

    /// The cooldown tag of `ability` that `system` holds now, with the
    /// time it has left, whatever else activating it would meet.
    pub(crate) fn cooldown_running(
        &self,
        system: &AbilitySystem,
        ability: AbilityId,
    ) -> Option<(Tag, SimDuration)> {
        let def = self.catalog.abilities().try_def(ability)?;
        let owned = system.host.tags_at(self.catalog.effects(), self.now);
        self.cooling_down(system, |t| owned.has(t), def)
    }

    /// The cooldown tag of `def` an owner that `holds` the tags it holds
    /// holds, with the time it has left: what refuses it as cooling down.
    fn cooling_down(
        &self,
        system: &AbilitySystem,
        holds: impl Fn(Tag) -> bool,
        def: &AbilityDef,
    ) -> Option<(Tag, SimDuration)> {
        let cooldown = def.cooldown?;
        let gates = &self.catalog.effects().def(cooldown.effect).granted_tags;
        let tag = gates.iter().find(|&t| holds(t))?;
        let remaining = system
            .host
            .time_remaining(self.catalog.effects(), self.now, tag)
            .map_or(SimDuration::ZERO, |(remaining, _)| remaining);
        Some((tag, remaining))
    }

    /// The attribute a cost cannot be paid from, if any: the cost's flat
    /// amounts on it, summed, would drive it below its lower bound (a
    /// constant, or another attribute's current value), or below zero
    /// without one. Summed, because the cost is paid whole: two modifiers
    /// each affordable alone may not be together. Every kind of magnitude
    /// counts, evaluated as the payment would be (a tenth of `MaxMana`, a
    /// custom one); a cost that cannot be evaluated is left to the check
    /// of its application, which refuses it.
    fn unaffordable(
        &self,
        world: &World,
        system: &AbilitySystem,
        owner: Entity,
        cost: crate::effects::EffectId,
        level: u32,
    ) -> Option<crate::attributes::AttributeId> {
        let schema = self.catalog.attributes();
        let defs = self.defs();
        let effect = self.catalog.effects().def(cost);
        let spec = cost_spec(cost, owner, level);
        let captures = super::effects::source_captures(world, defs, effect, &spec).ok()?;
        let (amounts, _) = system
            .host
            .evaluate_spec(defs, effect, &spec, &captures, TargetRead::PLAIN)
            .ok()?;
        // Each attribute's net flat amount, in the order the cost names it.
        let mut totals: SmallVec<[(crate::attributes::AttributeId, f64); 2]> = SmallVec::new();
        for (m, &amount) in effect.modifiers.iter().zip(&amounts) {
            if m.op != ModOp::Flat {
                continue;
            }
            match totals.iter_mut().find(|(a, _)| *a == m.attribute) {
                Some((_, total)) => *total += amount,
                None => totals.push((m.attribute, amount)),
            }
        }
        totals.into_iter().find_map(|(attribute, total)| {
            // Read as every recompute reads it; without a lower bound, a
            // cost may still not take the value below zero.
            let floor = match schema.def(attribute).min {
                Some(_) => system.attributes().bounds(schema, attribute).0,
                None => 0.0,
            };
            (total < 0.0 && system.current(attribute) + total < floor).then_some(attribute)
        })
    }

    /// The commit effect (the cooldown, then the cost) that one of the
    /// owner's refusal rules would block: application requirements, the
    /// life rule or an immunity, the cost's judged with the cooldown's
    /// tags already held, as it will be. A commit applies both or neither,
    /// so a refused one refuses the activation rather than letting it run
    /// for free or without its cooldown. (A chance that fails is not a
    /// refusal: it is the effect's own roll, taken when it applies.)
    fn commit_refused(
        &self,
        system: &AbilitySystem,
        def: &AbilityDef,
    ) -> Option<crate::effects::EffectId> {
        let effects = self.catalog.effects();
        let no_tags = TagSet::new();
        let cooldown_tags = def
            .cooldown
            .map_or(&no_tags, |c| &effects.def(c.effect).granted_tags);
        let refused = |effect: crate::effects::EffectId, after: &TagSet| {
            system
                .host
                .refusal_after(self.now, effects, effects.def(effect), after)
                .is_some()
        };
        def.cooldown
            .map(|c| c.effect)
            .filter(|&cooldown| refused(cooldown, &no_tags))
            .or(def.cost.filter(|&cost| refused(cost, cooldown_tags)))
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
            let instance = system
                .abilities
                .instances
                .insert(Instance::new(ability, level, event));
            let mut log = self.tag_log(owner);
            system.host.grant_tags(&def.activation_owned_tags, &mut log);
            system
                .abilities
                .loose
                .add_blocks(&def.block_abilities_with_tags);
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
                                .def(i.ability())
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
        if !to_cancel.is_empty() {
            let restores = self.restores;
            for other in to_cancel {
                self.end_instance(world, owner, other, EndReason::CancelledByAbility(ability));
                // An observer told of the teardown restored a snapshot: the
                // activation belonged to the timeline it abandoned.
                if self.restores != restores {
                    return instance;
                }
            }
            // A teardown that ran may have ended this instance too (a tag
            // it applied cancels it): it then never activates, and spends
            // nothing.
            if !self.instance_exists(world, owner, instance) {
                return instance;
            }
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
            self.end_instance(world, owner, instance, EndReason::Behaviour(tag));
            return;
        }
        // What the commit caused may have ended the instance (a blood
        // price that kills, with the ability cancelled on death).
        if !self.instance_exists(world, owner, instance) {
            return;
        }
        let catalog = self.catalog.clone();
        let def = catalog.abilities().def(ability);
        // The checks ran these very specs; a recipient gone since is
        // skipped. An application whose reactions ended the instance
        // (cancelled by a tag it granted, revoked as the effect granting
        // the ability went) stops the list: an ended ability acts no more.
        for (recipient, spec) in apply_effects_specs(def, owner, level, &event).unwrap_or_default()
        {
            self.apply_effect_recorded(world, recipient, spec);
            if !self.instance_exists(world, owner, instance) {
                return;
            }
        }
        self.end_instance(world, owner, instance, EndReason::Completed);
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
        // A length asked of a cooldown that cannot take it would be
        // dropped, and the ability would cool down for another length.
        if seconds.is_some() && def.cooldown.is_none_or(|c| c.duration_key.is_none()) {
            return Err(ActivationFailure::UnsettableCooldown(
                def.cooldown.map(|c| c.effect),
            ));
        }
        {
            let Ok(system) = world.get::<&AbilitySystem>(owner) else {
                return Err(ActivationFailure::TargetRequirements);
            };
            // Unreal's commit finds no spec for an ability no longer
            // granted: a revoked one (its teardown runs with the grant let
            // go) commits nothing.
            if system.abilities.held(ability).is_none() {
                return Err(ActivationFailure::NoBehaviour);
            }
            // Checked again, as Unreal's commit does: a cooldown started
            // since the activation (another ability's on a shared tag, or
            // this one's own earlier commit) holds.
            let owned = system.host.tags_at(self.catalog.effects(), self.now);
            self.commit_check(world, &system, owner, def, |t| owned.has(t), level)?;
        }
        let specs = commit_specs(def, owner, level, seconds);
        // All or nothing: a cost that cannot be paid starts no cooldown.
        self.check_specs(world, specs.iter().map(|s| (owner, s)))?;
        // Both apply before anything reacts to either (an observer, a
        // rule), so nothing comes between them: the checks above, which
        // judged the cost with the cooldown's tags held, hold for both.
        let mut failed = None;
        for spec in specs {
            let effect = spec.effect;
            if let Ok(Applied::Blocked(_)) | Err(_) = self.apply_unreconciled(world, owner, spec) {
                failed = Some(ActivationFailure::CannotApply(effect));
                break;
            }
        }
        self.reconcile(world);
        failed.map_or(Ok(()), Err)
    }
}

/// The specs a commit applies to the owner: the cooldown (its SetByCaller
/// duration from `seconds`, else the authored seconds), then the cost, in
/// the order of Unreal's `CommitExecute`. A cooldown's duration so reads
/// the owner before the payment, and a cost that kills its payer (a blood
/// price) still leaves the cooldown running.
fn commit_specs(
    def: &AbilityDef,
    owner: Entity,
    level: u32,
    seconds: Option<f64>,
) -> SmallVec<[EffectSpec; 2]> {
    let mut specs = SmallVec::new();
    if let Some(cooldown) = def.cooldown {
        let mut spec = EffectSpec::new(cooldown.effect)
            .with_level(level)
            .with_source(owner);
        if let (Some(key), Some(seconds)) = (cooldown.duration_key, seconds.or(cooldown.seconds)) {
            spec.set(key, seconds);
        }
        specs.push(spec);
    }
    if let Some(cost) = def.cost {
        specs.push(cost_spec(cost, owner, level));
    }
    specs
}

/// The spec a cost is paid with.
fn cost_spec(cost: crate::effects::EffectId, owner: Entity, level: u32) -> EffectSpec {
    EffectSpec::new(cost).with_level(level).with_source(owner)
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

/// The tag `owned` holds (parent-aware: the leaf it holds) that made a
/// blocking query match.
fn first_held(query: &crate::tags::TagQuery, owned: &TagSet) -> Option<Tag> {
    query.first_held(owned).map(|t| held_leaf(owned, t))
}

/// The tag `owned` holds under `tag` (parent-aware: the leaf, such as
/// `Action.Modal.Bank` for `Action.Modal`), or `tag` itself.
fn held_leaf(owned: &TagSet, tag: Tag) -> Tag {
    owned.iter().find(|o| o.matches(tag)).unwrap_or(tag)
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
