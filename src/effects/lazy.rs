//! Lazy ends: effects that [end lazily](super::EffectDef::ends_lazily)
//! carry their end instant instead of an expiry timer. Reads treat them as
//! gone from that instant on ([`EffectHost::tags`] and the other reads
//! that take the clock, in `reads.rs`); the host gives their slot and tags
//! back the next time the context touches it
//! ([`EffectHost::end_lazily_due`]); and when something watches the host,
//! a [`LazyEnds`] notice (`notices.rs`) makes the end happen, told, at its
//! own instant.
//!
//! Why: a fighter stamps its attack cooldown on every swing, and nothing
//! but the next swing reads it. An expiry timer per stamp (scheduled,
//! popped, its owner looked up again, cold, at the end) was the largest
//! single cost of an attack; the swing that stamps the next cooldown now
//! clears the last one while the owner is in the cache anyway.
//!
//! The state never depends on who watches: a watched end and an unwatched
//! one leave the same slots, free list, tags and counts, because both end
//! the same effects in the same order ([`end_order`]) before anything else
//! touches the host, and saves and checksums see a host as if it had been
//! cleared ([`EffectHost::clear_lazy_ends`]).

use std::collections::VecDeque;

use hecs::Entity;
use smallvec::SmallVec;

use super::active::{ActiveEffect, Captures, EffectKey};
use super::calculation::TargetRead;
use super::cx::{Defs, EffectCx};
use super::def::{EffectDefs, EffectId};
use super::host::{slot_of, EffectHost};
use super::notices::LazyEnds;
use super::spec::EffectSpec;
use crate::time::SimTime;
use crate::trace::RemovalReason;

/// The order in which lazy ends due together are cleared and told: by end
/// instant, then by the instant the window began (what was applied first
/// ends first, as expiry timers scheduled in that order would have), then
/// by entity and slot. It depends on nothing but the effects themselves,
/// so a host cleared at its end and one cleared later agree.
pub(super) fn end_order(
    entity: Entity,
    key: EffectKey,
    effect: &ActiveEffect,
) -> (SimTime, SimTime, u64, u32) {
    (
        effect.expires_at(),
        effect.started,
        entity.to_bits().get(),
        slot_of(key),
    )
}

/// A host holding more effects than this keeps its lazily ending ones in
/// end order ([`LazyIndex`]); one holding fewer finds them by a scan,
/// cheaper than keeping an index for a fighter's two.
const SCAN_LIMIT: usize = 8;

/// The lazily ending effects of a host that holds many effects (a
/// thousand cooldowns applied frame after frame), in end order: the first
/// lazy end and the ones due are at the front, so an application costs the
/// same however many effects the host holds. Each lazily ending effect has
/// exactly one entry, for its current window: the host takes it out before
/// the window moves or the effect goes, and puts the new one in. Effects
/// applied one after the other end in that order, so entries are mostly
/// added at the back and taken from the front. Derived from the effects:
/// neither saved nor compared.
#[derive(Clone, Debug, Default)]
pub(crate) struct LazyIndex {
    by_end: VecDeque<(SimTime, SimTime, u32, EffectKey)>,
}

impl LazyIndex {
    /// The entry of `key`'s current window.
    fn entry(key: EffectKey, effect: &ActiveEffect) -> (SimTime, SimTime, u32, EffectKey) {
        (effect.expires_at(), effect.started, slot_of(key), key)
    }

    fn insert(&mut self, key: EffectKey, effect: &ActiveEffect) {
        let entry = Self::entry(key, effect);
        // Most often the effect just applied ends last: no search.
        if self.by_end.back().is_none_or(|last| *last < entry) {
            self.by_end.push_back(entry);
            return;
        }
        let at = self.by_end.partition_point(|e| *e < entry);
        self.by_end.insert(at, entry);
    }

    fn remove(&mut self, key: EffectKey, effect: &ActiveEffect) {
        let entry = Self::entry(key, effect);
        if let Ok(at) = self.by_end.binary_search(&entry) {
            self.by_end.remove(at);
        }
    }

    /// The first end, and the slot of the effect it ends.
    fn first(&self) -> (SimTime, u32) {
        self.by_end
            .front()
            .map_or((SimTime::MAX, u32::MAX), |&(end, _, slot, _)| (end, slot))
    }
}

impl EffectHost {
    /// True when some lazily ending effect ended by `now` and still holds
    /// its slot and tags (a hint: it may say yes when there is none).
    #[inline]
    pub(crate) fn lazy_ends_due(&self, now: SimTime) -> bool {
        now >= self.lazy_due
    }

