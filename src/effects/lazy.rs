//! Lazy ends: effects that [end lazily](super::EffectDef::ends_lazily)
//! carry their end instant instead of an expiry timer. Reads treat them as
//! gone from that instant on ([`EffectHost::tags`] and the other reads
//! that take the clock); the host gives their slot and tags back the next
//! time the context touches it ([`EffectHost::end_lazily_due`]); and when
//! something watches the host, a [`LazyEnds`] notice makes the end happen,
//! told, at its own instant.
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

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use hecs::Entity;
use smallvec::SmallVec;

use super::active::{ActiveEffect, Captures, EffectKey};
use super::cx::{Defs, EffectCx};
use super::def::{EffectDefs, EffectId};
use super::host::{slot_of, EffectHost};
use super::spec::EffectSpec;
use crate::tags::{Tag, TagCounts};
use crate::time::SimTime;
use crate::trace::RemovalReason;

/// The order in which lazy ends due together are cleared and told: by end
/// instant, then by the instant the window began (what was applied first
/// ends first, as expiry timers scheduled in that order would have), then
/// by entity and slot. It depends on nothing but the effects themselves,
/// so a host cleared at its end and one cleared later agree.
fn end_order(
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

/// One pending notice: a lazily ending effect's end, to be told at its
/// instant.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Notice {
    order: (SimTime, SimTime, u64, u32),
    /// Whose effect.
    pub entity: Entity,
    /// Which effect.
    pub key: EffectKey,
}

impl Notice {
    /// When it is due.
    pub fn at(&self) -> SimTime {
        self.order.0
    }
}

/// The ends of lazily ending effects on watched hosts (the trace or an
/// observer records effects or tags, or an instance waits on the host's
/// tags or state), due at their instants.
///
/// Not state: a host's lazy effects end at the same instants whether or
/// not they are noticed; only the telling needs these. So it is neither
/// saved nor checksummed, and the context rebuilds it from the hosts when
/// it restores a snapshot or starts watching. A notice left for an effect
/// since refreshed to end later moves to the new end when it comes due,
/// and one left for an effect since cleared finds nothing, so the queue
/// never holds more than about one notice per watched lazy effect.
#[derive(Clone, Debug, Default)]
pub(crate) struct LazyEnds {
    due: BinaryHeap<Reverse<Notice>>,
}

impl LazyEnds {
    /// Notices `key`'s end on `entity` (the effect as it now stands).
    pub fn push(&mut self, entity: Entity, key: EffectKey, effect: &ActiveEffect) {
        self.due.push(Reverse(Notice {
            order: end_order(entity, key, effect),
            entity,
            key,
        }));
    }

    /// When the earliest notice is due.
    #[inline]
    pub fn next_at(&self) -> Option<SimTime> {
        self.due.peek().map(|Reverse(n)| n.at())
    }

    /// Takes the earliest notice if it is due by `until`.
    pub fn pop_due(&mut self, until: SimTime) -> Option<Notice> {
        if self.next_at()? > until {
            return None;
        }
        self.due.pop().map(|Reverse(n)| n)
    }

    /// Moves every notice due by `now` to `to` (an instant whose work
    /// budget is spent hands what is left to the next microsecond).
    pub fn defer_due(&mut self, now: SimTime, to: SimTime) {
        let mut moved = Vec::new();
        while let Some(mut notice) = self.pop_due(now) {
            notice.order.0 = to;
            moved.push(Reverse(notice));
        }
        self.due.extend(moved);
    }

    /// Forgets every notice (before a rebuild).
    pub fn clear(&mut self) {
        self.due.clear();
    }

