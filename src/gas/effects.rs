//! The effect operations of the context: apply, remove, query, and the
//! effect timers.

use hecs::{Entity, World};
use smallvec::SmallVec;

use super::Gas;
use crate::abilities::AbilitySystem;
use crate::attributes::{AttributeError, AttributeId};
use crate::effects::{
    Applied, ApplyOutcome, CaptureFrom, Captures, Defs, EffectCx, EffectDef, EffectError, EffectId,
    EffectKey, EffectSpec, EffectTimer, Execution,
};
use crate::tags::{Tag, TagCounts, TagQuery};
use crate::time::SimDuration;
use crate::trace::{Observation, RemovalReason, TraceKind};

impl Gas {
    /// Applies `spec` to `target` now.
    ///
    /// Instant effects execute at once (base values change, meta attributes
    /// drain, hooks run). Duration and infinite effects become active, or
    /// stack onto an existing instance. Application requirements and
    /// immunity are checked first and a refusal is `Ok(Blocked(..))`; a
    /// spec that cannot be evaluated (a missing SetByCaller key, say) is an
    /// error. Either way a refused application changes nothing.
    pub fn apply_effect(
        &mut self,
        world: &mut World,
        target: Entity,
        spec: EffectSpec,
    ) -> Result<ApplyOutcome, EffectError> {
        // The small outcomes are built after the reconcile, so no slot as
        // large as an execution is carried across it.
        match self.apply_effect_inner(world, target, spec)? {
            Applied::Executed => {
                let execution = self.take_instant();
                self.after_execution(world, target, &execution);
                self.reconcile(world);
                Ok(ApplyOutcome::Executed(execution))
            }
            Applied::Added(key) => {
                self.reconcile(world);
                Ok(ApplyOutcome::Added(key))
            }
            Applied::Stacked { key, stacks } => {
                self.reconcile(world);
                Ok(ApplyOutcome::Stacked { key, stacks })
            }
            Applied::Blocked(reason) => {
                self.reconcile(world);
                Ok(ApplyOutcome::Blocked(reason))
            }
        }
    }

    /// The execution an instant application just left (see [`Applied`]).
    pub(super) fn take_instant(&mut self) -> Execution {
        self.instant
            .take()
            .expect("an instant application leaves its execution")
    }