    /// Notes that lazily ending `key` now ends at its `expires_at`, having
    /// ended at `before` (`None`: new). When the host is watched, a notice
    /// for the new end is left unless one for an earlier end is pending,
    /// which moves on when it comes due.
    pub(crate) fn note_lazy_end<P>(
        &mut self,
        cx: &mut EffectCx<P>,
        key: EffectKey,
        before: Option<SimTime>,
    ) {
        self.index_lazy_end(key);
        let effect = &self.effects[key];
        if cx.watched && before.is_none_or(|before| effect.expires_at() < before) {
            cx.lazy_ends.push(cx.entity, key, effect);
        }
    }

    /// Keeps the first lazy end, and the index of a host that holds one,
    /// up with lazily ending `key`'s window, just set.
    pub(super) fn index_lazy_end(&mut self, key: EffectKey) {
        let effect = &self.effects[key];
        self.lazy_due = self.lazy_due.min(effect.expires_at());
        match self.aside.lazy_index_mut() {
            Some(index) => index.insert(key, effect),
            None if self.effects.len() > SCAN_LIMIT => self.build_lazy_index(),
            None => {}
        }
    }

    /// Takes lazily ending `key`'s current window out of the host's index
    /// (if it keeps one), before the window moves or the effect goes. The
    /// first lazy end may now be later than the host's hint of it, which
    /// only ever errs early.
    #[inline]
    pub(super) fn unindex_lazy_end(&mut self, key: EffectKey) {
        if let Some(index) = self.aside.lazy_index_mut() {
            if let Some(effect) = self.effects.get(key).filter(|e| e.ends_lazily()) {
                index.remove(key, effect);
            }
        }
    }

    /// Indexes every lazily ending effect the host holds.
    #[cold]
    fn build_lazy_index(&mut self) {
        let mut index = LazyIndex::default();
        for (key, effect) in self.effects.iter() {
            if effect.ends_lazily() {
                index.insert(key, effect);
            }
        }
        self.aside.set_lazy_index(Some(index));
    }

    /// Leaves a notice for each lazily ending effect the host holds that
    /// `noticed` says has none pending (one already ended is told at
    /// once): the host has just become watched, or the notices are being
    /// rebuilt.
    pub(crate) fn notice_lazy_ends(
        &self,
        lazy_ends: &mut LazyEnds,
        entity: Entity,
        noticed: impl Fn(EffectKey) -> bool,
    ) {
        if self.lazy_due == SimTime::MAX {
            return;
        }
        for (key, effect) in self.effects.iter() {
            if effect.ends_lazily() && !noticed(key) {
                lazy_ends.push(entity, key, effect);
            }
        }
    }

    /// The lazily ending effects that ended by `now`, in [`end_order`]
    /// (taken out of the index of a host that keeps one).
    fn take_ended(&mut self, entity: Entity, now: SimTime) -> SmallVec<[EffectKey; 2]> {
        let ended = self.ended(entity, now);
        if let Some(index) = self.aside.lazy_index_mut() {
            index.by_end.drain(..ended.len());
        }
        ended
    }

    /// The lazily ending effects that ended by `now`, in [`end_order`]
    /// (the front of the index of a host that keeps one).
    fn ended(&self, entity: Entity, now: SimTime) -> SmallVec<[EffectKey; 2]> {
        if let Some(index) = self.aside.lazy_index() {
            return index
                .by_end
                .iter()
                .take_while(|&&(end, ..)| end <= now)
                .map(|&(.., key)| key)
                .collect();
        }
        let mut ended: SmallVec<[EffectKey; 2]> = self
            .effects
            .iter()
            .filter(|(_, e)| e.has_ended(now))
            .map(|(k, _)| k)
            .collect();
        ended.sort_unstable_by_key(|&k| end_order(entity, k, &self.effects[k]));
        ended
    }

    /// Clears silently, in [`end_order`], the lazy ends due by `now` that
    /// come before the first one `noticed` (whose notice is pending): what
    /// the trace starting to record finds already ended, unseen. The
    /// noticed one and any after it stay for its notice, so every end is
    /// still cleared in order.
    pub(crate) fn clear_unnoticed_lazy_ends(
        &mut self,
        defs: &EffectDefs,
        entity: Entity,
        now: SimTime,
        noticed: impl Fn(EffectKey) -> bool,
    ) {
        if !self.lazy_ends_due(now) {
            return;
        }
        for key in self.ended(entity, now) {
            if noticed(key) {
                break;
            }
            self.unindex_lazy_end(key);
            self.end_silently(defs, key);
        }
        self.settle_lazy_due();
    }

    /// Sets the first lazy end to the earliest among the lazily ending
    /// effects left (and, for a host that keeps an index, the hint of the
    /// slot it ends).
    pub(super) fn settle_lazy_due(&mut self) {
        if let Some(index) = self.aside.lazy_index() {
            (self.lazy_due, self.lazy_first_slot) = index.first();
            return;
        }
        self.lazy_due = self.first_lazy_end_by_scan();
    }