    /// The notices, in no particular order (for the invariants).
    pub fn iter(&self) -> impl Iterator<Item = &Notice> + '_ {
        self.due.iter().map(|Reverse(n)| n)
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
        let effect = &self.effects[key];
        let end = effect.expires_at();
        self.lazy_due = self.lazy_due.min(end);
        if cx.watched && before.is_none_or(|before| end < before) {
            cx.lazy_ends.push(cx.entity, key, effect);
        }
    }

    /// Leaves a notice for each lazily ending effect the host holds (one
    /// already ended is told at once): the host has just become watched,
    /// or the notices are being rebuilt.
    pub(crate) fn notice_lazy_ends(&self, lazy_ends: &mut LazyEnds, entity: Entity) {
        if self.lazy_due == SimTime::MAX {
            return;
        }
        for (key, effect) in self.effects.iter() {
            if effect.ends_lazily() {
                lazy_ends.push(entity, key, effect);
            }
        }
    }

    /// The lazily ending effects that ended by `now`, in [`end_order`].
    fn ended(&self, entity: Entity, now: SimTime) -> SmallVec<[EffectKey; 2]> {
        let mut ended: SmallVec<[EffectKey; 2]> = self
            .effects
            .iter()
            .filter(|(_, e)| e.has_ended(now))
            .map(|(k, _)| k)
            .collect();
        ended.sort_unstable_by_key(|&k| end_order(entity, k, &self.effects[k]));
        ended
    }

    /// The earliest end among the lazily ending effects left.
    fn next_lazy_end(&self) -> SimTime {
        self.effects
            .values()
            .filter(|e| e.ends_lazily())
            .map(ActiveEffect::expires_at)
            .min()
            .unwrap_or(SimTime::MAX)
    }

    /// Ends every lazily ending effect that ended by `cx.now`, in
    /// [`end_order`], as an expiry is ended: recorded, its tag changes
    /// noted for the reconcile and the waits. For a watched host (an
    /// unwatched one is cleared silently, [`clear_lazy_ends`](Self::clear_lazy_ends),
    /// which leaves the same slots and tags).
    pub(crate) fn end_lazily_due<P>(&mut self, cx: &mut EffectCx<P>) {
        for key in self.ended(cx.entity, cx.now) {
            self.remove(cx, key, RemovalReason::Expired);
        }
        self.lazy_due = self.next_lazy_end();
    }

    /// Clears every lazily ending effect that ended by `now`, in
    /// [`end_order`], silently: the host nothing watches as the context
    /// leaves it when it next touches it (and a copy being saved, so).
    pub(crate) fn clear_lazy_ends(&mut self, defs: &EffectDefs, entity: Entity, now: SimTime) {
        if !self.lazy_ends_due(now) {
            return;
        }
        for key in self.ended(entity, now) {
            self.end_silently(defs, key);
        }
        self.lazy_due = self.next_lazy_end();
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
        let Ok((magnitudes, duration)) = self.evaluate_spec(names, def, &spec, &Captures::new())
        else {
            return Err(spec);
        };
        let renewable = self.clear_due_but_last_of(names.effects, entity, now, spec.effect);
        let mut effect = ActiveEffect::new(spec, now, duration, magnitudes, Captures::new());
        // No ongoing requirements: uninhibited from the start.
        effect.inhibited = false;
        let end = effect.expires_at();
        let renewed = match renewable {
            Some(old) => self.effects.renew(old, effect),
            None => Err(effect),
        };
        let key = renewed.unwrap_or_else(|effect| {
            let key = self.effects.insert(effect);
            for tag in def.granted_tags.iter() {
                self.tags.add(tag);
            }
            key
        });
        self.lazy_due = if renewable.is_some() {
            self.next_lazy_end()
        } else {
            self.lazy_due.min(end)
        };
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
        let ended = self.ended(entity, now);
        let kept = ended
            .last()
            .copied()
            .filter(|&key| self.effects[key].def == effect);
        for &key in &ended[..ended.len() - usize::from(kept.is_some())] {
            self.end_silently(defs, key);
        }
        if kept.is_none() {
            self.lazy_due = self.next_lazy_end();
        }
        kept
    }

    /// Recomputes when the first lazy end falls (after a restore, which
    /// does not save it).
    pub(crate) fn reindex_lazy_ends(&mut self) {
        self.lazy_due = self.next_lazy_end();
    }

    /// True when the hint of the first lazy end is no later than the
    /// first lazy end (an invariant).
    pub(crate) fn lazy_due_agrees(&self) -> bool {
        self.lazy_due <= self.next_lazy_end()
    }

    // ------------------------------------------------------------ reads

    /// The owned tags at `now`, with their counts: effect-granted, loose
    /// and ability-owned, less what lazily ending effects that ended by
    /// then still hold. Borrowed unless such an effect is waiting to be
    /// cleared.
    ///
    /// Every read of an entity's tags takes the clock: an effect that
    /// [ends lazily](super::EffectDef::ends_lazily) keeps its tags counted
    /// here until the context next touches the host, and is subtracted.
    #[inline]
    pub fn tags(&self, defs: &EffectDefs, now: SimTime) -> Cow<'_, TagCounts> {
        if !self.lazy_ends_due(now) {
            return Cow::Borrowed(&self.tags);
        }
        Cow::Owned(self.tags_without_ended(defs, now))
    }

    /// Parent-aware: is `tag`, or a tag below it, owned at `now`? As
    /// [`tags`](Self::tags) answers, without a copy of the counts.
    #[inline]
    pub fn has_tag(&self, defs: &EffectDefs, now: SimTime, tag: Tag) -> bool {
        self.tags.tags().has(tag)
            && (!self.lazy_ends_due(now) || self.holds_beyond_ended(defs, now, |t| t.matches(tag)))
    }

    /// Is exactly `tag` owned at `now`? As [`tags`](Self::tags) answers,
    /// without a copy of the counts.
    #[inline]
    pub fn has_exact_tag(&self, defs: &EffectDefs, now: SimTime, tag: Tag) -> bool {
        self.tags.tags().has_exact(tag)
            && (!self.lazy_ends_due(now) || self.holds_beyond_ended(defs, now, |t| t == tag))
    }

    /// Does some owned tag `pick` accepts have more references than the
    /// effects that ended lazily by `now` still hold on it?
    #[inline(never)]
    fn holds_beyond_ended(
        &self,
        defs: &EffectDefs,
        now: SimTime,
        pick: impl Fn(Tag) -> bool,
    ) -> bool {
        self.tags
            .iter()
            .filter(|&(t, _)| pick(t))
            .any(|(t, count)| {
                let ended = self
                    .effects
                    .values()
                    .filter(|e| e.has_ended(now) && !e.inhibited)
                    .filter(|e| defs.def(e.def).granted_tags.has_exact(t))
                    .count();
                count as usize > ended
            })
    }

    /// [`tags`](Self::tags) when some lazy end may be due.
    #[inline(never)]
    fn tags_without_ended(&self, defs: &EffectDefs, now: SimTime) -> TagCounts {
        let mut tags = self.tags.clone();
        for effect in self.effects.values() {
            if effect.has_ended(now) && !effect.inhibited {
                let _ = tags.remove_each(&defs.def(effect.def).granted_tags, |_| {});
            }
        }
        tags
    }
}
