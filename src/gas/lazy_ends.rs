//! The context's side of lazy ends (see `effects/lazy.rs`): hosts are
//! caught up whenever the context takes one to change it, and the ends on
//! watched hosts are told at their instants, before anything else due then.

use hecs::{Entity, World};

use super::Gas;
use crate::abilities::AbilitySystem;
use crate::effects::EffectKey;
use crate::time::SimTime;
use crate::trace::{TraceCategory, TraceFilter};

/// What a trace must want for lazy ends to be told at their instants.
const TOLD: TraceFilter = TraceFilter::NONE
    .with(TraceCategory::EFFECTS)
    .with(TraceCategory::TAGS);

impl Gas {
    /// Clears the lazy ends `system` (`entity`'s) holds that are due: the
    /// first thing done with a system the context is about to change, so
    /// every change starts from the host as it stands now.
    // Inlined to its test: nearly always nothing is due.
    #[inline]
    pub(crate) fn catch_up(&mut self, entity: Entity, system: &mut AbilitySystem) {
        if system.host.lazy_ends_due(self.now) {
            self.end_lazily_due(entity, system);
        }
    }

    /// [`catch_up`](Self::catch_up) with something possibly due: cleared
    /// silently on a host nothing watches, told on one something does.
    #[inline(never)]
    fn end_lazily_due(&mut self, entity: Entity, system: &mut AbilitySystem) {
        if !self.watches(system) {
            let defs = self.catalog.effects();
            system.host.clear_lazy_ends(defs, entity, self.now);
            return;
        }
        let mut cx = self.effect_cx(entity, system);
        system.host.end_lazily_due(&mut cx);
        self.note_touched(entity, system);
    }

    /// Could something see an effect on `system`'s host begin or end?
    #[inline]
    pub(crate) fn watches(&self, system: &AbilitySystem) -> bool {
        self.trace.wants_any(TOLD) || system.reactive_waits().any()
    }

    /// Might a watched host hold a lazy end due now that is still to be
    /// told? Each such end has a notice due by now, unless the trace's
    /// filter changed since the notices were last brought in line with it.
    #[inline]
    pub(super) fn lazy_end_may_be_untold(&self) -> bool {
        self.next_lazy_end(self.now).is_some()
            || self.trace.filter_changes() != self.lazy_ends_trace_seen
    }

    /// `system` (`entity`'s), watched by nothing, has just begun waiting on
    /// its tags or state: the lazy ends it holds are noticed from now on.
    /// Those that came while nothing watched were caught up before the
    /// wait began.
    pub(super) fn notice_lazy_ends_of(&mut self, entity: Entity, system: &AbilitySystem) {
        system
            .host
            .notice_lazy_ends(&mut self.lazy_ends, entity, |_| false);
    }

    /// Builds the notices of lazy ends afresh from restored hosts: a host
    /// whose instances wait on it has each of its lazy ends noticed (a
    /// save keeps the ones not yet told there), and, when the trace wants
    /// them, so has every other host each of those still to come (a save
    /// clears the others' ended ones).
    pub(crate) fn rebuild_lazy_ends(&mut self, world: &mut World) {
        self.lazy_ends.clear();
        let traced = self.trace.wants_any(TOLD);
        for (entity, system) in world.query_mut::<(Entity, &mut AbilitySystem)>() {
            if traced || system.abilities.reactive_waits_held().any() {
                system
                    .host
                    .notice_lazy_ends(&mut self.lazy_ends, entity, |_| false);
            }
        }
        self.lazy_ends_trace_seen = self.trace.filter_changes();
    }

    /// Brings the notices in line with a trace that has started wanting
    /// effects or tags: the lazy ends it would have missed (begun while
    /// it wanted neither) are noticed. Ends already past that nothing
    /// noticed came unseen, and are cleared as they would have been; the
    /// pending notices stay.
    fn renotice_lazy_ends(&mut self, world: &mut World) {
        let noticed = self.lazy_ends.noticed();
        let is_noticed = |entity, key| noticed.binary_search(&(entity, key)).is_ok();
        let defs = self.catalog.effects();
        for (entity, system) in world.query_mut::<(Entity, &mut AbilitySystem)>() {
            let host = &mut system.host;
            host.clear_unnoticed_lazy_ends(defs, entity, self.now, |key| is_noticed(entity, key));
            host.notice_lazy_ends(&mut self.lazy_ends, entity, |key| is_noticed(entity, key));
        }
    }