    // Never inlined: its callers (game code's applications, the
    // recorded ones of rules and follow-ups) then share one copy of the
    // hottest code in a fight, which keeps it in the instruction cache.
    #[inline(never)]
    pub(super) fn apply_effect_inner(
        &mut self,
        world: &mut World,
        target: Entity,
        mut spec: EffectSpec,
    ) -> Result<Applied, EffectError> {
        let (captures, live_capture, refreshes, lazy, plain, attributes_only) = {
            let Some(def) = self.catalog.effects().try_def(spec.effect) else {
                return Err(EffectError::UnknownEffect(spec.effect));
            };
            // What the evaluation reads it checks; the rest (values no
            // magnitude reads, the spec's tags) needs checking only on an
            // effect that keeps its spec (an instant's, a hit's with its
            // damage type, is gone once executed) and carries any: off the
            // path every swing takes.
            if !def.is_instant() {
                if spec.carries_more_than(def.set_by_caller_reads) {
                    self.check_spec(&spec)?;
                }
                if spec.level > crate::effects::MAX_EFFECT_LEVEL {
                    return Err(EffectError::LevelTooHigh {
                        effect: self.defs().effect(spec.effect),
                        level: spec.level,
                    });
                }
            }
            (
                source_captures(world, self.defs(), def, &spec)?,
                def.has_live_capture,
                def.refreshes_at_limit(),
                def.ends_lazily(),
                def.adds_plainly(),
                def.touches_only_attributes(),
            )
        };
        // `with_host`, written out: the outcome is large and comes back
        // through no closure or option, so it is not copied on the way.
        let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(target) else {
            return Err(EffectError::NoSuchTarget(target));
        };
        system.host.prefetch_due_lazy_end(self.now);
        // A cooldown on a host nothing watches (every swing's) is added by
        // a short path that leaves the same state, or the full path runs.
        if plain && !self.watches(system) {
            match system.host.add_plainly(self.defs(), target, self.now, spec) {
                Ok(key) => return Ok(Applied::Added(key)),
                Err(returned) => spec = returned,
            }
        }
        // A full stack refreshed (every hit's combat mark) needs only its
        // checks and its new window: the short path, which leaves the
        // same state (an instance that ended lazily is not refreshed), or
        // the full one when it does not apply.
        if refreshes {
            let refreshed = if lazy && !self.watches(system) {
                system.host.refresh_lazily(self.defs(), self.now, &spec)
            } else {
                let mut cx = self.effect_cx(target, system);
                let refreshed = system.host.refresh_at_limit(&mut cx, &spec);
                self.note_touched(target, system);
                refreshed
            };
            if let Some((key, stacks)) = refreshed {
                return Ok(Applied::Stacked { key, stacks });
            }
        }
        // What only executes into attribute values (a hit) needs no lazy
        // end cleared first; everything else starts from the host as it
        // stands now.
        if !attributes_only {
            self.catch_up(target, system);
        }
        debug_assert!(
            self.instant.is_none(),
            "an instant's execution is taken before the next application"
        );
        let mut cx = self.effect_cx(target, system);
        let result = system.host.apply(&mut cx, spec, captures);
        // A failed application changes nothing, so the reconcile note that
        // follows it is a no-op.
        let executed = cx.take_executed();
        self.note_touched(target, system);
        if let Some(executed) = executed {
            self.after_periodic_executions(world, target, executed);
        }
        let applied = result?;
        if live_capture {
            self.note_live_holder(world, target, &applied);
        }
        Ok(applied)
    }

    /// Would `target` refuse `spec` now (application requirements, the life
    /// rule, immunity)? A read-only query: `chance` is rolled only by the
    /// application itself, and an evaluation error (a missing SetByCaller
    /// value) only shows there. `Err(Requirements)` for a target without an
    /// ability system or an unknown effect.
    pub fn can_apply_effect(
        &self,
        world: &World,
        target: Entity,
        spec: &EffectSpec,
    ) -> Result<(), crate::trace::BlockReason> {
        let defs = self.catalog.effects();
        let (Ok(system), Some(def)) = (
            world.get::<&AbilitySystem>(target),
            defs.try_def(spec.effect),
        ) else {
            return Err(crate::trace::BlockReason::Requirements);
        };
        match system.host.refusal_at(self.now, defs, def, &spec.tags) {
            Some(reason) => Err(reason),
            None => Ok(()),
        }
    }

    /// Removes one active effect; `false` if it is not active.
    pub fn remove_effect(&mut self, world: &mut World, target: Entity, key: EffectKey) -> bool {
        let removed = self
            .with_host(world, target, |host, cx| {
                host.remove(cx, key, RemovalReason::Removed)
            })
            .unwrap_or(false);
        self.reconcile(world);
        removed
    }

    /// Removes every active effect whose granted or asset tags match `tag`
    /// (parent-aware); returns how many.
    pub fn remove_effects_with_tag(
        &mut self,
        world: &mut World,
        target: Entity,
        tag: Tag,
    ) -> usize {
        let removed = self
            .with_host(world, target, |host, cx| {
                host.remove_where(cx, RemovalReason::Removed, |def, _| def.carries(tag))
            })
            .unwrap_or(0);
        self.reconcile(world);
        removed
    }

    /// Removes every active instance of `effect`; returns how many.
    pub fn remove_effects_of(
        &mut self,
        world: &mut World,
        target: Entity,
        effect: EffectId,
    ) -> usize {
        let removed = self
            .with_host(world, target, |host, cx| {
                host.remove_where(cx, RemovalReason::Removed, |_, active| active.def == effect)
            })
            .unwrap_or(0);
        self.reconcile(world);
        removed
    }