    /// The earliest end among the lazily ending effects, found by a scan
    /// of the slots (a host without an index, and the invariant's check).
    #[inline]
    fn first_lazy_end_by_scan(&self) -> SimTime {
        self.effects
            .values()
            .filter(|e| e.ends_lazily())
            .map(ActiveEffect::expires_at)
            .min()
            .unwrap_or(SimTime::MAX)
    }

    /// Asks the memory system for what clearing the lazy ends due by
    /// `now` reads first on a host that keeps an index of them: the
    /// index's header and, most likely, the slot of the first (the
    /// [hint](EffectHost::lazy_first_slot)). On a host holding many
    /// effects (a cooldown applied every frame and never stacked, a
    /// hundred and more live) these are cold, and each read would
    /// otherwise wait for the one before it (index, its entries, the
    /// slot an entry names). Called by the context as soon as it holds
    /// the host; a hint, which changes nothing.
    #[inline]
    pub(crate) fn prefetch_due_lazy_end(&self, now: SimTime) {
        if let Some(index) = self.aside.lazy_index() {
            if self.lazy_ends_due(now) {
                crate::prefetch::value(index);
                self.effects.prefetch_slot(self.lazy_first_slot);
            }
        }
    }

    /// Ends every lazily ending effect that ended by `cx.now`, in
    /// [`end_order`], as an expiry is ended: recorded, its tag changes
    /// noted for the reconcile and the waits. For a watched host (an
    /// unwatched one is cleared silently, [`clear_lazy_ends`](Self::clear_lazy_ends),
    /// which leaves the same slots and tags).
    pub(crate) fn end_lazily_due<P>(&mut self, cx: &mut EffectCx<P>) {
        for key in self.take_ended(cx.entity, cx.now) {
            self.remove(cx, key, RemovalReason::Expired);
        }
        self.settle_lazy_due();
    }

    /// Clears every lazily ending effect that ended by `now`, in
    /// [`end_order`], silently: the host nothing watches as the context
    /// leaves it when it next touches it (and a copy being saved, so).
    pub(crate) fn clear_lazy_ends(&mut self, defs: &EffectDefs, entity: Entity, now: SimTime) {
        if !self.lazy_ends_due(now) {
            return;
        }
        for key in self.take_ended(entity, now) {
            self.end_silently(defs, key);
        }
        self.settle_lazy_due();
    }

    /// Ends an effect nobody sees end: its tags released and its slot
    /// freed, exactly as [`remove`](Self::remove) leaves them, without the
    /// notes, records and checks nothing here would read.
    pub(crate) fn end_silently(&mut self, defs: &EffectDefs, key: EffectKey) {
        let effect = &self.effects[key];
        if !effect.inhibited {
            // `remove` ignores a release that fails too (broken
            // bookkeeping, which the invariants report).
            let _ = self
                .tags
                .remove_each(&defs.def(effect.def).granted_tags, |_| {});
        }
        self.effects.discard(key);
    }

    /// [`apply`](Self::apply) of an effect that [adds
    /// plainly](super::EffectDef::adds_plainly), on a host nothing
    /// watches (`entity`'s, at `now`): the full path's checks and
    /// evaluation, then the lazy ends due cleared as the context's catch-up
    /// clears them, and the new instance added with its tags. When the last
    /// one cleared is an instance of the same effect (the cooldown a swing
    /// stamps again the instant it ends), its slot is renewed and its tags
    /// kept instead: what clearing it and adding the new one would leave.
    ///
    /// The checks read the host before it is cleared, which is exact here:
    /// the effect has no application requirements, and no lazy end grants
    /// a tag the life rule reads. The spec comes back, nothing changed,
    /// when a check refuses or it fails to evaluate: the full path then
    /// gives the outcome or the error.
    pub(crate) fn add_plainly(
        &mut self,
        names: Defs<'_>,
        entity: Entity,
        now: SimTime,
        spec: EffectSpec,
    ) -> Result<EffectKey, EffectSpec> {
        let def = names.effects.def(spec.effect);
        debug_assert!(def.adds_plainly());
        if self.refusal(names.effects, def, &spec.tags).is_some() {
            return Err(spec);
        }
        let Ok(Some(duration)) =
            self.evaluate_duration(names, def, &spec, &Captures::new(), TargetRead::PLAIN)
        else {
            return Err(spec);
        };
        let renewable = self.clear_due_but_last_of(names.effects, entity, now, spec.effect);
        // A renewed slot keeps its predecessor's tags; a new one takes its
        // own.
        let key = match renewable.and_then(|old| self.effects.renew(old)) {
            Some((key, effect)) => {
                effect.renew(spec, now, duration);
                // The renewed effect's old end was the first one.
                self.settle_lazy_due();
                key
            }
            None => {
                let mut effect = ActiveEffect::new(spec, now, Some(duration), &[], Captures::new());
                // No ongoing requirements: uninhibited from the start.
                effect.inhibited = false;
                let key = self.effects.insert(effect);
                self.grant_unseen(def);
                key
            }
        };
        self.index_lazy_end(key);
        Ok(key)
    }

