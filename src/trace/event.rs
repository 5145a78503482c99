//! The vocabulary of the trace.

use std::ops::{BitOr, BitOrAssign};
use std::sync::Arc;

use hecs::Entity;

use super::record::TraceRecord;
use crate::abilities::{AbilityId, ActivationFailure, EndReason};
use crate::attributes::AttributeId;
use crate::effects::{CueEvent, EffectError, EffectId};
use crate::tags::{Tag, TagSet};
use crate::time::{SimDuration, SimTime};

/// One recorded event.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEvent {
    /// When it happened.
    pub time: SimTime,
    /// What happened.
    pub kind: TraceKind,
}

impl TraceEvent {
    /// The game record of type `R` this event carries, if it is one.
    pub fn record<R: TraceRecord>(&self) -> Option<&R> {
        self.kind.record()
    }
}

/// A group of events, for filtering. The core's groups are constants;
/// a game module names its own with [`TraceCategory::game`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TraceCategory(u32);

impl TraceCategory {
    /// Effect application, stacking, execution, removal, blocking.
    pub const EFFECTS: TraceCategory = TraceCategory(1);
    /// Attribute value changes.
    pub const ATTRIBUTES: TraceCategory = TraceCategory(1 << 1);
    /// Gameplay cues.
    pub const CUES: TraceCategory = TraceCategory(1 << 2);
    /// Ability activation, refusal and end.
    pub const ABILITIES: TraceCategory = TraceCategory(1 << 3);
    /// Owned tags appearing and vanishing.
    pub const TAGS: TraceCategory = TraceCategory(1 << 4);
    /// Records of game code that carry no module of their own
    /// ([`GameRecord`](crate::trace::GameRecord)).
    pub const GAME: TraceCategory = TraceCategory(1 << 5);

    /// Bits the core reserves for its own groups.
    const CORE_BITS: u32 = 8;

    /// A game module's own group number `index` (0 to 23). Modules pick
    /// their numbers; the combat layer uses 0, 1 and 2.
    ///
    /// # Panics
    ///
    /// For an `index` past 23. Define the category as a `const` (as the
    /// combat layer's are), and such an index is a compile error instead:
    /// a module's numbers are fixed in its code, never read from input.
    pub const fn game(index: u32) -> TraceCategory {
        assert!(
            index < 32 - Self::CORE_BITS,
            "game trace categories are 0 to 23"
        );
        TraceCategory(1 << (Self::CORE_BITS + index))
    }

    /// The category's bit in a [`TraceFilter`].
    pub const fn bit(self) -> u32 {
        self.0
    }
}

/// The set of categories a trace records.
///
/// ```
/// use gaskit::{TraceCategory, TraceFilter};
///
/// let filter = TraceFilter::NONE | TraceCategory::ABILITIES | TraceCategory::CUES;
/// assert!(filter.contains(TraceCategory::CUES));
/// assert!(!filter.contains(TraceCategory::EFFECTS));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TraceFilter(u32);

impl TraceFilter {
    /// Every category, the core's and every module's.
    pub const ALL: TraceFilter = TraceFilter(u32::MAX);
    /// Nothing: a disabled trace.
    pub const NONE: TraceFilter = TraceFilter(0);

    /// Only the given categories.
    pub fn only(categories: impl IntoIterator<Item = TraceCategory>) -> TraceFilter {
        categories
            .into_iter()
            .fold(TraceFilter::NONE, |filter, c| filter | c)
    }

    /// True when `category` is recorded.
    #[inline]
    pub const fn contains(self, category: TraceCategory) -> bool {
        self.0 & category.0 != 0
    }

    /// True when the two filters share a category.
    #[inline]
    pub const fn intersects(self, other: TraceFilter) -> bool {
        self.0 & other.0 != 0
    }

    /// This filter with `category` too (`|` in a `const`).
    pub const fn with(self, category: TraceCategory) -> TraceFilter {
        TraceFilter(self.0 | category.0)
    }

    /// This filter without `category`.
    pub const fn without(self, category: TraceCategory) -> TraceFilter {
        TraceFilter(self.0 & !category.0)
    }

    /// True when nothing is recorded.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl BitOr<TraceCategory> for TraceFilter {
    type Output = TraceFilter;
    fn bitor(self, category: TraceCategory) -> TraceFilter {
        TraceFilter(self.0 | category.0)
    }
}

impl BitOr for TraceFilter {
    type Output = TraceFilter;
    fn bitor(self, other: TraceFilter) -> TraceFilter {
        TraceFilter(self.0 | other.0)
    }
}

impl BitOr for TraceCategory {
    type Output = TraceFilter;
    fn bitor(self, other: TraceCategory) -> TraceFilter {
        TraceFilter(self.0 | other.0)
    }
}

impl BitOrAssign<TraceCategory> for TraceFilter {
    fn bitor_assign(&mut self, category: TraceCategory) {
        self.0 |= category.0;
    }
}