    /// Removes every active effect `source` applied; returns how many.
    pub fn remove_effects_from(
        &mut self,
        world: &mut World,
        target: Entity,
        source: Entity,
    ) -> usize {
        let removed = self
            .with_host(world, target, |host, cx| {
                host.remove_where(cx, RemovalReason::Removed, |_, active| {
                    active.source == Some(source)
                })
            })
            .unwrap_or(0);
        self.reconcile(world);
        removed
    }

    /// Parent-aware: does `target` own `tag`, or a descendant of it, now?
    /// `false` when it has no ability system.
    pub fn has_tag(&self, world: &World, target: Entity, tag: Tag) -> bool {
        world
            .get::<&AbilitySystem>(target)
            .is_ok_and(|s| s.has_tag(self.catalog.effects(), self.now, tag))
    }

    /// The current value of `attribute` on `target`; `None` when it has no
    /// ability system, or holds no such attribute (an id from another
    /// catalog). Code that holds the system reads
    /// [`AbilitySystem::current`].
    pub fn attribute_value(
        &self,
        world: &World,
        target: Entity,
        attribute: AttributeId,
    ) -> Option<f64> {
        let system = world.get::<&AbilitySystem>(target).ok()?;
        let values = system.attributes();
        values.holds(attribute).then(|| values.current(attribute))
    }

    /// `target`'s owned tags now, with their counts (a copy, for display
    /// and tests); `None` when it has no ability system. Code that holds
    /// the system reads [`AbilitySystem::tags`] without copying.
    pub fn owned_tags(&self, world: &World, target: Entity) -> Option<TagCounts> {
        let system = world.get::<&AbilitySystem>(target).ok()?;
        let tags = system.tags(self.catalog.effects(), self.now);
        Some(tags.into_owned())
    }

    /// The time remaining *as a level*: the maximum remaining time over the
    /// target's active effects granting `tag` (parent-aware); zero when none
    /// does or the target is gone; [`SimDuration::MAX`] for an infinite one.
    ///
    /// This is how a long-running loop reads a cooldown: ready when the
    /// remaining time is zero (or within a tolerance the game chooses),
    /// never by waiting for the tag's removal.
    pub fn time_remaining(&self, world: &World, target: Entity, tag: Tag) -> SimDuration {
        self.time_remaining_and_duration(world, target, tag)
            .map_or(SimDuration::ZERO, |(remaining, _)| remaining)
    }

    /// Remaining and total duration of the longest-remaining effect granting
    /// `tag`, for HUD cooldown sweeps.
    pub fn time_remaining_and_duration(
        &self,
        world: &World,
        target: Entity,
        tag: Tag,
    ) -> Option<(SimDuration, SimDuration)> {
        let system = world.get::<&AbilitySystem>(target).ok()?;
        system
            .host
            .time_remaining(self.catalog.effects(), self.now, tag)
    }

    /// The target's active effects whose tags, granted and asset together
    /// (as Unreal's owning-tag queries read them), match `query`: a `none`
    /// forbids a tag on either side, an `all` may be met across both.
    pub fn effects_matching(
        &self,
        world: &World,
        target: Entity,
        query: &TagQuery,
    ) -> SmallVec<[EffectKey; 4]> {
        let Ok(system) = world.get::<&AbilitySystem>(target) else {
            return SmallVec::new();
        };
        let defs = self.catalog.effects();
        system
            .host
            .effects(self.now)
            .filter(|&(_, id)| {
                let def = defs.def(id);
                query.matches_by(&|tag| def.carries(tag))
            })
            .map(|(key, _)| key)
            .collect()
    }

