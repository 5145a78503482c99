//! The effect operations of the context: apply, remove, query, and the
//! effect timers.

use hecs::{Entity, World};
use smallvec::SmallVec;

use super::Gas;
use crate::abilities::AbilitySystem;
use crate::attributes::{AttributeError, AttributeId};
use crate::effects::{
    ApplyOutcome, CaptureFrom, EffectCx, EffectDef, EffectError, EffectId, EffectKey, EffectSpec,
    EffectTimer, Execution, Magnitude, Names, SourceCaptures,
};
use crate::tags::{Tag, TagQuery};
use crate::time::SimDuration;
use crate::trace::RemovalReason;

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
        let outcome = self.apply_effect_inner(world, target, spec)?;
        if let ApplyOutcome::Executed(execution) = &outcome {
            self.after_execution(world, target, execution);
        }
        self.reconcile(world);
        Ok(outcome)
    }

    fn apply_effect_inner(
        &mut self,
        world: &mut World,
        target: Entity,
        spec: EffectSpec,
    ) -> Result<ApplyOutcome, EffectError> {
        let (captures, live_capture) = {
            let def = self
                .catalog
                .effects()
                .try_def(spec.effect)
                .ok_or(EffectError::UnknownEffect(spec.effect))?;
            let names = self.names();
            (
                source_captures(world, names, def, &spec, target)?,
                def.has_live_capture,
            )
        };
        // A failed application changes nothing, so the reconcile note that
        // follows it is a no-op.
        let outcome = self
            .with_host(world, target, |host, cx| host.apply(cx, spec, captures))
            .ok_or(EffectError::NoSuchTarget(target))??;
        if live_capture
            && matches!(outcome, ApplyOutcome::Added(_))
            && !self.live_holders.contains(&target)
        {
            self.live_holders.push(target);
        }
        Ok(outcome)
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
                host.remove_where(cx, RemovalReason::Removed, |def, _| {
                    def.granted_tags.has(tag) || def.asset_tags.has(tag)
                })
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
                    active.spec.source == Some(source)
                })
            })
            .unwrap_or(0);
        self.reconcile(world);
        removed
    }

    /// The time remaining *as a level*: the maximum remaining time over the
    /// target's active effects granting `tag` (parent-aware); zero when none
    /// does or the target is gone; [`SimDuration::MAX`] for an infinite one.
    ///
    /// This is how a long-running loop reads a cooldown: compare with an
    /// epsilon, never wait for the tag's removal.
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

    /// The target's active effects whose granted or asset tags match `query`.
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
            .effects()
            .filter(|&(_, id)| {
                let def = defs.def(id);
                query.matches(&def.granted_tags) || query.matches(&def.asset_tags)
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
        let (entity, execution) = match timer {
            EffectTimer::Expire { entity, key } => (
                entity,
                self.with_host(world, entity, |host, cx| host.on_expire(cx, key)),
            ),
            EffectTimer::Period { entity, key } => (
                entity,
                self.with_host(world, entity, |host, cx| host.on_period(cx, key)),
            ),
        };
        if let Some(execution) = execution.flatten() {
            self.after_execution(world, entity, &execution);
        }
    }

    /// What follows every execution: it is queued for the observers of
    /// executions (the post-execute step), then the `on_zero` effects of
    /// attributes it brought to zero apply at once, so `Status.Dead` is
    /// there before any observer looks.
    fn after_execution(&mut self, world: &mut World, target: Entity, execution: &Execution) {
        self.observe_execution(target, execution);
        for &attribute in &execution.reached_zero {
            if let Some(effect) = self.catalog.effects().zero_effect(attribute) {
                let mut spec = EffectSpec::new(effect);
                spec.source = execution.spec.source;
                self.apply_effect_recorded(world, target, spec);
            }
        }
    }

    /// Runs `f` on `target`'s effect host with an effect context, then
    /// queues the target for reconciling. `None` if the target is gone.
    pub(crate) fn with_host<R>(
        &mut self,
        world: &mut World,
        target: Entity,
        f: impl FnOnce(&mut crate::effects::EffectHost, &mut EffectCx<super::Timer>) -> R,
    ) -> Option<R> {
        let Gas {
            catalog,
            now,
            timers,
            trace,
            ..
        } = self;
        let system = world.query_one_mut::<&mut AbilitySystem>(target).ok()?;
        let mut cx = EffectCx {
            defs: catalog.effects(),
            tags: catalog.tags(),
            schema: catalog.attributes(),
            now: *now,
            timers,
            trace,
            entity: target,
        };
        let result = f(&mut system.host, &mut cx);
        self.note_touched(target, system);
        Some(result)
    }

    /// Effects and tags by name, for errors.
    pub(crate) fn names(&self) -> Names<'_> {
        Names {
            defs: self.catalog.effects(),
            tags: self.catalog.tags(),
        }
    }
}

/// Reads the source attribute values `def` needs, before the target is
/// borrowed (the two may share a column).
pub(super) fn source_captures(
    world: &World,
    names: Names<'_>,
    def: &EffectDef,
    spec: &EffectSpec,
    target: Entity,
) -> Result<SourceCaptures, EffectError> {
    let mut captures = SourceCaptures::new();
    let needs = def.modifiers.iter().filter_map(|m| match m.magnitude {
        Magnitude::Attribute(c) if c.from == CaptureFrom::Source => Some(c.attribute),
        _ => None,
    });
    let needs = needs.chain(match &def.duration {
        crate::effects::DurationPolicy::Duration(Magnitude::Attribute(c))
            if c.from == CaptureFrom::Source =>
        {
            Some(c.attribute)
        }
        _ => None,
    });
    for attribute in needs {
        let unavailable = || EffectError::SourceUnavailable {
            effect: names.effect(spec.effect),
        };
        let source = spec.source.ok_or_else(unavailable)?;
        let value = if source == target {
            world
                .get::<&AbilitySystem>(target)
                .ok()
                .map(|s| s.current(attribute))
        } else {
            world
                .get::<&AbilitySystem>(source)
                .ok()
                .map(|s| s.current(attribute))
        };
        let value = value.ok_or_else(unavailable)?;
        captures.push((attribute, value));
    }
    Ok(captures)
}