    /// Re-notices lazy ends when what the trace records or observes has
    /// changed since the notices were last brought in line with it and it
    /// now wants effects or tags (checked before every timer: an observer
    /// may register another mid-step).
    #[inline]
    pub(super) fn follow_the_trace(&mut self, world: &mut World) {
        if self.trace.filter_changes() != self.lazy_ends_trace_seen {
            if self.trace.wants_any(TOLD) {
                self.renotice_lazy_ends(world);
            }
            self.lazy_ends_trace_seen = self.trace.filter_changes();
        }
    }

    /// The instant of the first lazy end to tell, if it is due by `to`.
    #[inline]
    pub(super) fn next_lazy_end(&self, to: SimTime) -> Option<SimTime> {
        self.lazy_ends
            .next_at()
            .map(|at| self.telling_instant(at))
            .filter(|&at| at <= to)
    }

    /// When a lazy end due at `at` is told: at `at`, unless the work
    /// budget of an instant at or after it ran out first, which hands
    /// every end still untold by then to the microsecond after (in end
    /// order, as at their own instants).
    #[inline]
    fn telling_instant(&self, at: SimTime) -> SimTime {
        match self.budget_spent {
            Some(spent) if at <= spent => spent + crate::time::SimDuration::from_micros(1),
            _ => at,
        }
    }

    /// Tells the next lazy end due by `to`: the host is caught up, which
    /// ends, told, every lazy effect of its due by now. A notice for an
    /// effect since refreshed to end later moves to the new end while the
    /// host is watched.
    ///
    /// Returns whether the telling counts as work: it does when what hears
    /// it can act (an observer of effects or tags, an instance waiting on
    /// the host), since that could go on without end at one instant; a
    /// telling only the trace records does not, so a run that records
    /// reaches the work limits exactly where one that does not would.
    pub(super) fn tell_lazy_end(&mut self, world: &mut World, to: SimTime) -> bool {
        let Some(at) = self.next_lazy_end(to) else {
            return false;
        };
        let Some(notice) = self.lazy_ends.pop() else {
            return false;
        };
        self.now = self.now.max(at);
        self.release_reserved(world);
        let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(notice.entity) else {
            return false;
        };
        let heard = self.trace.observes_any(TOLD) || system.abilities.reactive_waits_held().any();
        self.catch_up(notice.entity, system);
        self.follow_moved_end(notice.entity, notice.key, system);
        heard
    }

    /// Leaves a new notice for `key` when it still lives on a watched host
    /// (it was refreshed to end later than the notice that came due).
    fn follow_moved_end(&mut self, entity: Entity, key: EffectKey, system: &AbilitySystem) {
        if !self.watches(system) {
            return;
        }
        if let Some(effect) = system.host.effects.get(key) {
            if effect.ends_lazily() && !effect.has_ended(self.now) {
                self.lazy_ends.push(entity, key, effect);
            }
        }
    }

    /// The lazy ends due by now and still untold that an observer of
    /// effects or tags will hear, sorted: game code reacts to them, so a
    /// save keeps them, to be told after a restore as in the saved run.
    /// (Ends only the trace records are not kept: what a trace records
    /// changes no save.)
    pub(crate) fn untold_observed_ends(&self) -> Vec<(Entity, EffectKey)> {
        if !self.trace.observes_any(TOLD) {
            return Vec::new();
        }
        let mut untold: Vec<(Entity, EffectKey)> = self
            .lazy_ends
            .iter()
            .filter(|notice| notice.at() <= self.now)
            .map(|notice| (notice.entity, notice.key))
            .collect();
        untold.sort_unstable();
        untold
    }

    /// The pending notices of lazy ends (for the invariants).
    pub(crate) fn lazy_ends(&self) -> &crate::effects::LazyEnds {
        &self.lazy_ends
    }
}
