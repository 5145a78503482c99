//! [`EffectHost`]: the part of an entity that effects act on (attributes,
//! owned tags, active effects), and the rules that run on it: application,
//! stacking, periods, expiry, inhibition and removal (executions are in
//! `execution.rs`).

use crate::slots::Slots;
use hecs::Entity;
use serde::{Deserialize, Serialize};
use slotmap::Key;
use smallvec::SmallVec;

use super::active::{ActiveEffect, Captures, EffectKey};
use super::calculation::{roll, CaptureValues, MagnitudeCx};
use super::cx::{Defs, EffectCx, FollowUp, TagLog};
use super::data::{
    CaptureFrom, CueEvent, DurationOnReapply, PeriodOnReapply, PeriodicWhileDead, StackBy,
    StackExpiry,
};
use super::def::{DurationPolicy, EffectDef, EffectDefs, EffectId, Magnitude};
use super::error::EffectError;
use super::execution::Execution;
use super::expiry::{ExpiryTimer, ExpiryTimers};
use super::lazy::LazyIndex;
use super::spec::{EffectSpec, SetByCallerError};
use super::watched::WatchedKeys;
use crate::attributes::{AttributeChanges, AttributeId, AttributeSchema, Attributes};
use crate::tags::{NotHeld, Tag, TagCounts, TagNotes, TagSet};
use crate::time::{Lane, SimDuration, SimTime, TimerKey};
use crate::trace::{BlockReason, RemovalReason, Trace, TraceCategory, TraceKind};

/// A timer the effects layer schedules.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EffectTimer {
    /// The effect's duration runs out.
    Expire {
        /// Whose effect.
        entity: Entity,
        /// Which effect.
        key: EffectKey,
    },
    /// The effect's next periodic execution is due.
    Period {
        /// Whose effect.
        entity: Entity,
        /// Which effect.
        key: EffectKey,
    },
}

/// What an application did.
#[derive(Clone, Debug, PartialEq)]
pub enum ApplyOutcome {
    /// An instant effect executed.
    Executed(Execution),
    /// A new active effect.
    Added(EffectKey),
    /// An existing stack was re-applied; it now has `stacks` stacks.
    Stacked {
        /// The stack.
        key: EffectKey,
        /// Stacks after re-application.
        stacks: u32,
    },
    /// Refused; nothing changed.
    Blocked(BlockReason),
}

/// What an application did, as the host tells the context: an
/// [`ApplyOutcome`] whose execution, for an instant effect, is left in
/// [`EffectCx::instant`] instead of coming back through every caller. An
/// execution is some 170 bytes, and each hand-over by value was a copy:
/// five on the way from the host to the observers, a twentieth of an
/// attack's time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Applied {
    /// An instant effect executed (its execution is in
    /// [`EffectCx::instant`]).
    Executed,
    /// A new active effect.
    Added(EffectKey),
    /// An existing stack was re-applied; it now has `stacks` stacks.
    Stacked {
        /// The stack.
        key: EffectKey,
        /// Stacks after re-application.
        stacks: u32,
    },
    /// Refused; nothing changed.
    Blocked(BlockReason),
}

/// The part of an entity that gameplay effects act on.
///
/// Laid out as declared: what every application, expiry and tag read
/// touches first (the effect slots, the first lazy end, the owned tags,
/// the watched index, the reconcile notes), then the attribute values,
/// which only an effect that moves them reaches. At scale a host is cold when a timer
/// reaches it, and each line read is a miss. Saved in another order, the
/// one it always had (see `saved_host.rs`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct EffectHost {
    pub(crate) effects: Slots<EffectKey, ActiveEffect, RESERVED_EFFECTS>,
    /// No lazily ending effect ends before this instant (see `lazy.rs`):
    /// reads before it need not look for ended ones, and a touch of the
    /// host before it has none to clear. Derived, so not saved.
    pub(crate) lazy_due: SimTime,
    pub(crate) tags: TagCounts,
    /// The active effects whose definitions [are watched](EffectDef::is_watched),
    /// in slot order (the order a scan of `effects` would meet them): the
    /// immunity check, inhibition and live captures look only here, so a
    /// host's many plain effects (a cooldown applied every frame) cost them
    /// nothing. Derived from `effects`, so not saved: a restore rebuilds it.
    pub(crate) watched: WatchedKeys,
    /// Tags that became present or absent since the last reconcile.
    pub(crate) notes: TagNotes,
    /// Attribute values changed since the last reconcile.
    pub(crate) attributes_changed: bool,
    /// An active effect ended since the last reconcile.
    pub(crate) effect_ended: bool,
    /// Where the first lazy end of a host that keeps an [index of
    /// them](LazyIndex) most likely lies: the slot an application about
    /// to clear it will read, asked for before the index says which
    /// (see `lazy.rs`). A hint: it may be stale, and nothing else reads
    /// it. In the padding before the next field, so it costs no room.
    pub(crate) lazy_first_slot: u32,
    pub(crate) attributes: Attributes,
    /// The lazily ending effects in end order, for a host that holds many
    /// effects (see `lazy.rs`); cold, and derived, so not saved.
    pub(crate) lazy_index: Option<Box<LazyIndex>>,
    /// The pending expiry timers of its effects that end on one; saved
    /// with each effect.
    pub(crate) expiry: ExpiryTimers,
}

/// Effect slots every host keeps inline. A fighter holds up to three
/// effects at once (cooldown, in-combat, a buff or the death mark), so
/// the first fight allocates nothing; each slot is 72 bytes in every
/// entity, so no more than that (a host holding more moves its effects to
/// a block of one slot more, and keeps that room).
pub(crate) const RESERVED_EFFECTS: usize = 3;

impl EffectHost {
    pub(crate) fn new(attributes: Attributes) -> Self {
        Self {
            attributes,
            tags: TagCounts::new(),
            effects: Slots::new(),
            lazy_due: SimTime::MAX,
            watched: WatchedKeys::default(),
            notes: TagNotes::default(),
            attributes_changed: false,
            effect_ended: false,
            lazy_first_slot: u32::MAX,
            lazy_index: None,
            expiry: ExpiryTimers::default(),
        }
    }