impl From<TraceCategory> for TraceFilter {
    fn from(category: TraceCategory) -> TraceFilter {
        TraceFilter(category.0)
    }
}

/// Why an effect was not applied.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BlockReason {
    /// The target did not meet the effect's application requirements.
    Requirements,
    /// An active effect on the target grants immunity to it.
    Immune {
        /// The effect granting immunity.
        by: EffectId,
    },
    /// The target is dead by the game's `life` rule, and the effect does
    /// not set `affects_dead`.
    Dead,
    /// The effect's `chance` roll missed.
    Chance,
}

impl BlockReason {
    /// The reason's name in traces: `requirements`, `immune`, `dead` or
    /// `chance` (an immunity's effect is written beside it).
    pub fn name(self) -> &'static str {
        match self {
            BlockReason::Requirements => "requirements",
            BlockReason::Immune { .. } => "immune",
            BlockReason::Dead => "dead",
            BlockReason::Chance => "chance",
        }
    }
}

/// Why an effect ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RemovalReason {
    /// Its duration ran out.
    Expired,
    /// Removed by handle, definition, tag or source on request.
    Removed,
    /// Removed by another effect's `remove_effects_with_tags`.
    RemovedBy(EffectId),
    /// A periodic effect whose owner died, under a `life` rule that removes them.
    OwnerDied,
}

/// What happened.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceKind {
    /// A duration or infinite effect became active (or gained a stack).
    EffectApplied {
        /// Who received it.
        target: Entity,
        /// Who applied it.
        source: Option<Entity>,
        /// Which effect.
        effect: EffectId,
        /// Stack count after application.
        stacks: u32,
        /// Its duration, `None` when infinite.
        duration: Option<SimDuration>,
    },
    /// An instant or periodic execution changed base values.
    EffectExecuted {
        /// Who received it.
        target: Entity,
        /// Who applied it.
        source: Option<Entity>,
        /// Which effect.
        effect: EffectId,
    },
    /// An application was refused.
    EffectBlocked {
        /// The intended target.
        target: Entity,
        /// Which effect.
        effect: EffectId,
        /// Why.
        reason: BlockReason,
    },
    /// An active effect ended.
    EffectRemoved {
        /// Who had it.
        target: Entity,
        /// Which effect.
        effect: EffectId,
        /// Why.
        reason: RemovalReason,
    },
    /// An active effect lost stacks without ending (one stack ran out).
    EffectStacksChanged {
        /// Who has it.
        target: Entity,
        /// Which effect.
        effect: EffectId,
        /// Stack count now.
        stacks: u32,
    },
    /// An active effect stopped (inhibited) or resumed applying.
    EffectInhibited {
        /// Who has it.
        target: Entity,
        /// Which effect.
        effect: EffectId,
        /// `true` when it stopped applying.
        inhibited: bool,
    },
    /// A current attribute value changed.
    AttributeChanged {
        /// Whose.
        entity: Entity,
        /// Which attribute.
        attribute: AttributeId,
        /// Before.
        old: f64,
        /// After.
        new: f64,
    },
    /// An effect could not be applied (a behaviour's application failed).
    EffectFailed {
        /// The intended target.
        target: Entity,
        /// Which effect.
        effect: EffectId,
        /// Why.
        error: EffectError,
    },
    /// Reactions did not settle within one operation's budget, and what
    /// was pending was dropped: an entity's reactions to its own changes
    /// past the budget of reconciles (an effect whose granted tags upset
    /// its ongoing requirements, a behaviour re-arming from its wake a
    /// wait already met), observations past one delivery's budget (an
    /// observer causing what it observes), or live captures still moving
    /// after their passes (a chain of more than eight, or a cycle; `limit`
    /// is the passes, and `entity` one moved by the last).
    ReactionLimit {
        /// The entity whose reactions were dropped, or that the last
        /// observation delivered was about.
        entity: Entity,
        /// The budget reached: reconciles, observations delivered, or
        /// live-refresh passes.
        limit: u32,
    },
    /// An ability activated.
    AbilityActivated {
        /// Who runs it.
        owner: Entity,
        /// Which ability.
        ability: AbilityId,
        /// The triggering event's target.
        target: Option<Entity>,
    },
    /// An ability refused to activate.
    AbilityFailed {
        /// Who tried.
        owner: Entity,
        /// Which ability.
        ability: AbilityId,
        /// Why.
        reason: ActivationFailure,
    },
    /// An active ability ended.
    AbilityEnded {
        /// Who ran it.
        owner: Entity,
        /// Which ability.
        ability: AbilityId,
        /// Why.
        reason: EndReason,
    },
    /// A gameplay cue fired.
    Cue {
        /// On whom.
        target: Entity,
        /// Caused by whom.
        source: Option<Entity>,
        /// The `GameplayCue.*` tag.
        cue: Tag,
        /// Execute, add or remove.
        event: CueEvent,
        /// The effect that fired it (`None` for a cue game code fired).
        effect: Option<EffectId>,
        /// How strong: the first value the effect writes (its first
        /// modifier's magnitude for all its stacks, by the stacking rule:
        /// a ×0.9 slow at three stacks is 0.7, an override does not scale;
        /// or its first execution output), or what game code passed; zero
        /// when there is none.
        magnitude: f64,
        /// The spec's own tags, with those its executions marked (a crit).
        tags: TagSet,
    },
    /// An owned tag appeared or vanished (net change of one call).
    TagChanged {
        /// Whose.
        entity: Entity,
        /// The tag (a leaf as granted, never an implicit parent).
        tag: Tag,
        /// `true` when it appeared.
        present: bool,
    },
    /// A record of a game module or of game code (see [`TraceRecord`]).
    Game(Arc<dyn TraceRecord>),
}