    /// Clears the lazy ends due by `now` as [`clear_lazy_ends`] does, but
    /// the last in [`end_order`] when it is an instance of `effect`: its
    /// key is returned, its slot and tags kept for the instance that
    /// replaces it.
    ///
    /// [`clear_lazy_ends`]: Self::clear_lazy_ends
    fn clear_due_but_last_of(
        &mut self,
        defs: &EffectDefs,
        entity: Entity,
        now: SimTime,
        effect: EffectId,
    ) -> Option<EffectKey> {
        if !self.lazy_ends_due(now) {
            return None;
        }
        let ended = self.take_ended(entity, now);
        let kept = ended
            .last()
            .copied()
            .filter(|&key| self.effects[key].def == effect);
        for &key in &ended[..ended.len() - usize::from(kept.is_some())] {
            self.end_silently(defs, key);
        }
        if kept.is_none() {
            self.settle_lazy_due();
        }
        kept
    }

    /// Recomputes when the first lazy end falls, and the index of a host
    /// holding many effects (after a restore, which saves neither).
    pub(crate) fn reindex_lazy_ends(&mut self) {
        self.aside.set_lazy_index(None);
        if self.effects.len() > SCAN_LIMIT {
            self.build_lazy_index();
        }
        self.settle_lazy_due();
    }

    /// True when the hint of the first lazy end is no later than the
    /// first lazy end, and an index, where the host keeps one, holds an
    /// entry for each lazily ending effect's window (an invariant).
    pub(crate) fn lazy_due_agrees(&self) -> bool {
        let first = self.first_lazy_end_by_scan();
        let indexed = self.aside.lazy_index().is_none_or(|index| {
            let mut expected: Vec<_> = self
                .effects
                .iter()
                .filter(|(_, e)| e.ends_lazily())
                .map(|(key, e)| LazyIndex::entry(key, e))
                .collect();
            expected.sort_unstable();
            index.by_end.iter().eq(expected.iter())
        });
        self.lazy_due <= first && indexed
    }
}

#[cfg(test)]
mod tests {
    use hecs::World;

    use super::slot_of;
    use crate::abilities::AbilitySystem;
    use crate::catalog::CatalogBuilder;
    use crate::effects::EffectSpec;
    use crate::gas::Gas;
    use crate::time::SimDuration;
    use crate::trace::TraceFilter;

    /// A host given a cooldown every frame that lasts many frames holds
    /// no more slots than live cooldowns plus the one just ended, however
    /// long it runs, indexed or not: the ended ones are renewed in place.
    #[test]
    fn a_cooldown_stamped_every_frame_keeps_a_bounded_host() {
        for frames_live in [1_u32, 4, 20] {
            let mut builder = CatalogBuilder::new();
            builder.tags().add_source("t.tags", "Cooldown.Cast\n");
            builder.add_source(
                "t.ron",
                r#"(effects: [(name: "GE_Lockout", duration: Duration(SetByCaller("Cooldown.Cast")),
                    granted_tags: ["Cooldown.Cast"])])"#,
            );
            let mut gas = Gas::new(builder.build().unwrap());
            gas.trace_mut().set_filter(TraceFilter::NONE);
            let mut world = World::new();
            let host = world.spawn((gas.new_ability_system(),));
            let cast = gas.catalog().tags().get("Cooldown.Cast").unwrap();
            let lockout = gas.catalog().effects().get("GE_Lockout").unwrap();
            let frame = SimDuration::from_micros(16_667);
            let lasting = frame.as_secs_f64() * f64::from(frames_live) + 1e-9;
            for _ in 0..200 {
                let spec = EffectSpec::new(lockout).with_set_by_caller(cast, lasting);
                gas.apply_effect(&mut world, host, spec).unwrap();
                gas.advance_by(&mut world, frame);
            }
            let system = world.get::<&AbilitySystem>(host).unwrap();
            let held = system.host.effects.len();
            assert!(
                held <= frames_live as usize + 1,
                "{frames_live} live: {held} held"
            );
            let indexed = system.host.aside.lazy_index().map_or(0, |i| i.by_end.len());
            assert!(indexed <= held, "{indexed} indexed of {held}");
            // An indexed host's hint names the slot of the effect that
            // ends first, which the next application will clear.
            if system.host.aside.lazy_index().is_some() {
                let first = system
                    .host
                    .effects
                    .iter()
                    .min_by_key(|(_, e)| (e.expires_at(), e.started))
                    .map(|(key, _)| slot_of(key));
                assert_eq!(Some(system.host.lazy_first_slot), first);
            }
        }
    }
}