    /// Every timer its effects hold (each one's expiry, then its next
    /// tick), for whoever ends them all to cancel.
    pub(crate) fn timers(&self) -> impl Iterator<Item = TimerKey> + '_ {
        self.effects.iter().flat_map(|(key, effect)| {
            [self.expiry_timer(key), effect.period_timer()]
                .into_iter()
                .flatten()
        })
    }

    /// The pending expiry timer of the effect under `key`, if it holds one.
    pub(crate) fn expiry_timer(&self, key: EffectKey) -> Option<TimerKey> {
        self.expiry.get(key).map(|expiry| expiry.timer)
    }

    /// The entity's attribute values.
    pub fn attributes(&self) -> &Attributes {
        &self.attributes
    }

    /// The active effect `key` at `now`: `None` once it has ended, even
    /// one that [ended lazily](EffectDef::ends_lazily) and still holds its
    /// slot.
    fn live(&self, key: EffectKey, now: SimTime) -> Option<&ActiveEffect> {
        self.effects.get(key).filter(|e| !e.has_ended(now))
    }

    /// Number of effects active at `now`.
    pub fn effect_count(&self, now: SimTime) -> usize {
        self.effects.values().filter(|e| !e.has_ended(now)).count()
    }

    /// The definition and stack count of an effect active at `now`.
    pub fn effect(&self, key: EffectKey, now: SimTime) -> Option<(EffectId, u32)> {
        self.live(key, now).map(|e| (e.def, e.stacks))
    }

    /// Every effect active at `now`, in a deterministic order.
    pub fn effects(&self, now: SimTime) -> impl Iterator<Item = (EffectKey, EffectId)> + '_ {
        self.effects
            .iter()
            .filter(move |(_, e)| !e.has_ended(now))
            .map(|(k, e)| (k, e.def))
    }

    /// True when the effect active at `now` is inhibited by its ongoing
    /// requirements.
    pub fn is_inhibited(&self, key: EffectKey, now: SimTime) -> Option<bool> {
        self.live(key, now).map(|e| e.inhibited)
    }

    /// Remaining and total duration of the effect active at `now`.
    pub fn remaining(
        &self,
        key: EffectKey,
        now: SimTime,
    ) -> Option<(SimDuration, Option<SimDuration>)> {
        self.live(key, now)
            .map(|e| (e.remaining(now), e.duration()))
    }

    /// The time remaining as a *level*: the maximum remaining time over the
    /// active, uninhibited effects granting `tag` (parent-aware), with that
    /// effect's total duration. `None` when no effect grants it;
    /// [`SimDuration::MAX`] remaining for an infinite one.
    pub fn time_remaining(
        &self,
        defs: &EffectDefs,
        now: SimTime,
        tag: Tag,
    ) -> Option<(SimDuration, SimDuration)> {
        // An effect that grants the tag puts it among the owned tags
        // (until it is cleared, if it ended lazily): without it (a
        // cooldown read the instant it ended) there is nothing to scan for.
        if !self.tags.tags().has(tag) {
            return None;
        }
        let mut best: Option<(SimDuration, SimDuration)> = None;
        for effect in self.effects.values() {
            if effect.inhibited
                || effect.has_ended(now)
                || !defs.def(effect.def).granted_tags.has(tag)
            {
                continue;
            }
            let remaining = effect.remaining(now);
            if best.is_none_or(|(r, _)| remaining > r) {
                best = Some((remaining, effect.duration().unwrap_or(SimDuration::MAX)));
            }
        }
        best
    }

    // ------------------------------------------------------------ tags

    /// Adds one reference to `tag`, noting a presence change for the
    /// reconcile and, when wanted, in the trace.
    pub(crate) fn grant_tag(&mut self, tag: Tag, log: &mut TagLog<'_>) {
        if self.tags.add(tag) {
            self.notes.appeared(tag);
            log.changed(tag, true);
        }
    }

    /// Adds one reference to each tag.
    pub(crate) fn grant_tags(&mut self, tags: &TagSet, log: &mut TagLog<'_>) {
        for tag in tags.iter() {
            self.grant_tag(tag, log);
        }
    }

    /// Releases one reference to `tag`, noting a presence change.
    pub(crate) fn release_tag(&mut self, tag: Tag, log: &mut TagLog<'_>) -> Result<(), NotHeld> {
        if self.tags.remove(tag)? {
            self.notes.vanished(tag);
            log.changed(tag, false);
        }
        Ok(())
    }

    /// Releases one reference to each tag: all or nothing.
    pub(crate) fn release_tags(
        &mut self,
        tags: &TagSet,
        log: &mut TagLog<'_>,
    ) -> Result<(), NotHeld> {
        let notes = &mut self.notes;
        self.tags.remove_each(tags, |tag| {
            notes.vanished(tag);
            log.changed(tag, false);
        })
    }

    pub(crate) fn note_changes(
        &mut self,
        changes: &AttributeChanges,
        schema: &AttributeSchema,
        now: SimTime,
        trace: &mut Trace,
        entity: Entity,
    ) {
        if changes.is_empty() {
            return;
        }
        self.attributes_changed = true;
        if trace.wants(TraceCategory::ATTRIBUTES) {
            for change in changes {
                // A meta attribute holds no state: its blips are noise.
                if schema.def(change.attribute).meta {
                    continue;
                }
                trace.record(
                    now,
                    TraceKind::AttributeChanged {
                        entity,
                        attribute: change.attribute,
                        old: change.old,
                        new: change.new,
                    },
                );
            }
        }
    }

    // ------------------------------------------------------------ apply

    /// Applies `spec`. Every check runs before any change, so a refused or
    /// failed application changes nothing.
    pub(crate) fn apply<P: From<EffectTimer>>(
        &mut self,
        cx: &mut EffectCx<P>,
        spec: EffectSpec,
        captures: Captures,
    ) -> Result<Applied, EffectError> {
        let defs = cx.defs;
        // `let else`, not `ok_or`: the error is built only when it happens.
        let Some(def) = defs.try_def(spec.effect) else {
            return Err(EffectError::UnknownEffect(spec.effect));
        };
        if let Some(reason) = self.refusal(defs, def, &spec.tags) {
            return Ok(self.blocked(cx, &spec, reason));
        }
        // Evaluate every magnitude first: a missing SetByCaller key fails
        // the whole application before anything is touched.
        let lookup = Defs::of(cx);
        let evaluated = self.evaluate_spec(lookup, def, &spec, &captures)?;
        if def.chance.is_some() {
            return self.apply_by_chance(cx, def, spec, captures, evaluated);
        }
        self.apply_checked(cx, def, spec, captures, evaluated)
    }

    /// [`apply`](Self::apply) of an effect with a `chance`, after its
    /// checks: the roll, and on a hit the application. One that fails
    /// after the roll (a calculation gone wrong) puts the RNG back, so a
    /// failure changes nothing.
    #[inline(never)]
    fn apply_by_chance<P: From<EffectTimer>>(
        &mut self,
        cx: &mut EffectCx<P>,
        def: &EffectDef,
        spec: EffectSpec,
        captures: Captures,
        evaluated: (SmallVec<[f64; 2]>, Option<SimDuration>),
    ) -> Result<Applied, EffectError> {
        let unrolled = cx.rng.clone();
        if def.chance.is_some_and(|p| !roll(cx.rng, p)) {
            return Ok(self.blocked(cx, &spec, BlockReason::Chance));
        }
        let result = self.apply_checked(cx, def, spec, captures, evaluated);
        if result.is_err() {
            *cx.rng = unrolled;
        }
        result
    }

    /// The application proper, once every check has passed and every
    /// magnitude is evaluated. Conditional effects are queued first (judged
    /// on the target before it changes) and dropped again if the execution
    /// fails.
    #[inline(always)]
    fn apply_checked<P: From<EffectTimer>>(
        &mut self,
        cx: &mut EffectCx<P>,
        def: &EffectDef,
        spec: EffectSpec,
        mut captures: Captures,
        (magnitudes, duration): (SmallVec<[f64; 2]>, Option<SimDuration>),
    ) -> Result<Applied, EffectError> {
        let queued = cx.follow_ups.len();
        if !def.conditional.is_empty() {
            self.queue_conditional(cx, def, &spec);
        }
        if def.is_instant() {
            let effect = spec.effect;
            if let Err(error) = self.execute(cx, def, spec, &magnitudes, 1, &captures) {
                cx.follow_ups.truncate(queued);
                return Err(error);
            }
            self.remove_tagged_by(cx, effect, None);
            return Ok(Applied::Executed);
        }
        // What the calculations capture of the target once, for every
        // later execution.
        if !def.executions.is_empty() {
            self.capture_target(cx.calcs, def, &mut captures);
        }
        if let Some(key) = self.existing_stack(def, &spec, cx.now) {
            let stacks = self.reapply(cx, key, &spec, duration);
            self.remove_tagged_by(cx, spec.effect, Some(key));
            return Ok(Applied::Stacked { key, stacks });
        }
        let effect = spec.effect;
        let key = self.add_active(cx, def, spec, duration, magnitudes, captures);
        self.remove_tagged_by(cx, effect, Some(key));
        Ok(Applied::Added(key))
    }

    /// Queues `def`'s conditional effects whose query the owner matches.
    #[cold]
    fn queue_conditional<P>(&self, cx: &mut EffectCx<P>, def: &EffectDef, spec: &EffectSpec) {
        for (effect, when) in &def.conditional {
            if when.matches(self.tags.tags()) {
                let follow_on = spec.follow_on(*effect);
                cx.follow_ups
                    .push_back((cx.entity, FollowUp::Apply(follow_on)));
            }
        }
    }

    #[cold]
    fn blocked<P>(&self, cx: &mut EffectCx<P>, spec: &EffectSpec, reason: BlockReason) -> Applied {
        cx.trace.record(
            cx.now,
            TraceKind::EffectBlocked {
                target: cx.entity,
                effect: spec.effect,
                reason,
            },
        );
        Applied::Blocked(reason)
    }

    /// The active effects that are [watched](EffectDef::is_watched), in
    /// slot order.
    fn watched_effects(&self) -> impl Iterator<Item = &ActiveEffect> + '_ {
        self.watched.as_slice().iter().map(|&k| &self.effects[k])
    }

    /// Rebuilds the index of watched effects from the effects themselves
    /// (after a restore, which does not save it).
    pub(crate) fn reindex(&mut self, defs: &EffectDefs) {
        self.watched = WatchedKeys::of(self.watched_keys(defs));
    }

    /// True when the index of watched effects is what
    /// [`reindex`](Self::reindex) would build (an invariant).
    pub(crate) fn index_agrees(&self, defs: &EffectDefs) -> bool {
        self.watched_keys(defs).as_slice() == self.watched.as_slice()
    }

    /// The keys of the watched effects, by a walk over all of them.
    fn watched_keys(&self, defs: &EffectDefs) -> SmallVec<[EffectKey; 2]> {
        self.effects
            .iter()
            .filter(|(_, e)| defs.def(e.def).is_watched())
            .map(|(k, _)| k)
            .collect()
    }

    /// True when the game's `life` rule calls this owner dead.
    #[inline]
    pub(crate) fn is_dead(&self, defs: &EffectDefs) -> bool {
        defs.life().is_dead(self.tags.tags())
    }

    /// Why the host refuses `def` applied with `spec_tags` (the tags of
    /// the spec, all of it a refusal reads) before anything is evaluated
    /// or rolled: application requirements, the life rule, immunity.
    // Inlined: asked on every application, and a host holding no watched
    // effect (no immunity among them) needs no scan, whose set-up had cost
    // more than these tests.
    #[inline]
    pub(crate) fn refusal(
        &self,
        defs: &EffectDefs,
        def: &EffectDef,
        spec_tags: &TagSet,
    ) -> Option<BlockReason> {
        self.refusal_given(self.tags.tags(), defs, def, spec_tags)
    }

    /// [`refusal`](Self::refusal) on a host that may hold lazy ends not yet
    /// cleared, judged on its tags at `now` (which only application
    /// requirements read of them).
    #[inline]
    pub(crate) fn refusal_at(
        &self,
        now: SimTime,
        defs: &EffectDefs,
        def: &EffectDef,
        spec_tags: &TagSet,
    ) -> Option<BlockReason> {
        if def.application_requirements.is_empty() || !self.lazy_ends_due(now) {
            return self.refusal(defs, def, spec_tags);
        }
        self.refusal_given(self.tags(defs, now).tags(), defs, def, spec_tags)
    }

    /// [`refusal`](Self::refusal) with the owned tags given. The life
    /// rule reads the host's own: no effect granting a tag it reacts to
    /// ends lazily, so those counts are exact at any instant.
    #[inline]
    fn refusal_given(
        &self,
        owned: &TagSet,
        defs: &EffectDefs,
        def: &EffectDef,
        spec_tags: &TagSet,
    ) -> Option<BlockReason> {
        if !def.application_requirements.matches(owned) {
            return Some(BlockReason::Requirements);
        }
        if !def.affects_dead && self.is_dead(defs) {
            return Some(BlockReason::Dead);
        }
        if self.watched.is_empty() {
            return None;
        }
        self.immunity_against(defs, def, spec_tags)
            .map(|by| BlockReason::Immune { by })
    }

    /// An active, uninhibited effect whose immunity query matches the
    /// incoming effect's asset tags plus the spec's tags.
    #[inline(never)]
    fn immunity_against(
        &self,
        defs: &EffectDefs,
        incoming: &EffectDef,
        spec_tags: &TagSet,
    ) -> Option<EffectId> {
        let mut described: Option<TagSet> = None;
        for effect in self.watched_effects() {
            if effect.inhibited {
                continue;
            }
            let Some(immunity) = &defs.def(effect.def).immunity else {
                continue;
            };
            let tags = described.get_or_insert_with(|| {
                let mut tags = incoming.asset_tags.clone();
                tags.extend_from(spec_tags);
                tags
            });
            if immunity.matches(tags) {
                return Some(effect.def);
            }
        }
        None
    }

    /// Every magnitude of `spec` for one stack, and its duration (`None`
    /// when infinite or instant), without changing anything: what an
    /// application would compute, or the error it would fail with.
    pub(crate) fn evaluate_spec(
        &self,
        names: Defs<'_>,
        def: &EffectDef,
        spec: &EffectSpec,
        captures: &Captures,
    ) -> Result<(SmallVec<[f64; 2]>, Option<SimDuration>), EffectError> {
        // A loop rather than `collect::<Result<_, _>>()`: built without
        // cross-crate LTO (a game's default release profile) that collect
        // stays out of line and cost 2.4 % of an attack.
        let mut magnitudes = SmallVec::new();
        for modifier in &def.modifiers {
            magnitudes.push(self.evaluate(names, &modifier.magnitude, spec, captures)?);
        }
        Ok((
            magnitudes,
            self.evaluate_duration(names, def, spec, captures)?,
        ))
    }

    /// The window of [`evaluate_spec`](Self::evaluate_spec) alone: all an
    /// effect without modifiers (one that ends lazily) evaluates.
    // Always inlined: every swing evaluates a cooldown's window and every
    // hit two combat marks', and out of line the call's set-up cost a
    // fifth of the evaluation.
    #[inline(always)]
    pub(crate) fn evaluate_duration(
        &self,
        names: Defs<'_>,
        def: &EffectDef,
        spec: &EffectSpec,
        captures: &Captures,
    ) -> Result<Option<SimDuration>, EffectError> {
        let DurationPolicy::Duration(m) = &def.duration else {
            return Ok(None);
        };
        let secs = self.evaluate(names, m, spec, captures)?;
        SimDuration::from_secs_f64(secs)
            .map(Some)
            .map_err(|_| EffectError::BadDuration {
                effect: names.effect(spec.effect),
                seconds: secs,
            })
    }

    /// One magnitude for one stack.
    // Inlined for the magnitudes nearly every application has (a constant,
    // a SetByCaller value found and finite: every cooldown's and combat
    // mark's duration); the rest, and every error, out of line.
    #[inline]
    fn evaluate(
        &self,
        names: Defs<'_>,
        magnitude: &Magnitude,
        spec: &EffectSpec,
        captures: &Captures,
    ) -> Result<f64, EffectError> {
        let plain = match magnitude {
            Magnitude::Constant(value) => Some(*value),
            Magnitude::SetByCaller(key) => spec.set_by_caller(*key).ok(),
            _ => None,
        };
        match plain {
            Some(value) if value.is_finite() => Ok(value),
            _ => self.evaluate_fully(names, magnitude, spec, captures),
        }
    }

    /// [`evaluate`](Self::evaluate) for every kind of magnitude, with its
    /// errors.
    #[inline(never)]
    fn evaluate_fully(
        &self,
        names: Defs<'_>,
        magnitude: &Magnitude,
        spec: &EffectSpec,
        captures: &Captures,
    ) -> Result<f64, EffectError> {
        let value = match magnitude {
            Magnitude::Constant(value) => *value,
            Magnitude::Scaled(table) => {
                let level = spec.level.max(1) as usize;
                table[level.min(table.len()) - 1]
            }
            Magnitude::SetByCaller(key) => {
                spec.set_by_caller(*key).map_err(|error| match error {
                    SetByCallerError::Missing(key) => EffectError::MissingSetByCaller {
                        effect: names.effect(spec.effect),
                        key: names.tag(key),
                    },
                    SetByCallerError::Ambiguous(key) => EffectError::AmbiguousSetByCaller {
                        effect: names.effect(spec.effect),
                        key: names.tag(key),
                    },
                })?
            }
            Magnitude::Attribute(capture) => {
                let value = match capture.from {
                    CaptureFrom::Target => self.attributes.current(capture.attribute),
                    CaptureFrom::Source => captures
                        .iter()
                        .find(|(from, a, _)| {
                            *from == CaptureFrom::Source && *a == capture.attribute
                        })
                        .map(|(_, _, v)| *v)
                        .ok_or_else(|| EffectError::SourceUnavailable {
                            effect: names.effect(spec.effect),
                        })?,
                };
                capture.apply(value)
            }
            Magnitude::Custom(id) => {
                let registered = names.calcs.magnitude_def(*id);
                let cx = MagnitudeCx {
                    spec,
                    values: CaptureValues {
                        defs: &registered.captures,
                        stored: captures,
                        target: &self.attributes,
                        target_now: true,
                    },
                };
                let value = registered.calculation.magnitude(&cx);
                if !value.is_finite() {
                    return Err(EffectError::CalculationFailed {
                        effect: names.effect(spec.effect),
                        calculation: names.calcs.magnitude_name(*id).to_owned(),
                        value,
                    });
                }
                value
            }
        };
        if value.is_finite() {
            Ok(value)
        } else {
            Err(EffectError::NotFinite {
                effect: names.effect(spec.effect),
                value,
            })
        }
    }

    // ------------------------------------------------------------ add / stack

    /// The active instance `spec` would stack onto at `now` (one that
    /// ended lazily is not there to stack onto).
    fn existing_stack(
        &self,
        def: &EffectDef,
        spec: &EffectSpec,
        now: SimTime,
    ) -> Option<EffectKey> {
        let stacking = def.stacking?;
        self.effects
            .iter()
            .find(|(_, e)| {
                e.def == spec.effect
                    && (stacking.by == StackBy::Target || e.source == spec.source)
                    && !e.has_ended(now)
            })
            .map(|(k, _)| k)
    }

    fn add_active<P: From<EffectTimer>>(
        &mut self,
        cx: &mut EffectCx<P>,
        def: &EffectDef,
        spec: EffectSpec,
        duration: Option<SimDuration>,
        magnitudes: SmallVec<[f64; 2]>,
        captures: Captures,
    ) -> EffectKey {
        let source = spec.source;
        let effect_id = spec.effect;
        let key = self.effects.insert(ActiveEffect::new(
            spec,
            cx.now,
            duration,
            &magnitudes,
            captures,
        ));
        let lazy = def.ends_lazily();
        if lazy {
            self.note_lazy_end(cx, key, None);
            if !cx.watched {
                self.start_unseen(def, key);
                return key;
            }
        } else {
            arm_expiry(&mut self.effects[key], &mut self.expiry, cx, key);
        }
        if def.is_watched() {
            self.watched.insert(key);
        }
        let entity = cx.entity;
        let effect = &mut self.effects[key];
        if let Some(period) = def.period {
            effect.set_next_period(cx.now + period.interval);
            arm_period(effect, cx, key);
        }
        cx.trace.record_with(cx.now, TraceCategory::EFFECTS, || {
            TraceKind::EffectApplied {
                target: entity,
                source,
                effect: effect_id,
                stacks: 1,
                duration,
            }
        });
        if def.ongoing_requirements.matches(self.tags.tags()) {
            self.set_inhibited(cx, key, false);
        }
        let effect = &self.effects[key];
        self.fire_cues(cx, def, CueEvent::Add, effect, effect.cue_magnitude());
        if def.period.is_some_and(|p| p.execute_on_application) {
            self.execute_period(cx, key);
        }
        key
    }

    /// The rest of [`add_active`](Self::add_active) for an effect that
    /// [ends lazily](EffectDef::ends_lazily) on a host nothing watches:
    /// its tags, as the long path leaves them, without the notes, records
    /// and checks nothing here would read (no trace, observer or wait
    /// looks, no rule reacts to its tags; the definition has no period,
    /// cue, modifier, granted ability or watched query).
    fn start_unseen(&mut self, def: &EffectDef, key: EffectKey) {
        // No ongoing requirements: uninhibited from the start.
        self.effects[key].inhibited = false;
        self.grant_unseen(def);
    }

    /// Adds a reference to each tag `def` grants, with no notes or
    /// records: how an effect nobody watches begin takes its tags.
    #[inline]
    pub(super) fn grant_unseen(&mut self, def: &EffectDef) {
        for tag in def.granted_tags.iter() {
            self.tags.add(tag);
        }
    }

    /// [`apply`](Self::apply) of an effect that
    /// [refreshes at its limit](EffectDef::refreshes_at_limit), when the
    /// host holds a full stack of it that `spec` re-applies and nothing
    /// refuses it: the same checks and the same re-application, without
    /// the rest of the full path's steps, none of which could act on such
    /// a spec. `None`, having changed nothing, whenever that is not so (no
    /// such stack, a stack below its limit, a refusal, a spec that fails to
    /// evaluate): the full path then gives the outcome or the error.
    pub(crate) fn refresh_at_limit<P: From<EffectTimer>>(
        &mut self,
        cx: &mut EffectCx<P>,
        spec: &EffectSpec,
    ) -> Option<(EffectKey, u32)> {
        let (key, duration) = self.full_stack_to_refresh(Defs::of(cx), cx.now, spec)?;
        Some((key, self.reapply(cx, key, spec, duration)))
    }

    /// [`refresh_at_limit`](Self::refresh_at_limit) of an effect that
    /// [ends lazily](EffectDef::ends_lazily), on a host nothing watches (a
    /// combat mark refreshed by a hit): all a re-application does there is
    /// restart the window (a full stack keeps its count, no timer follows
    /// the end, no record is wanted), so that is all this does.
    pub(crate) fn refresh_lazily(
        &mut self,
        names: Defs<'_>,
        now: SimTime,
        spec: &EffectSpec,
    ) -> Option<(EffectKey, u32)> {
        debug_assert!(names.effects.def(spec.effect).ends_lazily());
        let (key, duration) = self.full_stack_to_refresh(names, now, spec)?;
        self.unindex_lazy_end(key);
        let effect = &mut self.effects[key];
        effect.restart(now, duration);
        let stacks = effect.stacks;
        self.index_lazy_end(key);
        Some((key, stacks))
    }

    /// The full stack `spec` would refresh at `now`, with the window it
    /// would restart: `None` when there is none, it is below its limit, a
    /// check refuses or the spec fails to evaluate.
    fn full_stack_to_refresh(
        &self,
        names: Defs<'_>,
        now: SimTime,
        spec: &EffectSpec,
    ) -> Option<(EffectKey, Option<SimDuration>)> {
        let def = names.effects.def(spec.effect);
        debug_assert!(def.refreshes_at_limit());
        let key = self.existing_stack(def, spec, now)?;
        if self.effects[key].stacks < def.stacking?.limit
            || self
                .refusal_at(now, names.effects, def, &spec.tags)
                .is_some()
        {
            return None;
        }
        // The magnitudes are evaluated for their errors, as the full path
        // does (one that ends lazily has none); a full stack keeps the ones
        // it holds.
        let duration = if def.modifiers.is_empty() {
            self.evaluate_duration(names, def, spec, &Captures::new())
        } else {
            self.evaluate_spec(names, def, spec, &Captures::new())
                .map(|(_, duration)| duration)
        };
        Some((key, duration.ok()?))
    }

    /// Re-application of an existing stack; returns the new stack count.
    fn reapply<P: From<EffectTimer>>(
        &mut self,
        cx: &mut EffectCx<P>,
        key: EffectKey,
        spec: &EffectSpec,
        duration: Option<SimDuration>,
    ) -> u32 {
        let def = cx.defs.def(spec.effect);
        let stacking = def.stacking.expect("only stacking effects are re-applied");
        let entity = cx.entity;
        let effect = &mut self.effects[key];
        let before = effect.stacks;
        effect.stacks = (effect.stacks + 1).min(stacking.limit);
        let stacks = effect.stacks;
        if stacking.duration == DurationOnReapply::Refresh {
            if effect.ends_lazily() {
                let before = effect.expires_at();
                self.unindex_lazy_end(key);
                self.effects[key].restart(cx.now, duration);
                self.note_lazy_end(cx, key, Some(before));
            } else {
                effect.restart(cx.now, duration);
                arm_expiry(effect, &mut self.expiry, cx, key);
            }
        }
        let effect = &mut self.effects[key];
        if let (Some(period), PeriodOnReapply::Reset) = (def.period, stacking.period) {
            if let Some(timer) = effect.take_period_timer() {
                cx.timers.cancel(timer);
            }
            effect.set_next_period(cx.now + period.interval);
        }
        // A longer window may make room for a tick that had none.
        arm_period(effect, cx, key);
        let duration = effect.duration();
        if stacks != before {
            self.restack(cx, key);
        }
        cx.trace.record_with(cx.now, TraceCategory::EFFECTS, || {
            TraceKind::EffectApplied {
                target: entity,
                source: spec.source,
                effect: spec.effect,
                stacks,
                duration,
            }
        });
        stacks
    }

    /// Re-adds an active effect's modifiers after its stack count changed.
    fn restack<P>(&mut self, cx: &mut EffectCx<P>, key: EffectKey) {
        let effect = &self.effects[key];
        if effect.inhibited || !cx.defs.def(effect.def).holds_modifiers() {
            return;
        }
        let changes = self.attributes.remove_modifiers(cx.schema, key.source_id());
        self.note_changes(&changes, cx.schema, cx.now, cx.trace, cx.entity);
        self.add_held_modifiers(cx, key);
    }

    /// Adds an active effect's modifiers to the aggregator, if it
    /// [holds any](EffectDef::holds_modifiers). That answer is inlined
    /// into every caller (most effects that come and go hold none), the
    /// adding is not.
    #[inline]
    fn add_modifiers<P>(&mut self, cx: &mut EffectCx<P>, key: EffectKey) {
        if cx.defs.def(self.effects[key].def).holds_modifiers() {
            self.add_held_modifiers(cx, key);
        }
    }

    /// [`add_modifiers`](Self::add_modifiers) for an effect that holds some.
    #[inline(never)]
    fn add_held_modifiers<P>(&mut self, cx: &mut EffectCx<P>, key: EffectKey) {
        let effect = &self.effects[key];
        let def = cx.defs.def(effect.def);
        let stacks = f64::from(effect.stacks);
        let mut all = AttributeChanges::new();
        for (modifier, &magnitude) in def.modifiers.iter().zip(effect.magnitudes()) {
            if let Ok(changes) = self.attributes.add_modifier(
                cx.schema,
                modifier.attribute,
                modifier.op,
                magnitude * stacks,
                key.source_id(),
            ) {
                all.extend(changes);
            }
        }
        self.note_changes(&all, cx.schema, cx.now, cx.trace, cx.entity);
    }

    /// Starts or stops an effect's modifiers and granted tags.
    pub(crate) fn set_inhibited<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        key: EffectKey,
        inhibited: bool,
    ) {
        let effect = &mut self.effects[key];
        if effect.inhibited == inhibited {
            return;
        }
        effect.inhibited = inhibited;
        let def_id = effect.def;
        let def = cx.defs.def(def_id);
        if inhibited {
            if def.holds_modifiers() {
                let changes = self.attributes.remove_modifiers(cx.schema, key.source_id());
                self.note_changes(&changes, cx.schema, cx.now, cx.trace, cx.entity);
            }
            // The tags were granted when the effect became uninhibited.
            let _ = self.release_tags(&def.granted_tags, &mut TagLog::of(cx));
        } else {
            self.add_modifiers(cx, key);
            self.grant_tags(&def.granted_tags, &mut TagLog::of(cx));
        }
        if !def.granted_abilities.is_empty() {
            let level = self.effects[key].level;
            cx.follow_ups.push_back((
                cx.entity,
                FollowUp::Grants {
                    effect: def_id,
                    level,
                    grant: !inhibited,
                },
            ));
        }
    }

    // ------------------------------------------------------------ time

    /// The expiry timer fired. A periodic tick due at this very instant
    /// still runs first (Unreal parity).
    pub(crate) fn on_expire<P: From<EffectTimer>>(&mut self, cx: &mut EffectCx<P>, key: EffectKey) {
        let Some(effect) = self.effects.get_mut(key) else {
            return;
        };
        // The timer that fired is spent.
        self.expiry.take(key);
        effect.note_expiry_timer(false);
        if effect.expires_at() > cx.now {
            // Refreshed since this timer was set: follow the expiry.
            arm_expiry(effect, &mut self.expiry, cx, key);
            return;
        }
        // The tick due now runs here, before the removal; its own timer (in
        // a later lane at this instant) is cancelled so it runs once.
        if effect.next_period() <= cx.now {
            if let Some(timer) = effect.take_period_timer() {
                cx.timers.cancel(timer);
                self.tick(cx, key);
            }
        }
        let effect = &mut self.effects[key];
        let def = cx.defs.def(effect.def);
        let remove_one = def
            .stacking
            .is_some_and(|s| s.on_expiry == StackExpiry::RemoveOneAndRefresh);
        if remove_one && effect.stacks > 1 {
            effect.stacks -= 1;
            effect.started = cx.now;
            arm_expiry(effect, &mut self.expiry, cx, key);
            // The tick just run could not see the new window: follow it.
            arm_period(effect, cx, key);
            let (effect, stacks) = (effect.def, effect.stacks);
            cx.trace.record(
                cx.now,
                TraceKind::EffectStacksChanged {
                    target: cx.entity,
                    effect,
                    stacks,
                },
            );
            self.restack(cx, key);
            return;
        }
        self.remove(cx, key, RemovalReason::Expired);
    }

    /// The period timer fired: execute (unless inhibited) and reschedule.
    pub(crate) fn on_period<P: From<EffectTimer>>(&mut self, cx: &mut EffectCx<P>, key: EffectKey) {
        if let Some(effect) = self.effects.get_mut(key) {
            effect.take_period_timer();
            self.tick(cx, key);
        }
    }

    /// One periodic tick: execute, then schedule the next one (never past
    /// the expiry).
    fn tick<P: From<EffectTimer>>(&mut self, cx: &mut EffectCx<P>, key: EffectKey) {
        let Some(period) = cx.defs.def(self.effects[key].def).period else {
            return;
        };
        self.execute_period(cx, key);
        let effect = &mut self.effects[key];
        effect.set_next_period(cx.now + period.interval);
        arm_period(effect, cx, key);
    }

    /// One periodic execution, handed to the context's post-execute step
    /// (`cx.executed`); a calculation that fails is recorded and the tick
    /// passes.
    fn execute_period<P>(&mut self, cx: &mut EffectCx<P>, key: EffectKey) {
        let effect = &self.effects[key];
        let def = cx.defs.def(effect.def);
        // Inhibited, or paused on a dead owner: the tick passes unexecuted.
        if effect.inhibited || (!def.affects_dead && self.is_dead(cx.defs)) {
            return;
        }
        let spec = effect.spec();
        let magnitudes: SmallVec<[f64; 2]> = SmallVec::from_slice(effect.magnitudes());
        let stacks = effect.stacks;
        let mut captures = Captures::from_slice(effect.captures());
        // Live source captures read fresh values for this tick.
        for &(from, attribute, value) in &cx.live_sources {
            if let Some(slot) = captures
                .iter_mut()
                .find(|(f, a, _)| *f == from && *a == attribute)
            {
                slot.2 = value;
            }
        }
        let effect_id = spec.effect;
        if let Err(error) = self.execute(cx, def, spec, &magnitudes, stacks, &captures) {
            cx.trace.record(
                cx.now,
                TraceKind::EffectFailed {
                    target: cx.entity,
                    effect: effect_id,
                    error,
                },
            );
        }
    }

    // ------------------------------------------------------------ removal

    /// Removes an active effect; returns `false` if it was not active.
    pub(crate) fn remove<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        key: EffectKey,
        reason: RemovalReason,
    ) -> bool {
        let Some(effect) = self.effects.get(key) else {
            return false;
        };
        if !effect.inhibited {
            self.set_inhibited(cx, key, true);
        }
        // Everything that reads the effect runs while it is still in its
        // slot; then it is dropped there (moving an effect out just to drop
        // it was a cold copy per removal).
        let effect = &self.effects[key];
        if effect.holds_expiry_timer() {
            if let Some(expiry) = self.expiry.take(key) {
                cx.timers.cancel(expiry.timer);
            }
        }
        if let Some(timer) = effect.period_timer() {
            cx.timers.cancel(timer);
        }
        let target = cx.entity;
        cx.trace.record_with(cx.now, TraceCategory::EFFECTS, || {
            TraceKind::EffectRemoved {
                target,
                effect: effect.def,
                reason,
            }
        });
        let def = cx.defs.def(effect.def);
        self.fire_cues(cx, def, CueEvent::Remove, effect, effect.cue_magnitude());
        let next = match reason {
            RemovalReason::Expired => &def.on_expiry,
            _ => &def.on_removal,
        };
        if !next.is_empty() {
            queue_follow_ons(cx, next, &effect.spec());
        }
        let lazy = effect.ends_lazily();
        self.unindex_lazy_end(key);
        self.effects.discard(key);
        if lazy {
            // It may have been the first lazy end: reads and catch-ups
            // after it need not look for ended ones.
            self.settle_lazy_due();
        }
        self.watched.remove(key);
        self.effect_ended = true;
        true
    }

    /// Removes every active effect `select` picks; returns how many.
    pub(crate) fn remove_where<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        reason: RemovalReason,
        mut select: impl FnMut(&EffectDef, &ActiveEffect) -> bool,
    ) -> usize {
        let doomed: SmallVec<[EffectKey; 4]> = self
            .effects
            .iter()
            .filter(|(_, e)| select(cx.defs.def(e.def), e))
            .map(|(k, _)| k)
            .collect();
        doomed
            .iter()
            .filter(|&&key| self.remove(cx, key, reason))
            .count()
    }

    /// Applies `effect`'s `remove_effects_with_tags` to the other active effects.
    // Most effects remove nothing: that answer is inlined into every
    // application, the removal is not.
    #[inline]
    fn remove_tagged_by<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        effect: EffectId,
        keep: Option<EffectKey>,
    ) {
        if !cx.defs.def(effect).remove_effects_with_tags.is_empty() {
            self.remove_effects_tagged_by(cx, effect, keep);
        }
    }

    /// [`remove_tagged_by`](Self::remove_tagged_by) for an effect that
    /// names tags to remove.
    #[inline(never)]
    fn remove_effects_tagged_by<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        effect: EffectId,
        keep: Option<EffectKey>,
    ) {
        let doomed_tags = &cx.defs.def(effect).remove_effects_with_tags;
        let mut keys: SmallVec<[EffectKey; 4]> = SmallVec::new();
        for (key, active) in self.effects.iter() {
            let def = cx.defs.def(active.def);
            if Some(key) != keep
                && (def.asset_tags.has_any(doomed_tags) || def.granted_tags.has_any(doomed_tags))
            {
                keys.push(key);
            }
        }
        for key in keys {
            self.remove(cx, key, RemovalReason::RemovedBy(effect));
        }
    }

    // ------------------------------------------------------------ reconcile

    /// Brings every effect's inhibition in line with its ongoing
    /// requirements, repeating until nothing changes (inhibiting one effect
    /// can release tags another depends on).
    pub(crate) fn reconcile_inhibition<P>(&mut self, cx: &mut EffectCx<P>) {
        for _ in 0..=self.effects.len() {
            let mut flip: Option<(EffectKey, bool)> = None;
            for &key in self.watched.as_slice() {
                let effect = &self.effects[key];
                let def = cx.defs.def(effect.def);
                if def.ongoing_requirements.is_empty() {
                    continue;
                }
                let should_inhibit = !def.ongoing_requirements.matches(self.tags.tags());
                if should_inhibit != effect.inhibited {
                    flip = Some((key, should_inhibit));
                    break;
                }
            }
            let Some((key, inhibit)) = flip else {
                return;
            };
            let def = self.effects[key].def;
            self.set_inhibited(cx, key, inhibit);
            cx.trace.record(
                cx.now,
                TraceKind::EffectInhibited {
                    target: cx.entity,
                    effect: def,
                    inhibited: inhibit,
                },
            );
        }
    }

    /// Applies the `life` rule's `Remove` policy: a dead owner loses its
    /// periodic effects (those without `affects_dead`).
    pub(crate) fn reconcile_life<P>(&mut self, cx: &mut EffectCx<P>) {
        let life = cx.defs.life();
        if life.periodic != PeriodicWhileDead::Remove || !self.is_dead(cx.defs) {
            return;
        }
        self.remove_where(cx, RemovalReason::OwnerDied, |def, _| {
            def.period.is_some() && !def.affects_dead
        });
    }

    /// Re-reads live attribute captures and updates the modifiers of the
    /// effects whose magnitude moved. `source_value` reads another entity.
    pub(crate) fn refresh_live<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        source_value: impl Fn(Entity, AttributeId) -> Option<f64>,
    ) {
        let keys: SmallVec<[EffectKey; 4]> = self
            .watched
            .as_slice()
            .iter()
            .copied()
            .filter(|&k| cx.defs.def(self.effects[k].def).has_live_capture)
            .collect();
        for key in keys {
            let effect = &self.effects[key];
            let def = cx.defs.def(effect.def);
            let mut magnitudes: SmallVec<[f64; 2]> = SmallVec::from_slice(effect.magnitudes());
            for (slot, modifier) in magnitudes.iter_mut().zip(&def.modifiers) {
                let Magnitude::Attribute(capture) = modifier.magnitude else {
                    continue;
                };
                if !capture.live {
                    continue;
                }
                let value = match capture.from {
                    CaptureFrom::Target => Some(self.attributes.current(capture.attribute)),
                    CaptureFrom::Source => effect
                        .source
                        .and_then(|s| source_value(s, capture.attribute)),
                };
                // A vanished source keeps the last value it gave.
                if let Some(value) = value.map(|v| capture.apply(v)).filter(|v| v.is_finite()) {
                    *slot = value;
                }
            }
            if magnitudes.as_slice() != effect.magnitudes() {
                self.effects[key]
                    .magnitudes_mut()
                    .copy_from_slice(&magnitudes);
                self.restack(cx, key);
            }
        }
    }

    /// The entities whose attributes this host's live effects read.
    pub(crate) fn live_sources(&self, defs: &EffectDefs) -> SmallVec<[Entity; 2]> {
        let mut sources = SmallVec::new();
        for effect in self.watched_effects() {
            let def = defs.def(effect.def);
            let reads_source = def
                .modifiers
                .iter()
                .any(|m| matches!(m.magnitude, Magnitude::Attribute(c) if c.live && c.from == CaptureFrom::Source));
            if let (true, Some(source)) = (reads_source, effect.source) {
                if !sources.contains(&source) {
                    sources.push(source);
                }
            }
        }
        sources
    }
}

