//! A new active instance on an [`EffectHost`], or a re-application onto
//! one already there: stacking, the refresh of a full stack, and the
//! modifiers a stack holds.

use smallvec::SmallVec;

use super::active::{ActiveEffect, Captures, EffectKey};
use super::calculation::TargetRead;
use super::cx::{Defs, EffectCx, FollowUp};
use super::data::{CueEvent, DurationOnReapply, PeriodOnReapply, StackBy};
use super::def::EffectDef;
use super::host::{EffectHost, EffectTimer};
use super::spec::EffectSpec;
use super::timed::{arm_expiry, arm_period};
use crate::attributes::{AttributeId, ModOp};
use crate::time::{SimDuration, SimTime};
use crate::trace::{RemovalReason, TraceCategory, TraceKind};

impl EffectHost {
    /// The active instance `spec` would stack onto at `now` (one that
    /// ended lazily is not there to stack onto).
    pub(super) fn existing_stack(
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

    pub(super) fn add_active<P: From<EffectTimer>>(
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
        // A window of no length ends at once, lazily or not: one that
        // ends on a timer is removed below, before anything reads it,
        // where a timer would have left it held until the next step.
        let ends_now = !lazy && duration == Some(SimDuration::ZERO);
        if lazy {
            self.note_lazy_end(cx, key, None);
            if !cx.watched {
                self.start_unseen(def, key);
                return key;
            }
        } else if !ends_now {
            arm_expiry(&mut self.effects[key], &mut self.aside, cx, key);
        }
        if def.listens() {
            self.aside.insert_listening(key);
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
        // Started, it plays its add cues; held back, it plays none until it
        // starts, and the trace says it is held back, so the `resumed`
        // that comes when it starts follows an `inhibited`.
        if def.ongoing_requirements.matches(self.tags.tags()) {
            self.set_inhibited(cx, key, false);
        } else {
            cx.trace.record(
                cx.now,
                TraceKind::EffectInhibited {
                    target: entity,
                    effect: effect_id,
                    inhibited: true,
                },
            );
        }
        if def.period.is_some_and(|p| p.execute_on_application) {
            self.execute_period(cx, key);
        }
        if ends_now {
            self.remove(cx, key, RemovalReason::Expired);
        }
        key
    }

    /// The rest of [`add_active`](Self::add_active) for an effect that
    /// [ends lazily](EffectDef::ends_lazily) on a host nothing watches:
    /// its tags, as the long path leaves them, without the notes, records
    /// and checks nothing here would read (no trace, observer or wait
    /// looks, no rule reacts to its tags; the definition has no period,
    /// cue, modifier, granted ability or listening query).
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
        let names = Defs::of(cx);
        let (key, def) = self.full_stack_to_refresh(names, cx.now, spec)?;
        // Such an effect reads no source; its custom magnitudes read the
        // target now, and keep what they capture of it for later, as the
        // full path's application does.
        // Read without the stack's own modifiers, as the full path reads.
        let read = TargetRead::onto(cx.schema, def, Some(key));
        let (magnitudes, duration) = self
            .evaluate_spec(names, def, spec, &Captures::new(), read)
            .ok()?;
        let mut captures = Captures::new();
        if def.custom_modifiers {
            self.capture_target(cx.calcs, def, read, &mut captures);
        }
        let stacks = self.reapply(cx, key, spec, (&magnitudes, captures), duration);
        Some((key, stacks))
    }

    /// [`refresh_at_limit`](Self::refresh_at_limit) of an effect that
    /// [ends lazily](EffectDef::ends_lazily), on a host nothing watches (a
    /// combat mark refreshed by a hit): all a re-application does there is
    /// take the spec and restart the window (a full stack keeps its count,
    /// no timer follows the end, no record is wanted), so that is all this
    /// does.
    pub(crate) fn refresh_lazily(
        &mut self,
        names: Defs<'_>,
        now: SimTime,
        spec: &EffectSpec,
    ) -> Option<(EffectKey, u32)> {
        let (key, def) = self.full_stack_to_refresh(names, now, spec)?;
        debug_assert!(def.ends_lazily());
        // No modifiers to evaluate: only the window.
        let duration = self
            .evaluate_duration(names, def, spec, &Captures::new(), TargetRead::PLAIN)
            .ok()?;
        self.unindex_lazy_end(key);
        let effect = &mut self.effects[key];
        effect.take_spec(spec, &[], Captures::new());
        effect.restart(now, duration);
        let stacks = u32::from(effect.stacks);
        self.index_lazy_end(key);
        Some((key, stacks))
    }

    /// The full stack `spec` would refresh at `now`, with its definition:
    /// `None` when there is none, it is below its limit or a check refuses.
    /// The caller evaluates the spec (and gives up, having changed
    /// nothing, if that fails).
    fn full_stack_to_refresh<'d>(
        &self,
        names: Defs<'d>,
        now: SimTime,
        spec: &EffectSpec,
    ) -> Option<(EffectKey, &'d EffectDef)> {
        let def = names.effects.def(spec.effect);
        debug_assert!(def.refreshes_at_limit());
        let key = self.existing_stack(def, spec, now)?;
        if u32::from(self.effects[key].stacks) < def.stacking?.limit
            || self
                .refusal_at(now, names.effects, def, &spec.tags)
                .is_some()
        {
            return None;
        }
        Some((key, def))
    }

