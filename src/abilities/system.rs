//! [`AbilitySystem`]: the per-entity component (the role of Unreal's
//! `UAbilitySystemComponent`).

use std::borrow::Cow;

use hecs::Entity;
use serde::{Deserialize, Serialize};

use super::def::AbilityId;
use super::state::{AbilityState, InstanceKey, ReactiveWaits, Wait};
use crate::attributes::{AttributeId, Attributes};
use crate::effects::{EffectDefs, EffectHost, EffectId};
use crate::tags::{Tag, TagCounts, TagSet};
use crate::time::SimTime;

/// Everything gaskit keeps on one entity: attribute values, owned tags,
/// active effects, granted abilities, active ability instances and loose tags. Spawn it with the entity
/// ([`Gas::new_ability_system`](crate::Gas::new_ability_system)); change it
/// only through the context ([`Gas`](crate::Gas)), which runs the rules.
#[derive(Clone, Debug, Serialize, Deserialize)]
// Laid out as declared: the host (whose own layout puts what an
// application or a tag read touches first), then the abilities (the
// instance slots' header first). At scale a system is cold when a timer
// reaches it and each line read is a miss: cache-simulated, the order
// takes the misses of an attack from 37.9 to 35.8. Aligning the system to
// a cache line took them to 34.0 but ran 6 % slower in wall time at
// 100 000 fighters on the build machine (measured twice), and, at 704
// bytes where it added none, 1.26 times this layout's time at a million
// fighters after warm-up (one sitting of alternated runs, thirty-third
// round); the cause is not established, so it is not aligned. The
// system's own bookkeeping (whether the reconcile queue holds it, which
// kinds of reactive wait its instances may hold) lives in two bytes the
// host lends it, beside the host's reconcile notes, which every change
// writes anyway. The saved form is the host's and the abilities', in
// that order; the bookkeeping is not saved.
#[repr(C)]
pub struct AbilitySystem {
    pub(crate) host: EffectHost,
    pub(crate) abilities: AbilityState,
}

impl AbilitySystem {
    pub(crate) fn new(attributes: Attributes) -> Self {
        Self {
            host: EffectHost::new(attributes),
            abilities: AbilityState::default(),
        }
    }

    /// Already waiting in the context's reconcile queue.
    #[inline]
    pub(crate) fn queued(&self) -> bool {
        self.host.lent_to_owner[0] != 0
    }

    pub(crate) fn set_queued(&mut self, queued: bool) {
        self.host.lent_to_owner[0] = u8::from(queued);
    }

    /// Which kinds of reactive wait the instances may hold: set whenever
    /// one is set, cleared by the walk that finds none. Every change to
    /// the owner's tags, attributes or effects asks whether something
    /// waits on it; a fighter's instance waits only on delays, and this
    /// answers for it without a walk over the instances. Derived: not
    /// saved, rebuilt on restore.
    #[inline]
    pub(crate) fn reactive_waits(&self) -> ReactiveWaits {
        ReactiveWaits::from_bits(self.host.lent_to_owner[1])
    }

    pub(crate) fn set_reactive_waits(&mut self, waits: ReactiveWaits) {
        self.host.lent_to_owner[1] = waits.bits();
    }

    /// True when some instance waits for a tag to be added or removed.
    pub(crate) fn waits_on_tags(&mut self) -> bool {
        self.waits_on(|waits| waits.tags)
    }

    /// True when some instance waits on an attribute or an effect.
    pub(crate) fn waits_on_state(&mut self) -> bool {
        self.waits_on(|waits| waits.state)
    }

    /// True when some instance holds a wait of the kind `kind` picks out.
    /// Walks the instances only when the hint says one may (and then
    /// brings the hint down to what they hold).
    fn waits_on(&mut self, kind: fn(ReactiveWaits) -> bool) -> bool {
        if !kind(self.reactive_waits()) {
            return false;
        }
        let held = self.abilities.reactive_waits_held();
        self.set_reactive_waits(held);
        kind(held)
    }

    /// Rebuilds what a save does not keep because it follows from the
    /// rest (the listening-effect index, the reactive-waits hint), after a
    /// restore; `queued` says whether the restored context's reconcile
    /// queue holds the system.
    pub(crate) fn rebuild_derived(&mut self, defs: &EffectDefs, queued: bool) {
        self.set_queued(queued);
        self.host.reindex(defs);
        self.set_reactive_waits(self.abilities.reactive_waits_held());
    }

    /// Notes that an instance now waits on `wait`.
    pub(crate) fn note_wait(&mut self, wait: Wait) {
        self.set_reactive_waits(self.reactive_waits().with(ReactiveWaits::of(wait)));
    }

    /// Attribute values.
    pub fn attributes(&self) -> &Attributes {
        &self.host.attributes
    }

    /// Current value of one attribute.
    pub fn current(&self, attribute: AttributeId) -> f64 {
        self.host.attributes.current(attribute)
    }