/// Schedules a periodic effect's next tick, unless one is pending or it
/// would fall after the expiry (a tick after expiry never happens).
fn arm_period<P: From<EffectTimer>>(
    effect: &mut ActiveEffect,
    cx: &mut EffectCx<P>,
    key: EffectKey,
) {
    let periodic = cx.defs.def(effect.def).period.is_some();
    // A tick that would land at the end of time (the clock saturated) never
    // comes: at `SimTime::MAX` it would re-arm itself at the same instant.
    let next = effect.next_period();
    let due = next <= effect.expires_at() && next < SimTime::MAX;
    if periodic && effect.period_timer().is_none() && due {
        let entity = cx.entity;
        let timer = cx
            .timers
            .schedule(next, EffectTimer::Period { entity, key }.into());
        effect.set_period_timer(timer);
    }
}

/// Makes sure an expiry timer fires no later than the effect's expiry. A
/// pending timer that fires earlier is kept (it re-arms when it fires), so
/// refreshing an effect every hit costs no timer work; only an expiry moved
/// earlier replaces the timer.
// Inlined to its test for a pending timer that fires in time (every
// refresh of a combat mark); arming and cancelling out of line.
#[inline]
fn arm_expiry<P: From<EffectTimer>>(
    effect: &mut ActiveEffect,
    timers: &mut ExpiryTimers,
    cx: &mut EffectCx<P>,
    key: EffectKey,
) {
    if effect.duration().is_some()
        && effect.holds_expiry_timer()
        && timers
            .get(key)
            .is_some_and(|pending| pending.at <= effect.expires_at())
    {
        return;
    }
    rearm_expiry(effect, timers, cx, key);
}

