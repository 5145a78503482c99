//! [`EffectHost`]: the part of an entity that effects act on (attributes,
//! owned tags, active effects), its reads and its owned-tag bookkeeping.
//! The rules that run on it have a file each: application (`apply.rs`),
//! refusal (`refusal.rs`), evaluation (`evaluate.rs`), stacking
//! (`stacking.rs`), executions (`execution.rs`), expiry and periods
//! (`timed.rs`), lazy ends (`lazy.rs`), what keeps an effect going
//! (`ongoing.rs`) and removal (`removal.rs`).

use crate::slots::{Embedded, Slots};
use hecs::Entity;
use serde::{Deserialize, Serialize};
use slotmap::Key;

use super::active::{ActiveEffect, EffectKey};
use super::aside::HostAside;
use super::cx::TagLog;
use super::def::{EffectDefs, EffectId};
use super::execution::Execution;
use crate::attributes::{AttributeChanges, AttributeSchema, Attributes};
use crate::tags::{NotHeld, Tag, TagCounts, TagNotes, TagSet};
use crate::time::{SimDuration, SimTime, TimerKey};
use crate::trace::{BlockReason, Trace, TraceCategory, TraceKind};

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
/// [`EffectCx::instant`](super::cx::EffectCx::instant) instead of coming back through every caller. An
/// execution is some 170 bytes, and each hand-over by value was a copy:
/// five on the way from the host to the observers, a twentieth of an
/// attack's time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Applied {
    /// An instant effect executed (its execution is in
    /// [`EffectCx::instant`](super::cx::EffectCx::instant)).
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
/// the pointer to what few hosts need, the reconcile notes), then the
/// attribute values, which only an effect that moves them reaches. At
/// scale a host is cold when a timer reaches it, and each line read is a
/// miss. Saved in another order, the one it always had (see
/// `saved_host.rs`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct EffectHost {
    pub(crate) effects: EffectSlots,
    /// No lazily ending effect ends before this instant (see `lazy.rs`):
    /// reads before it need not look for ended ones, and a touch of the
    /// host before it has none to clear. Derived, so not saved.
    pub(crate) lazy_due: SimTime,
    pub(crate) tags: TagCounts,
    /// What few hosts need, made at the first of it: the active effects
    /// whose definitions [listen](super::def::EffectDef::listens) to
    /// their host, in slot order (the order a scan of `effects` would meet
    /// them: the immunity check, inhibition and live captures look only
    /// there, so a host's many plain effects, a cooldown applied every
    /// frame, cost them nothing; derived, so not saved); the pending
    /// expiry timers of its effects that end on one (saved with each
    /// effect); and the lazily ending effects in end order, for a host
    /// that holds many effects (see `lazy.rs`; derived, so not saved).
    pub(crate) aside: HostAside,
    /// Tags that became present or absent since the last reconcile.
    pub(crate) notes: TagNotes,
    /// Attribute values changed since the last reconcile.
    pub(crate) attributes_changed: bool,
    /// An active effect ended since the last reconcile.
    pub(crate) effect_ended: bool,
    /// Two bytes the host's layout leaves free before `lazy_first_slot`,
    /// lent to its owner: the [`AbilitySystem`](crate::AbilitySystem)
    /// keeps its bookkeeping here (whether the reconcile queue holds it,
    /// and its hint of its instances' reactive waits) rather than in a
    /// word of its own, eight bytes in every entity. The host never reads
    /// them, and they are not saved (the owner rebuilds them).
    pub(crate) lent_to_owner: [u8; 2],
    /// Where the first lazy end of a host that keeps an [index of
    /// them](super::lazy::LazyIndex) most likely lies: the slot an application about
    /// to clear it will read, asked for before the index says which
    /// (see `lazy.rs`). A hint: it may be stale, and nothing else reads
    /// it. In the padding before the next field, so it costs no room.
    pub(crate) lazy_first_slot: u32,
    pub(crate) attributes: Attributes,
}

/// A host's effects: each keeps its slot's version itself, so a slot is
/// 64 bytes, not 72.
pub(crate) type EffectSlots =
    Slots<EffectKey, ActiveEffect, RESERVED_EFFECTS, Embedded<ActiveEffect>>;

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
            aside: HostAside::default(),
            notes: TagNotes::default(),
            attributes_changed: false,
            effect_ended: false,
            lent_to_owner: [0; 2],
            lazy_first_slot: u32::MAX,
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
        self.aside.expiry().get(key).map(|expiry| expiry.timer)
    }

    /// The entity's attribute values.
    pub fn attributes(&self) -> &Attributes {
        &self.attributes
    }

    /// The active effect `key` at `now`: `None` once it has ended, even
    /// one that [ended lazily](super::def::EffectDef::ends_lazily) and still holds its
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
        self.live(key, now).map(|e| (e.def, u32::from(e.stacks)))
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
}

/// The slot an effect key names (its position in a scan of the host's
/// effects).
pub(super) fn slot_of(key: EffectKey) -> u32 {
    // The low half of a slot-map key is its slot index.
    key.data().as_ffi() as u32
}
