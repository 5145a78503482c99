//! What an effect operation works with besides the host itself
//! ([`EffectCx`]), and what it leaves for the context ([`FollowUp`]).

use std::collections::VecDeque;

use hecs::Entity;
use rand_chacha::ChaCha8Rng;
use smallvec::SmallVec;

use super::active::Captures;
use super::calculation::Calculations;
use super::def::{EffectDefs, EffectId};
use super::execution::Execution;
use super::notices::LazyEnds;
use super::spec::EffectSpec;
use crate::attributes::AttributeSchema;
use crate::names::Named;
use crate::tags::{Tag, TagRegistry};
use crate::time::{SimTime, TimerQueue};
use crate::trace::{Trace, TraceCategory, TraceKind};

/// Work an effect operation leaves for the context, which reaches what the
/// host cannot (other applications, the ability system). Done in order,
/// once the operation that caused it has finished.
#[derive(Clone, Debug)]
pub(crate) enum FollowUp {
    /// Apply a spec to the entity: a conditional effect, or one an effect
    /// names for its expiry or removal.
    Apply(EffectSpec),
    /// The abilities `effect` grants start (`grant`) or stop being held.
    Grants {
        /// The granting effect.
        effect: EffectId,
        /// Its spec's level, the level they are granted at.
        level: u32,
        /// `true` when they are granted.
        grant: bool,
    },
    /// A re-application brought `effect`'s stack a new level: the
    /// abilities it grants, which it holds, take it (those game code
    /// granted keep the level it gave).
    Relevel {
        /// The granting effect.
        effect: EffectId,
        /// Its new spec's level.
        level: u32,
    },
}

/// The shared state effect operations need besides the host itself.
pub(crate) struct EffectCx<'a, P> {
    pub defs: &'a EffectDefs,
    pub tags: &'a TagRegistry,
    pub calcs: &'a Calculations,
    pub rng: &'a mut ChaCha8Rng,
    /// Periodic executions run during this call, for the context's
    /// post-execute step.
    pub executed: SmallVec<[Execution; 1]>,
    /// Where an instant application leaves its execution for the context
    /// (see [`Applied`](super::host::Applied)): kept by the context, empty
    /// between applications.
    pub instant: &'a mut Option<Execution>,
    /// Fresh values of live source captures, for periodic executions.
    pub live_source_values: Captures,
    /// Follow-up work for the context, with the entity it is for.
    pub follow_ups: &'a mut VecDeque<(Entity, FollowUp)>,
    pub schema: &'a AttributeSchema,
    pub now: SimTime,
    pub timers: &'a mut TimerQueue<P>,
    pub trace: &'a mut Trace,
    /// The entity the host belongs to.
    pub entity: Entity,
    /// Could something see an effect on this host begin or end: the trace
    /// (or an observer through it) records effects or tags, or an instance
    /// waits on the host's tags or state? When not, an effect that [ends
    /// lazily](super::EffectDef::ends_lazily) begins and ends by a short
    /// path that leaves the same state and skips the notes and records
    /// nobody reads, and its end is not noticed at its instant.
    pub watched: bool,
    /// Where a watched host's lazy ends are noticed.
    pub lazy_ends: &'a mut LazyEnds,
}

impl<P> EffectCx<'_, P> {
    /// The periodic executions run during this call, if any (taken only
    /// then: the list holds one execution inline).
    #[inline]
    pub fn take_executed(&mut self) -> Option<SmallVec<[Execution; 1]>> {
        (!self.executed.is_empty()).then(|| std::mem::take(&mut self.executed))
    }
}

/// Where tag presence changes are told: the trace (for its records and its
/// observers), when it wants them.
pub(crate) struct TagLog<'a> {
    pub trace: &'a mut Trace,
    pub now: SimTime,
    pub entity: Entity,
}

impl<'a> TagLog<'a> {
    pub fn of<P>(cx: &'a mut EffectCx<'_, P>) -> Self {
        TagLog {
            trace: cx.trace,
            now: cx.now,
            entity: cx.entity,
        }
    }

    #[inline]
    pub(super) fn changed(&mut self, tag: Tag, present: bool) {
        if self.trace.wants(TraceCategory::TAGS) {
            self.record(tag, present);
        }
    }

    #[cold]
    #[inline(never)]
    fn record(&mut self, tag: Tag, present: bool) {
        self.trace.record(
            self.now,
            TraceKind::TagChanged {
                entity: self.entity,
                tag,
                present,
            },
        );
    }
}

/// The definitions an evaluation reads: effects, calculations, and the
/// tag names its errors use.
#[derive(Copy, Clone)]
pub(crate) struct Defs<'a> {
    pub effects: &'a EffectDefs,
    pub tags: &'a TagRegistry,
    pub calcs: &'a Calculations,
}

impl<'a> Defs<'a> {
    pub fn of<P>(cx: &EffectCx<'a, P>) -> Self {
        Defs {
            effects: cx.defs,
            tags: cx.tags,
            calcs: cx.calcs,
        }
    }

    pub fn effect(self, id: EffectId) -> Named<EffectId> {
        let name = self.effects.try_def(id).map_or("?", |d| d.name.as_str());
        Named::new(id, name)
    }

    pub fn tag(self, tag: Tag) -> Named<Tag> {
        Named::new(tag, self.tags.name(tag))
    }
}
