//! Time on an [`EffectHost`]'s effects: expiry, periodic ticks, and the
//! timers that schedule them.

use smallvec::SmallVec;

use super::active::{ActiveEffect, Captures, EffectKey};
use super::aside::HostAside;
use super::calculation::TargetRead;
use super::cx::{Defs, EffectCx};
use super::data::StackExpiry;
use super::def::Magnitude;
use super::expiry::ExpiryTimer;
use super::host::{EffectHost, EffectTimer};
use crate::time::{Lane, SimTime};
use crate::trace::{RemovalReason, TraceKind};

impl EffectHost {
    /// The expiry timer fired. A periodic tick due at this very instant
    /// still runs first (Unreal parity).
    pub(crate) fn on_expire<P: From<EffectTimer>>(&mut self, cx: &mut EffectCx<P>, key: EffectKey) {
        let Some(effect) = self.effects.get_mut(key) else {
            return;
        };
        // The timer that fired is spent.
        self.aside.take_expiry(key);
        effect.note_expiry_timer(false);
        if effect.expires_at() > cx.now {
            // Refreshed since this timer was set: follow the expiry.
            arm_expiry(effect, &mut self.aside, cx, key);
            return;
        }
        // The tick due now runs here, before the removal; its own timer (in
        // a later lane at this instant) is cancelled so it runs once. It
        // runs among the instant's ends, before the reconcile, so an end
        // before it may have moved a tag its ongoing requirements read:
        // its inhibition follows them first, as the reconcile would have
        // it before a longer effect's tick at this instant, and as Unreal's
        // inhibition, which follows each tag change at once, has it (a
        // stop plays its remove cues and skips the tick; a start plays its
        // add cues and ticks).
        if effect.next_period() <= cx.now {
            if let Some(timer) = effect.take_period_timer() {
                cx.timers.cancel(timer);
                if let Some(inhibit) = self.inhibition_due(cx.defs, key) {
                    self.change_inhibition(cx, key, inhibit);
                }
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
            arm_expiry(effect, &mut self.aside, cx, key);
            // The tick just run could not see the new window: follow it.
            arm_period(effect, cx, key);
            let (effect, stacks) = (effect.def, u32::from(effect.stacks));
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
    pub(super) fn execute_period<P>(&mut self, cx: &mut EffectCx<P>, key: EffectKey) {
        let effect = &self.effects[key];
        let def = cx.defs.def(effect.def);
        // Inhibited, or paused on a dead owner: the tick passes unexecuted.
        if effect.inhibited || (!def.affects_dead && self.is_dead(cx.defs)) {
            return;
        }
        let spec = effect.spec();
        let mut magnitudes: SmallVec<[f64; 2]> = SmallVec::from_slice(effect.magnitudes());
        let stacks = u32::from(effect.stacks);
        let mut captures = Captures::from_slice(effect.captures());
        // Live source captures read fresh values for this tick.
        for &(from, attribute, value) in &cx.live_source_values {
            if let Some(slot) = captures
                .iter_mut()
                .find(|(f, a, _)| *f == from && *a == attribute)
            {
                slot.2 = value;
            }
        }
        let effect_id = spec.effect;
        let mut outcome = Ok(());
        // Custom magnitudes are worked out again for each execution, from
        // what they capture live and what they captured at application.
        if def.custom_modifiers {
            for (slot, modifier) in magnitudes.iter_mut().zip(&def.modifiers) {
                if let Magnitude::Custom(id) = modifier.magnitude {
                    match self.custom_magnitude(
                        Defs::of(cx),
                        id,
                        &spec,
                        &captures,
                        false,
                        TargetRead::PLAIN,
                    ) {
                        Ok(value) => *slot = value,
                        Err(error) => outcome = Err(error),
                    }
                }
            }
        }
        let outcome =
            outcome.and_then(|()| self.execute(cx, def, spec, &magnitudes, stacks, &captures));
        if let Err(error) = outcome {
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
}

/// Schedules a periodic effect's next tick, unless one is pending or it
/// would fall after the expiry (a tick after expiry never happens).
pub(super) fn arm_period<P: From<EffectTimer>>(
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
pub(super) fn arm_expiry<P: From<EffectTimer>>(
    effect: &mut ActiveEffect,
    aside: &mut HostAside,
    cx: &mut EffectCx<P>,
    key: EffectKey,
) {
    if effect.duration().is_some()
        && effect.holds_expiry_timer()
        && aside
            .expiry()
            .get(key)
            .is_some_and(|pending| pending.at <= effect.expires_at())
    {
        return;
    }
    rearm_expiry(effect, aside, cx, key);
}

/// [`arm_expiry`] when the timer must change: cancelled for an effect
/// with no end, scheduled (in place of a later one) for one with an end.
#[inline(never)]
fn rearm_expiry<P: From<EffectTimer>>(
    effect: &mut ActiveEffect,
    aside: &mut HostAside,
    cx: &mut EffectCx<P>,
    key: EffectKey,
) {
    if effect.duration().is_none() {
        if effect.holds_expiry_timer() {
            if let Some(pending) = aside.take_expiry(key) {
                cx.timers.cancel(pending.timer);
            }
            effect.note_expiry_timer(false);
        }
        return;
    }
    let at = effect.expires_at();
    let entry = aside.expiry_mut().entry(key);
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