    /// Writes an attribute's *base* value directly, outside any effect.
    ///
    /// For sources that are not gameplay effects by design, such as
    /// `MaxHealth` following a level; everything a fight does goes through
    /// effects. Refused, changing nothing, when the entity is gone, the
    /// value is not finite, or a derived rule of the entity's profile owns
    /// the attribute (the error names the profile).
    pub fn set_base_attribute(
        &mut self,
        world: &mut World,
        entity: Entity,
        attribute: AttributeId,
        value: f64,
    ) -> Result<(), AttributeError> {
        let result = self
            .with_host(world, entity, |host, cx| {
                let changes = host.attributes.set_base(cx.schema, attribute, value)?;
                host.note_changes(&changes, cx.schema, cx.now, cx.trace, cx.entity);
                Ok(())
            })
            .unwrap_or(Err(AttributeError::NoSuchEntity(entity)));
        self.reconcile(world);
        result
    }

    pub(super) fn on_effect_timer(&mut self, world: &mut World, timer: EffectTimer) {
        match timer {
            EffectTimer::Expire { entity, key } => {
                let live = self.live_source_values(world, entity, key);
                self.with_host_live(world, entity, live, |host, cx| host.on_expire(cx, key));
            }
            EffectTimer::Period { entity, key } => {
                let live = self.live_source_values(world, entity, key);
                self.with_host_live(world, entity, live, |host, cx| host.on_period(cx, key));
            }
        }
    }

    /// Refuses a spec that carries a value that is not finite, or a tag or
    /// key of another catalog: an active effect keeps its spec whole, and
    /// a save holding such a one could never be restored.
    #[cold]
    #[inline(never)]
    fn check_spec(&self, spec: &EffectSpec) -> Result<(), EffectError> {
        if let Some(value) = spec.non_finite_value() {
            let effect = self.defs().effect(spec.effect);
            return Err(EffectError::NotFinite { effect, value });
        }
        if !spec.tags_known(self.catalog.tags()) {
            let effect = self.defs().effect(spec.effect);
            return Err(EffectError::UnknownSpecTag { effect });
        }
        Ok(())
    }

    /// Fresh values of the source attributes an active effect's
    /// calculations read live, for its next periodic execution.
    // Inlined to its first test: every expiry asks, and content with no
    // live source calculation at all (a fight's) answers at once.
    #[inline]
    fn live_source_values(&self, world: &World, entity: Entity, key: EffectKey) -> Captures {
        if !self.catalog.effects().has_live_source_calculations() {
            return Captures::new();
        }
        self.read_live_source_values(world, entity, key)
    }

    /// [`live_source_values`](Self::live_source_values) for content that
    /// has live source calculations.
    #[inline(never)]
    fn read_live_source_values(&self, world: &World, entity: Entity, key: EffectKey) -> Captures {
        let mut values = Captures::new();
        let Ok(system) = world.get::<&AbilitySystem>(entity) else {
            return values;
        };
        let Some(active) = system.host.effects.get(key) else {
            return values;
        };
        let def = self.catalog.effects().def(active.def);
        if !def.live_source_calculation {
            return values;
        }
        let Some(source) = active.source else {
            return values;
        };
        for capture in def.calculation_captures(self.catalog.calculations()) {
            if capture.live && capture.from == CaptureFrom::Source {
                // A vanished source keeps the value it gave last.
                if let Some(value) = read_attribute(world, source, capture.attribute) {
                    values.push((CaptureFrom::Source, capture.attribute, value));
                }
            }
        }
        values
    }

    /// What follows every execution: it is queued for the observers of
    /// executions (the post-execute step), then the `on_zero` effects of
    /// attributes it brought to zero apply at once, so `Status.Dead` is
    /// there before any observer looks.
    pub(super) fn after_execution(
        &mut self,
        world: &mut World,
        target: Entity,
        execution: &Execution,
    ) {
        self.observe_execution(target, execution);
        self.apply_zero_effects(world, target, execution);
    }