    /// Owned tags at `now` with their reference counts (effect-granted,
    /// loose and ability-owned). Borrowed unless an effect that [ended
    /// lazily](crate::EffectDef::ends_lazily) still holds its tags; see [`EffectHost::tags`].
    pub fn tags(&self, defs: &EffectDefs, now: SimTime) -> Cow<'_, TagCounts> {
        self.host.tags(defs, now)
    }

    /// Parent-aware: the entity owns `tag` or a descendant of it at `now`.
    pub fn has_tag(&self, defs: &EffectDefs, now: SimTime, tag: Tag) -> bool {
        self.host.has_tag(defs, now, tag)
    }

    /// The entity owns exactly `tag` at `now`.
    pub fn has_exact_tag(&self, defs: &EffectDefs, now: SimTime, tag: Tag) -> bool {
        self.host.has_exact_tag(defs, now, tag)
    }

    /// Active effects.
    pub fn effects(&self) -> &EffectHost {
        &self.host
    }

    /// The stacks of `effect` the entity holds at `now`, over all its
    /// active instances of it (per-source stacking keeps one per source);
    /// zero when it has none.
    pub fn stack_count(&self, effect: EffectId, now: SimTime) -> u32 {
        self.host
            .effects
            .values()
            .filter(|e| e.def == effect && !e.has_ended(now))
            .map(|e| u32::from(e.stacks))
            .sum()
    }

    /// True when `ability` is granted.
    pub fn has_ability(&self, ability: AbilityId) -> bool {
        self.abilities.granted(ability).is_some()
    }

    /// The granted abilities with their levels, in grant order.
    pub fn granted_abilities(&self) -> impl Iterator<Item = (AbilityId, u32)> + '_ {
        self.abilities.granted.iter().map(|g| (g.ability, g.level))
    }

    /// The running instance of `ability`, if active.
    pub fn active_instance(&self, ability: AbilityId) -> Option<InstanceKey> {
        self.abilities.instance_of(ability)
    }

    /// Every active instance with its ability, in a deterministic order.
    pub fn active_abilities(&self) -> impl Iterator<Item = (InstanceKey, AbilityId)> + '_ {
        self.abilities
            .instances
            .iter()
            .map(|(k, i)| (k, i.ability()))
    }

    /// The running instances elsewhere that target this entity (their
    /// owner and instance): who is channelling at it, who attacks it.
    /// Entries of owners despawned outside the context may linger until
    /// swept.
    pub fn targeted_by(&self) -> impl Iterator<Item = (Entity, InstanceKey)> + '_ {
        self.abilities.targeted_by.iter().copied()
    }

    /// The event that activated an active instance.
    pub fn instance_event(&self, instance: InstanceKey) -> Option<super::GameplayEvent> {
        self.abilities
            .instances
            .get(instance)
            .map(|i| i.activation.event())
    }

    /// An active instance's own state
    /// ([`AbilityCx::state`](super::AbilityCx::state)), for debugging and
    /// UI: `None` when the instance has ended or holds no state of type `T`.
    pub fn instance_state<T: super::InstanceState>(&self, instance: InstanceKey) -> Option<T> {
        let text = self.abilities.instances.get(instance)?.state.as_deref()?;
        ron::from_str(text).ok()
    }

    /// What an active instance waits for (during a wake-up by its delay,
    /// still that delay: see [`AbilityBehaviour::wake`](super::AbilityBehaviour::wake)).
    pub fn waiting_for(&self, instance: InstanceKey) -> Option<super::Wait> {
        self.abilities.instances.get(instance).map(|i| i.wait)
    }

    /// Loose tags (added directly, not by effects), with counts.
    /// Borrowed, but for an entity holding one kind of loose tag, which
    /// keeps it in place and hands out counts made for the call (inline:
    /// no allocation).
    pub fn loose_tags(&self) -> Cow<'_, TagCounts> {
        self.abilities.loose.counts()
    }

    /// The loose tags that belong in a saved game (made for the call, as
    /// [`loose_tags`](Self::loose_tags) are, for one kind).
    pub fn saved_loose_tags(&self) -> Cow<'_, TagSet> {
        self.abilities.loose.saved()
    }
}

#[cfg(test)]
mod tests {
    use std::mem::{offset_of, size_of};

    use super::*;

    /// Where what an attack reads lies: the host's hot fields (its three
    /// effect slots, inline, then the first lazy end, owned tags, the
    /// pointer to what few hosts need, reconcile notes and flags, with the
    /// system's own bookkeeping in the same line) in the first six lines,
    /// the attribute values after them, then the ability state with its
    /// instance slot, inline too.
    #[test]
    fn an_ability_system_keeps_what_an_attack_reads_together() {
        let host = offset_of!(AbilitySystem, host);
        let effects = host + offset_of!(EffectHost, effects);
        assert_eq!(effects, 0, "the effect slots come first");
        let aside = host + offset_of!(EffectHost, aside);
        let notes = host + offset_of!(EffectHost, notes);
        assert!(aside < notes, "{aside}");
        assert!(notes + size_of::<crate::tags::TagNotes>() <= 384, "{notes}");
        let lent = host + offset_of!(EffectHost, lent_to_owner);
        let notes_end = notes + size_of::<crate::tags::TagNotes>();
        assert_eq!(
            lent / 64,
            (notes_end - 1) / 64,
            "the bookkeeping beside the notes"
        );
        let hot_host_end = host + offset_of!(EffectHost, attributes);
        assert!(hot_host_end <= 384, "{hot_host_end}");
        assert_eq!(
            offset_of!(AbilitySystem, abilities),
            hot_host_end + size_of::<Attributes>(),
            "the abilities follow the attributes"
        );
        assert_eq!(size_of::<AbilitySystem>(), 608);
    }
}