/// [`arm_expiry`] when the timer must change: cancelled for an effect
/// with no end, scheduled (in place of a later one) for one with an end.
#[inline(never)]
fn rearm_expiry<P: From<EffectTimer>>(
    effect: &mut ActiveEffect,
    timers: &mut ExpiryTimers,
    cx: &mut EffectCx<P>,
    key: EffectKey,
) {
    if effect.duration().is_none() {
        if effect.holds_expiry_timer() {
            if let Some(pending) = timers.take(key) {
                cx.timers.cancel(pending.timer);
            }
            effect.note_expiry_timer(false);
        }
        return;
    }
    let at = effect.expires_at();
    let entry = timers.entry(key);
    if let Some(pending) = entry.take() {
        cx.timers.cancel(pending.timer);
    }
    let entity = cx.entity;
    let timer = cx
        .timers
        .schedule_in(at, Lane::Expiry, EffectTimer::Expire { entity, key }.into());
    *entry = Some(ExpiryTimer { timer, at });
    effect.note_expiry_timer(true);
}

/// Queues the effects an ended effect names (`on_expiry`, `on_removal`).
#[cold]
#[inline(never)]
fn queue_follow_ons<P>(cx: &mut EffectCx<P>, effects: &[EffectId], spec: &EffectSpec) {
    let entity = cx.entity;
    cx.follow_ups.extend(
        effects
            .iter()
            .map(|&id| (entity, FollowUp::Apply(spec.follow_on(id)))),
    );
}

/// The slot an effect key names (its position in a scan of the host's
/// effects).
pub(super) fn slot_of(key: EffectKey) -> u32 {
    // The low half of a slot-map key is its slot index.
    key.data().as_ffi() as u32
}
