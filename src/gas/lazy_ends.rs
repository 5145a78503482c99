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
        self.trace.wants_any(TOLD) || system.reactive_waits.any()
    }

    /// `system` (`entity`'s) has just begun waiting on its tags or state:
    /// the lazy ends it holds are noticed from now on. Those that came
    /// while nothing watched were caught up before the wait began.
    pub(super) fn notice_lazy_ends_of(&mut self, entity: Entity, system: &AbilitySystem) {
        if !self.trace.wants_any(TOLD) {
            system.host.notice_lazy_ends(&mut self.lazy_ends, entity);
        }
    }

    /// Rebuilds the notices of lazy ends from the hosts, when what watches
    /// them may have changed wholesale (the trace started recording, a
    /// snapshot was restored). A host nothing watched had its ends come
    /// unseen, so those are cleared as they would have been; the rest are
    /// noticed again.
    pub(crate) fn rebuild_lazy_ends(&mut self, world: &mut World) {
        self.lazy_ends.clear();
        let traced = self.trace.wants_any(TOLD);
        let defs = self.catalog.effects();
        for (entity, system) in world.query_mut::<(Entity, &mut AbilitySystem)>() {
            let waited = system.reactive_waits.any();
            if !waited {
                system.host.clear_lazy_ends(defs, entity, self.now);
            }
            if traced || waited {
                system.host.notice_lazy_ends(&mut self.lazy_ends, entity);
            }
        }
        self.lazy_ends_traced = traced;
    }

    /// Rebuilds the notices when the trace has started recording effects
    /// or tags since they were last built (checked before every timer: an
    /// observer may register another mid-step).
    #[inline]
    pub(super) fn follow_the_trace(&mut self, world: &mut World) {
        let traced = self.trace.wants_any(TOLD);
        if traced != self.lazy_ends_traced {
            if traced {
                self.rebuild_lazy_ends(world);
            }
            self.lazy_ends_traced = traced;
        }
    }

    /// The instant of the first lazy end to tell, if it is due by `to`.
    #[inline]
    pub(super) fn next_lazy_end(&self, to: SimTime) -> Option<SimTime> {
        self.lazy_ends.next_at().filter(|&at| at <= to)
    }

    /// Tells the next lazy end due by `to`: the host is caught up, which
    /// ends, told, every lazy effect of its due by now. A notice for an
    /// effect since refreshed to end later moves to the new end while the
    /// host is watched.
    pub(super) fn tell_lazy_end(&mut self, world: &mut World, to: SimTime) {
        let Some(notice) = self.lazy_ends.pop_due(to) else {
            return;
        };
        self.now = self.now.max(notice.at());
        let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(notice.entity) else {
            return;
        };
        self.catch_up(notice.entity, system);
        self.follow_moved_end(notice.entity, notice.key, system);
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

    /// The pending notices of lazy ends (for the invariants).
    pub(crate) fn lazy_ends(&self) -> &crate::effects::LazyEnds {
        &self.lazy_ends
    }
}