    /// [`after_execution`](Self::after_execution) for an execution no caller
    /// gets back: moved to the observers rather than copied.
    pub(super) fn after_owned_execution(
        &mut self,
        world: &mut World,
        target: Entity,
        execution: Execution,
    ) {
        if execution.reached_zero.is_empty() {
            self.observe_owned_execution(target, execution);
        } else {
            self.observe_execution(target, &execution);
            self.apply_zero_effects(world, target, &execution);
        }
    }

    /// [`after_owned_execution`](Self::after_owned_execution) for the
    /// execution an instant application just left (see [`Applied`]).
    fn after_instant_execution(&mut self, world: &mut World, target: Entity) {
        // The common case (observed, bringing nothing to zero: every hit
        // that does not kill) moves the execution from its slot straight
        // into the observers' queue: handed to `after_owned_execution`,
        // it would be copied once more on the way.
        let observed_only = self.observe_executions
            && self
                .instant
                .as_ref()
                .is_some_and(|execution| execution.reached_zero.is_empty());
        if observed_only {
            let execution = self.take_instant();
            self.trace
                .observe(Observation::Execution { target, execution });
        } else if let Some(execution) = self.instant.take() {
            self.after_owned_execution(world, target, execution);
        }
    }

    /// The `on_zero` effects of the attributes an execution brought to zero.
    /// What reacts to them is reconciled where the operation reconciles
    /// what reacts to the execution: a kill by a periodic effect's last
    /// tick, due with other ends at one instant, reacts once they have all
    /// ended, as every end does.
    fn apply_zero_effects(&mut self, world: &mut World, target: Entity, execution: &Execution) {
        for &attribute in &execution.reached_zero {
            if let Some(effect) = self.catalog.effects().zero_effect(attribute) {
                let mut spec = EffectSpec::new(effect);
                spec.source = execution.spec.source;
                self.apply_effect_unreturned(world, target, spec);
            }
        }
    }

    /// Applies `spec` for a caller that wants nothing back: what follows an
    /// execution runs without copying it, and a failure is recorded in the
    /// trace. Does not reconcile.
    pub(super) fn apply_effect_unreturned(
        &mut self,
        world: &mut World,
        target: Entity,
        spec: EffectSpec,
    ) {
        let effect = spec.effect;
        if let Err(error) = self.apply_unreconciled(world, target, spec) {
            self.record(TraceKind::EffectFailed {
                target,
                effect,
                error,
            });
        }
    }

    /// Applies `spec` and hands an instant's execution on (observers,
    /// `on_zero` effects) without copying it; what reacts is left for the
    /// caller's reconcile.
    #[inline(always)]
    pub(super) fn apply_unreconciled(
        &mut self,
        world: &mut World,
        target: Entity,
        spec: EffectSpec,
    ) -> Result<Applied, EffectError> {
        let applied = self.apply_effect_inner(world, target, spec)?;
        if let Applied::Executed = applied {
            self.after_instant_execution(world, target);
        }
        Ok(applied)
    }

    /// Runs `f` on `target`'s effect host with an effect context, then
    /// queues the target for reconciling and hands the periodic executions
    /// `f` ran to the post-execute step. `None` if the target is gone.
    pub(crate) fn with_host<R>(
        &mut self,
        world: &mut World,
        target: Entity,
        f: impl FnOnce(&mut crate::effects::EffectHost, &mut EffectCx<super::Timer>) -> R,
    ) -> Option<R> {
        self.with_host_live(world, target, Captures::new(), f)
    }

    /// [`with_host`](Self::with_host), with fresh live source values for
    /// the periodic executions `f` may run.
    fn with_host_live<R>(
        &mut self,
        world: &mut World,
        target: Entity,
        live_source_values: Captures,
        f: impl FnOnce(&mut crate::effects::EffectHost, &mut EffectCx<super::Timer>) -> R,
    ) -> Option<R> {
        let system = world.query_one_mut::<&mut AbilitySystem>(target).ok()?;
        self.catch_up(target, system);
        let mut cx = self.effect_cx(target, system);
        cx.live_source_values = live_source_values;
        let result = f(&mut system.host, &mut cx);
        let executed = cx.take_executed();
        self.note_touched(target, system);
        if let Some(executed) = executed {
            self.after_periodic_executions(world, target, executed);
        }
        Some(result)
    }