impl TraceKind {
    /// A game record as a trace kind.
    pub fn game(record: impl TraceRecord) -> TraceKind {
        TraceKind::Game(Arc::new(record))
    }

    /// The game record of type `R`, if this is one.
    pub fn record<R: TraceRecord>(&self) -> Option<&R> {
        match self {
            TraceKind::Game(record) => {
                let any: &dyn std::any::Any = &**record;
                any.downcast_ref()
            }
            _ => None,
        }
    }

    /// The event's name in the JSON form (`snake_case`).
    pub fn name(&self) -> &'static str {
        match self {
            TraceKind::EffectApplied { .. } => "effect_applied",
            TraceKind::EffectExecuted { .. } => "effect_executed",
            TraceKind::EffectBlocked { .. } => "effect_blocked",
            TraceKind::EffectRemoved { .. } => "effect_removed",
            TraceKind::EffectInhibited { .. } => "effect_inhibited",
            TraceKind::EffectStacksChanged { .. } => "effect_stacks_changed",
            TraceKind::EffectFailed { .. } => "effect_failed",
            TraceKind::ReactionLimit { .. } => "reaction_limit",
            TraceKind::AttributeChanged { .. } => "attribute_changed",
            TraceKind::AbilityActivated { .. } => "ability_activated",
            TraceKind::AbilityFailed { .. } => "ability_failed",
            TraceKind::AbilityEnded { .. } => "ability_ended",
            TraceKind::Cue { .. } => "cue",
            TraceKind::TagChanged { .. } => "tag_changed",
            TraceKind::Game(record) => record.kind(),
        }
    }

    /// `(subject, other)`: the entity the event happened to or was done by
    /// (the name column of the text form, `source` in JSON), and the other
    /// entity involved (`target` in JSON), if any.
    pub fn parties(&self) -> (Entity, Option<Entity>) {
        match self {
            TraceKind::EffectApplied { target, source, .. }
            | TraceKind::EffectExecuted { target, source, .. }
            | TraceKind::Cue { target, source, .. } => (*target, *source),
            TraceKind::EffectBlocked { target, .. }
            | TraceKind::EffectRemoved { target, .. }
            | TraceKind::EffectInhibited { target, .. }
            | TraceKind::EffectStacksChanged { target, .. }
            | TraceKind::EffectFailed { target, .. } => (*target, None),
            TraceKind::AttributeChanged { entity, .. }
            | TraceKind::TagChanged { entity, .. }
            | TraceKind::ReactionLimit { entity, .. } => (*entity, None),
            TraceKind::AbilityActivated { owner, target, .. } => (*owner, *target),
            TraceKind::AbilityFailed { owner, .. } | TraceKind::AbilityEnded { owner, .. } => {
                (*owner, None)
            }
            TraceKind::Game(record) => record.parties(),
        }
    }

    /// The category the event is filtered by.
    pub fn category(&self) -> TraceCategory {
        match self {
            TraceKind::EffectApplied { .. }
            | TraceKind::EffectExecuted { .. }
            | TraceKind::EffectBlocked { .. }
            | TraceKind::EffectRemoved { .. }
            | TraceKind::EffectInhibited { .. }
            | TraceKind::EffectStacksChanged { .. }
            | TraceKind::EffectFailed { .. }
            | TraceKind::ReactionLimit { .. } => TraceCategory::EFFECTS,
            TraceKind::AbilityActivated { .. }
            | TraceKind::AbilityFailed { .. }
            | TraceKind::AbilityEnded { .. } => TraceCategory::ABILITIES,
            TraceKind::AttributeChanged { .. } => TraceCategory::ATTRIBUTES,
            TraceKind::Cue { .. } => TraceCategory::CUES,
            TraceKind::TagChanged { .. } => TraceCategory::TAGS,
            TraceKind::Game(record) => record.category(),
        }
    }
}
