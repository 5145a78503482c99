//! Removing active effects from an [`EffectHost`]: one by key, those a
//! predicate picks, those another effect's tags name, and the follow-on
//! effects an ended one queues.

use smallvec::SmallVec;

use super::active::{ActiveEffect, EffectKey};
use super::cx::{EffectCx, FollowUp};
use super::data::CueEvent;
use super::def::{EffectDef, EffectId};
use super::host::EffectHost;
use super::spec::EffectSpec;
use crate::trace::{RemovalReason, TraceCategory, TraceKind};

impl EffectHost {
    /// Plays the remove cues of every started effect, for an owner that
    /// leaves the world with them (a despawn): what they showed (a burning
    /// glow) is told to stop, as their add cues were told to start.
    /// Nothing else of a removal happens: the owner and its state go.
    pub(crate) fn cue_departure<P>(&self, cx: &mut EffectCx<P>) {
        for effect in self.effects.values() {
            if effect.inhibited || effect.has_ended(cx.now) {
                continue;
            }
            let def = cx.defs.def(effect.def);
            self.fire_cues(cx, def, CueEvent::Remove, effect, effect.cue_magnitude(def));
        }
    }

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
        // An inhibited effect played its remove cues when it stopped.
        let was_active = !effect.inhibited;
        if was_active {
            self.switch_inhibited(cx, key, true);
        }
        // Everything that reads the effect runs while it is still in its
        // slot; then it is dropped there (moving an effect out just to drop
        // it was a cold copy per removal).
        let effect = &self.effects[key];
        if effect.holds_expiry_timer() {
            if let Some(expiry) = self.aside.take_expiry(key) {
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
        if was_active {
            self.fire_cues(cx, def, CueEvent::Remove, effect, effect.cue_magnitude(def));
        }
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
        self.aside.remove_listening(key);
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
    pub(super) fn remove_tagged_by<P>(
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