    /// A context for an effect operation on `target`'s host (`system`):
    /// everything of the context's the operation borrows, until its last
    /// use.
    pub(super) fn effect_cx(
        &mut self,
        target: Entity,
        system: &AbilitySystem,
    ) -> EffectCx<'_, super::Timer> {
        // Could anything see an effect on this host end (or begin)? The
        // trace and the observers through it, and the instances' waits (a
        // hint that may say yes for a wait since gone: then the long path
        // runs).
        let watched = self.watches(system);
        let catalog = &self.catalog;
        EffectCx {
            watched,
            lazy_ends: &mut self.lazy_ends,
            defs: catalog.effects(),
            tags: catalog.tags(),
            calcs: catalog.calculations(),
            rng: &mut self.rng,
            executed: SmallVec::new(),
            instant: &mut self.instant,
            live_source_values: Captures::new(),
            follow_ups: &mut self.follow_ups,
            schema: catalog.attributes(),
            now: self.now,
            timers: &mut self.timers,
            trace: &mut self.trace,
            entity: target,
        }
    }

    /// What follows the periodic executions one host call ran, in order.
    #[inline(never)]
    fn after_periodic_executions(
        &mut self,
        world: &mut World,
        target: Entity,
        executed: SmallVec<[Execution; 1]>,
    ) {
        for execution in executed {
            self.after_owned_execution(world, target, execution);
        }
    }

    /// The definitions an effect evaluation reads.
    pub(crate) fn defs(&self) -> Defs<'_> {
        Defs {
            effects: self.catalog.effects(),
            tags: self.catalog.tags(),
            calcs: self.catalog.calculations(),
        }
    }
}

/// Reads the source attribute values `def` needs (its attribute
/// magnitudes' and its calculations'), before the target is borrowed (the
/// two may share a column).
///
/// Most effects read nothing of their source: that answer is inlined into
/// every application, the reading itself is not.
#[inline]
pub(super) fn source_captures(
    world: &World,
    defs: Defs<'_>,
    def: &EffectDef,
    spec: &EffectSpec,
) -> Result<Captures, EffectError> {
    if def.reads_source {
        read_source_captures(world, defs, def, spec)
    } else {
        Ok(Captures::new())
    }
}

/// [`source_captures`] of an effect that reads its source.
#[inline(never)]
fn read_source_captures(
    world: &World,
    defs: Defs<'_>,
    def: &EffectDef,
    spec: &EffectSpec,
) -> Result<Captures, EffectError> {
    let mut captures = Captures::new();
    for attribute in def.source_attributes(defs.calcs) {
        if captures.iter().any(|&(_, a, _)| a == attribute) {
            continue;
        }
        let unavailable = || EffectError::SourceUnavailable {
            effect: defs.effect(spec.effect),
        };
        let source = spec.source.ok_or_else(unavailable)?;
        let value = read_attribute(world, source, attribute).ok_or_else(unavailable)?;
        captures.push((CaptureFrom::Source, attribute, value));
    }
    Ok(captures)
}

/// `entity`'s current value of `attribute`, if it has an ability system.
fn read_attribute(world: &World, entity: Entity, attribute: AttributeId) -> Option<f64> {
    world
        .get::<&AbilitySystem>(entity)
        .ok()
        .map(|s| s.current(attribute))
}

#[cfg(test)]
mod tests {
    use hecs::World;

    use crate::abilities::AbilitySystem;
    use crate::catalog::CatalogBuilder;
    use crate::gas::{Gas, Observe};
    use crate::trace::{TraceCategory, TraceFilter};