    /// Re-application of an existing stack with `spec`, its evaluated
    /// magnitudes and its captures, which the stack takes (as Unreal's
    /// takes the newest spec); returns the new stack count.
    pub(super) fn reapply<P: From<EffectTimer>>(
        &mut self,
        cx: &mut EffectCx<P>,
        key: EffectKey,
        spec: &EffectSpec,
        (magnitudes, captures): (&[f64], Captures),
        duration: Option<SimDuration>,
    ) -> u32 {
        let def = cx.defs.def(spec.effect);
        let stacking = def.stacking.expect("only stacking effects are re-applied");
        let entity = cx.entity;
        let effect = &mut self.effects[key];
        let before = u32::from(effect.stacks);
        let moved = effect.magnitudes() != magnitudes;
        if u32::from(effect.level) != spec.level
            && !effect.inhibited
            && !def.granted_abilities.is_empty()
        {
            cx.follow_ups.push_back((
                entity,
                FollowUp::Relevel {
                    effect: spec.effect,
                    level: spec.level,
                },
            ));
        }
        effect.take_spec(spec, magnitudes, captures);
        // The limit is at most `MAX_STACKS` (a load error past it).
        let stacks = (u32::from(effect.stacks) + 1).min(stacking.limit);
        effect.stacks = u16::try_from(stacks).unwrap_or(u16::MAX);
        // A window of no length ends at once (see `add_active`): a stack
        // that ends on a timer is removed below, every stack of it, as the
        // zero windows its expiry would refresh one at a time would do.
        let mut ends_now = false;
        if stacking.duration == DurationOnReapply::Refresh {
            if effect.ends_lazily() {
                let before = effect.expires_at();
                self.unindex_lazy_end(key);
                self.effects[key].restart(cx.now, duration);
                self.note_lazy_end(cx, key, Some(before));
            } else {
                effect.restart(cx.now, duration);
                ends_now = duration == Some(SimDuration::ZERO);
                if !ends_now {
                    arm_expiry(effect, &mut self.aside, cx, key);
                }
            }
        }
        let effect = &mut self.effects[key];
        // A phase restarted by the re-application starts as the first one
        // did: with a tick at once when the period executes on
        // application (as Unreal's reset stack runs its first tick again).
        let mut tick_now = false;
        if let (Some(period), PeriodOnReapply::Reset) = (def.period, stacking.period) {
            if let Some(timer) = effect.take_period_timer() {
                cx.timers.cancel(timer);
            }
            effect.set_next_period(cx.now + period.interval);
            tick_now = period.execute_on_application;
        }
        // A longer window may make room for a tick that had none.
        arm_period(effect, cx, key);
        let duration = effect.duration();
        // Unreal moves a stack's held modifiers only when its count moves
        // (a full stack keeps the old magnitudes under the new spec);
        // here they always follow the spec the stack holds.
        if stacks != before || moved {
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
        // The stack plays its add cues again, with its new magnitude, as
        // Unreal's does: a started one only, as at its first application.
        let effect = &self.effects[key];
        if !stacking.suppress_cues && !effect.inhibited {
            self.fire_cues(cx, def, CueEvent::Add, effect, effect.cue_magnitude(def));
        }
        if tick_now {
            self.execute_period(cx, key);
        }
        if ends_now {
            self.remove(cx, key, RemovalReason::Expired);
        }
        stacks
    }

    /// Puts an active effect's modifiers at their new values after its
    /// stack count or a live magnitude changed, or all of them in place as
    /// it starts: replaced in one step, so nothing sees them part way (a
    /// `clamp_base` attribute bounded by what they change would be clamped
    /// to the bound halfway through, for good), and keeping their
    /// application order (an override stays where it was among the
    /// others; a source that held none adds them in its listing's order).
    pub(super) fn restack<P>(&mut self, cx: &mut EffectCx<P>, key: EffectKey) {
        let effect = &self.effects[key];
        let def = cx.defs.def(effect.def);
        if effect.inhibited || !def.holds_modifiers() {
            return;
        }
        let held = held_modifiers(def, effect);
        if let Ok(changes) = self
            .attributes
            .replace_modifiers(cx.schema, key.source_id(), &held)
        {
            self.note_changes(&changes, cx.schema, cx.now, cx.trace, cx.entity);
        }
    }
}

/// The modifiers `effect` holds, at its stack count ([`ModOp::stacked`]),
/// in its definition's order; a magnitude that is not finite holds none.
fn held_modifiers(
    def: &EffectDef,
    effect: &ActiveEffect,
) -> SmallVec<[(AttributeId, ModOp, f64); 4]> {
    def.modifiers
        .iter()
        .zip(effect.magnitudes())
        .map(|(m, &magnitude)| {
            let value = m.op.stacked(magnitude, u32::from(effect.stacks));
            (m.attribute, m.op, value)
        })
        .filter(|&(_, _, value)| value.is_finite())
        .collect()
}