    /// Cooldowns (a tag and a duration, nothing else) and effects that are
    /// each one thing more; `Status.Guarded` is a tag a rule reacts to.
    const CONTENT: &str = r#"(
        attributes: [(name: "Stamina", base: 10)],
        effects: [
            (name: "GE_Cooldown", duration: Duration(Constant(1)), granted_tags: ["Cooldown.Rest"]),
            (name: "GE_Tagless", duration: Duration(Constant(1))),
            (name: "GE_Guard", duration: Duration(Constant(1)), granted_tags: ["Status.Guarded"]),
            (name: "GE_Buff", duration: Duration(Constant(1)), granted_tags: ["Cooldown.Buff"],
             modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(1))]),
            (name: "GE_Stacked", duration: Duration(Constant(1)), granted_tags: ["Cooldown.Stack"],
             stacking: (by: Target, limit: 2)),
            (name: "GE_Cued", duration: Duration(Constant(1)), granted_tags: ["Cooldown.Cue"],
             cues: [(tag: "GameplayCue.Rest", on: Remove)]),
            (name: "GE_Ticking", duration: Duration(Constant(1)), period: (seconds: 0.5),
             granted_tags: ["Cooldown.Tick"]),
            (name: "GE_Followed", duration: Duration(Constant(1)), granted_tags: ["Cooldown.Follow"],
             on_expiry: ["GE_Cooldown"]),
            (name: "GE_Forever", duration: Infinite, granted_tags: ["Cooldown.Forever"]),
            (name: "GE_Now", modifiers: [(attribute: "Stamina", op: Flat, magnitude: Constant(1))]),
        ],
        abilities: [
            (name: "GA_Rest", trigger: "Action.Rest", cancel_on_tags_added: ["Status.Guarded"],
             behaviour: ApplyEffects([])),
        ],
    )"#;

    const TAGS: &str = "Cooldown.Rest\nCooldown.Buff\nCooldown.Stack\nCooldown.Cue\n\
        Cooldown.Tick\nCooldown.Follow\nCooldown.Forever\nStatus.Guarded\nAction.Rest\n\
        GameplayCue.Rest\n";

    fn gas() -> (Gas, World, hecs::Entity) {
        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("test.tags", TAGS);
        builder.add_source("test.ron", CONTENT);
        let gas = Gas::new(builder.build().unwrap_or_else(|e| panic!("{e}")));
        let mut world = World::new();
        let hero = world.spawn((gas.new_ability_system(),));
        (gas, world, hero)
    }

    /// The effects that end lazily.
    fn lazy(gas: &Gas) -> Vec<String> {
        gas.catalog()
            .effects()
            .iter()
            .filter(|d| d.ends_lazily())
            .map(|d| d.name.clone())
            .collect()
    }

    /// An instant application leaves its execution for what follows it,
    /// which takes it: the observers see each execution once (one that
    /// brings an attribute to zero too, after its `on_zero` effect), the
    /// public call gets it back, and nothing is left behind for the next
    /// application, observed or not.
    #[test]
    fn an_instant_execution_reaches_its_observers_once_and_is_not_left_behind() {
        use std::sync::{Arc, Mutex};

        use crate::effects::{ApplyOutcome, EffectSpec};
        use crate::trace::Observation;

        let mut builder = CatalogBuilder::new();
        builder.tags().add_source("camp.tags", "State.Out\n");
        builder.add_source(
            "camp.ron",
            r#"(
                attributes: [(name: "Embers", base: 3, min: 0, on_zero: "GE_Out")],
                effects: [
                    (name: "GE_Douse", modifiers: [(attribute: "Embers", op: Flat, magnitude: Constant(-1))]),
                    (name: "GE_Out", duration: Infinite, granted_tags: ["State.Out"]),
                ],
            )"#,
        );
        let catalog = builder.build().unwrap_or_else(|e| panic!("{e}"));
        let douse = catalog.effects().get("GE_Douse").unwrap();
        let out = catalog.tags().get("State.Out").unwrap();
        let mut gas = Gas::new(catalog);
        let mut world = World::new();
        let campfire = world.spawn((gas.new_ability_system(),));
        let seen: Arc<Mutex<Vec<(bool, bool)>>> = Arc::default();
        let log = Arc::clone(&seen);
        gas.observe(Observe::executions(), move |world, gas, seen| {
            if let Observation::Execution { target, execution } = seen {
                let system = world.get::<&AbilitySystem>(*target).unwrap();
                let out_now = system.has_tag(gas.catalog().effects(), gas.now(), out);
                log.lock()
                    .unwrap()
                    .push((execution.effect == douse, out_now));
            }
        });

        // Through the public call: the execution comes back, and the
        // observers got theirs.
        let returned = gas.apply_effect(&mut world, campfire, EffectSpec::new(douse));
        assert!(
            matches!(&returned, Ok(ApplyOutcome::Executed(e)) if e.effect == douse && e.reached_zero.is_empty()),
            "{returned:?}"
        );
        assert!(gas.instant.is_none());
        // Through the recorded path a rule uses: twice, the second bringing
        // the embers to zero, whose `on_zero` effect is there before the
        // observers look.
        gas.apply_effect_recorded(&mut world, campfire, EffectSpec::new(douse));
        assert!(gas.instant.is_none());
        gas.apply_effect_recorded(&mut world, campfire, EffectSpec::new(douse));
        assert!(gas.instant.is_none());
        gas.deliver(&mut world);
        assert_eq!(
            *seen.lock().unwrap(),
            [(true, false), (true, false), (true, true)]
        );

        // Unobserved, the execution is dropped where it was left.
        let mut quiet = Gas::new(Arc::clone(gas.catalog_arc()));
        let mut world = World::new();
        let campfire = world.spawn((quiet.new_ability_system(),));
        quiet.apply_effect_recorded(&mut world, campfire, EffectSpec::new(douse));
        assert!(quiet.instant.is_none());
    }

    /// Whether the context would tell lazy ends on `hero` at their instants.
    fn watched(gas: &Gas, world: &World, hero: hecs::Entity) -> bool {
        gas.watches(&world.get::<&AbilitySystem>(hero).unwrap())
    }

    #[test]
    fn only_a_duration_and_tags_no_rule_reacts_to_end_lazily() {
        let (mut gas, world, hero) = gas();
        // A tag no rule reacts to, or none at all, with or without a stack
        // rule; every other effect has something that reacts to its end.
        assert_eq!(lazy(&gas), ["GE_Cooldown", "GE_Tagless", "GE_Stacked"]);

        // Whatever records or observes effects or tags watches every host.
        gas.trace_mut().set_filter(TraceFilter::NONE);
        assert!(!watched(&gas, &world, hero));
        for watching in [TraceCategory::EFFECTS, TraceCategory::TAGS] {
            gas.trace_mut().set_filter(watching);
            assert!(watched(&gas, &world, hero), "{watching:?}");
        }
        gas.trace_mut().set_filter(TraceFilter::ALL);
        assert!(watched(&gas, &world, hero));
        gas.trace_mut().set_filter(TraceFilter::NONE);
        let rest = gas.catalog().tags().get("Cooldown.Rest").unwrap();
        let (mut observed, others, other) = self::gas();
        observed.trace_mut().set_filter(TraceFilter::NONE);
        observed.observe(Observe::tag_removed(rest), |_, _, _| {});
        assert!(watched(&observed, &others, other));

        // So does an instance waiting on the host's tags or state.
        for waits in [(true, false), (false, true)] {
            {
                let mut system = world.get::<&mut AbilitySystem>(hero).unwrap();
                system.set_reactive_waits(crate::abilities::ReactiveWaits {
                    tags: waits.0,
                    state: waits.1,
                });
            }
            assert!(watched(&gas, &world, hero), "{waits:?}");
        }
    }
}
