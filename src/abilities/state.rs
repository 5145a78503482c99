//! The per-entity ability state: granted abilities, active instances, loose
//! tags and ability blocks.

use hecs::Entity;
use serde::{Deserialize, Serialize};
use slotmap::new_key_type;

use crate::slots::Slots;
use smallvec::SmallVec;

use super::activation::Activation;
use super::def::AbilityId;
use super::event::GameplayEvent;
use super::loose::LooseTags;
use crate::attributes::AttributeId;
use crate::catalog::Catalog;
use crate::effects::EffectKey;
use crate::tags::Tag;
use crate::time::TimerKey;

new_key_type! {
    /// An active ability instance on one entity. Generation-checked: a
    /// wake-up for an ended instance finds nothing and is ignored. Like an
    /// [`EffectKey`], a key is its entity's alone: another entity's names
    /// nothing there, or one of its own instances.
    pub struct InstanceKey;
}

/// What a long-running instance is waiting for.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Wait {
    /// Nothing; the instance runs only when poked.
    Nothing,
    /// A delay (a timer is pending).
    Delay,
    /// A gameplay event whose tag matches (parent-aware).
    Event(Tag),
    /// The owner holding the tag (parent-aware; at once if it already
    /// does).
    TagAdded(Tag),
    /// The owner no longer having the tag (parent-aware; at once if it
    /// already has not).
    TagRemoved(Tag),
    /// The owner's current value of the attribute being below the
    /// threshold (at once if it already is).
    AttributeBelow(AttributeId, f64),
    /// The owner's current value of the attribute being above the
    /// threshold (at once if it already is).
    AttributeAbove(AttributeId, f64),
    /// The owner's active effect ending (at once if it already has).
    EffectRemoved(EffectKey),
}

impl Wait {
    /// Whether what it waits on is in `catalog` (a tag it knows, an
    /// attribute it holds, a threshold that is finite): a wait on anything
    /// else could never be met as meant, and a save holding it could not
    /// be restored.
    pub(crate) fn is_known(self, catalog: &Catalog) -> bool {
        match self {
            Wait::Event(t) | Wait::TagAdded(t) | Wait::TagRemoved(t) => catalog.tags().knows(t),
            Wait::AttributeBelow(a, v) | Wait::AttributeAbove(a, v) => {
                a.index() < catalog.attributes().len() && v.is_finite()
            }
            Wait::Nothing | Wait::Delay | Wait::EffectRemoved(_) => true,
        }
    }

    /// True for the waits on the owner's tags, checked whenever a tag
    /// appears or vanishes.
    pub(crate) fn on_tags(self) -> bool {
        matches!(self, Wait::TagAdded(_) | Wait::TagRemoved(_))
    }

    /// True for the waits on the owner's attributes and effects, checked
    /// whenever those change.
    pub(crate) fn on_state(self) -> bool {
        matches!(
            self,
            Wait::AttributeBelow(..) | Wait::AttributeAbove(..) | Wait::EffectRemoved(_)
        )
    }
}

/// A behaviour's state, in its serialized form, behind one thin pointer
/// (see [`Instance::state`]): the second allocation is the point, not an
/// oversight.
#[allow(clippy::box_collection)]
pub(crate) type StateText = Box<String>;

/// An active ability.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Instance {
    /// Its ability, level and activating event, in 48 bytes.
    pub activation: Activation,
    pub wait: Wait,
    pub wait_timer: Option<TimerKey>,
    /// The behaviour's own state ([`AbilityCx::state`](super::AbilityCx::state)),
    /// in its serialized form so snapshots and checksums carry it. Behind
    /// one thin pointer, not a `Box<str>` (a pointer and a length): few
    /// abilities keep state, and every entity reserves the slot of one
    /// instance, which with the word saved (and the ability, level and
    /// event kept in 48 bytes) is 88 bytes for an 80-byte instance.
    pub state: Option<StateText>,
}

impl Instance {
    /// A new instance of `ability` at `level`, activated by `event`,
    /// waiting for nothing.
    pub fn new(ability: AbilityId, level: u32, event: GameplayEvent) -> Self {
        Self {
            activation: Activation::new(ability, level, event),
            wait: Wait::Nothing,
            wait_timer: None,
            state: None,
        }
    }

    /// Its ability.
    #[inline]
    pub fn ability(&self) -> AbilityId {
        self.activation.ability()
    }

    /// The level it runs at.
    #[inline]
    pub fn level(&self) -> u32 {
        self.activation.level()
    }
}

/// An [`Instance`] as saved: the fields it always had, borrowed.
#[derive(Serialize)]
#[serde(rename = "Instance")]
struct SavedInstanceRef<'a> {
    ability: AbilityId,
    level: u32,
    event: GameplayEvent,
    wait: Wait,
    wait_timer: Option<TimerKey>,
    state: &'a Option<StateText>,
}

/// An [`Instance`] as read back.
#[derive(Deserialize)]
#[serde(rename = "Instance")]
struct SavedInstance {
    ability: AbilityId,
    level: u32,
    event: GameplayEvent,
    wait: Wait,
    wait_timer: Option<TimerKey>,
    state: Option<StateText>,
}

impl Serialize for Instance {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SavedInstanceRef {
            ability: self.ability(),
            level: self.level(),
            event: self.activation.event(),
            wait: self.wait,
            wait_timer: self.wait_timer,
            state: &self.state,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Instance {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let saved = SavedInstance::deserialize(deserializer)?;
        Ok(Self {
            activation: Activation::new(saved.ability, saved.level, saved.event),
            wait: saved.wait,
            wait_timer: saved.wait_timer,
            state: saved.state,
        })
    }
}

/// A granted ability: by game code, by active effects, or both.
///
/// Eight bytes, so the room for four that every entity keeps inline is 40
/// bytes rather than 56: whether game code granted it shares a word with
/// how many effects do. Saved as the four fields it packs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "SavedGranted", try_from = "SavedGranted")]
pub(crate) struct Granted {
    pub ability: AbilityId,
    pub level: u32,
    /// How many active, uninhibited effects grant it, in the bits below
    /// [`Granted::DIRECT`], which is set when game code granted it
    /// ([`Gas::grant_ability`](crate::Gas::grant_ability)).
    grants: u16,
}

impl Granted {
    /// The bit of `grants` that says game code granted it.
    const DIRECT: u16 = 1 << 15;
    /// The most effects counted as granting one ability at once (more
    /// are counted as this many).
    pub const MAX_BY_EFFECTS: u16 = Self::DIRECT - 1;

    /// Granted by game code or not, and by `by_effects` effects (at most
    /// [`MAX_BY_EFFECTS`](Self::MAX_BY_EFFECTS)).
    pub fn new(ability: AbilityId, level: u32, direct: bool, by_effects: u16) -> Self {
        let mut granted = Self {
            ability,
            level,
            grants: by_effects.min(Self::MAX_BY_EFFECTS),
        };
        granted.set_direct(direct);
        granted
    }

    /// Game code granted it.
    pub fn direct(self) -> bool {
        self.grants & Self::DIRECT != 0
    }

    /// How many active, uninhibited effects grant it.
    pub fn by_effects(self) -> u16 {
        self.grants & Self::MAX_BY_EFFECTS
    }

    /// Something grants it: game code or an effect.
    pub fn is_held(self) -> bool {
        self.grants != 0
    }

    /// Notes that game code granted it, or no longer does.
    pub fn set_direct(&mut self, direct: bool) {
        self.grants = if direct {
            self.grants | Self::DIRECT
        } else {
            self.grants & !Self::DIRECT
        };
    }

    /// One more effect grants it.
    pub fn add_effect(&mut self) {
        if self.by_effects() < Self::MAX_BY_EFFECTS {
            self.grants += 1;
        }
    }

    /// One effect fewer grants it.
    pub fn remove_effect(&mut self) {
        if self.by_effects() > 0 {
            self.grants -= 1;
        }
    }
}

/// A [`Granted`] as saved: the fields it always had.
#[derive(Serialize, Deserialize)]
#[serde(rename = "Granted")]
struct SavedGranted {
    ability: AbilityId,
    level: u32,
    direct: bool,
    by_effects: u16,
}

impl From<Granted> for SavedGranted {
    fn from(granted: Granted) -> Self {
        Self {
            ability: granted.ability,
            level: granted.level,
            direct: granted.direct(),
            by_effects: granted.by_effects(),
        }
    }
}

/// A saved count beyond what a grant can hold is refused, not cut short.
impl TryFrom<SavedGranted> for Granted {
    type Error = String;

    fn try_from(saved: SavedGranted) -> Result<Self, String> {
        if saved.by_effects > Self::MAX_BY_EFFECTS {
            return Err(format!(
                "ability #{} is granted by {} effects, more than the {} a grant counts",
                saved.ability.index(),
                saved.by_effects,
                Self::MAX_BY_EFFECTS
            ));
        }
        Ok(Self::new(
            saved.ability,
            saved.level,
            saved.direct,
            saved.by_effects,
        ))
    }
}

/// The instances elsewhere whose event targets an entity. Room for one
/// inline: a fighter is targeted by the one it fights (in the arena,
/// every fighter by exactly one), and every entity pays for the inline
/// room (16 bytes an entry); one targeted by more moves them to the heap
/// once and keeps that room.
pub(crate) type TargetedBy = SmallVec<[(Entity, InstanceKey); 1]>;

/// Ability instances every entity keeps room for inline: one running
/// ability (a fighter's engagement, or the walk-up before it). Every
/// entity pays for this room, and one that runs two at once moves them to
/// a block of two, and keeps that room.
pub(crate) const RESERVED_INSTANCES: usize = 1;

/// Everything the ability system keeps per entity besides effects.
#[derive(Clone, Debug, Default)]
pub(crate) struct AbilityState {
    pub granted: SmallVec<[Granted; 4]>,
    pub instances: Slots<InstanceKey, Instance, RESERVED_INSTANCES>,
    /// Tags added by game code or abilities directly, and the
    /// `block_abilities_with_tags` of the active abilities, counted.
    pub loose: LooseTags,
    /// Instances on other entities whose event targets this entity.
    pub targeted_by: TargetedBy,
}

/// The kinds of reactive wait an [`AbilityState`]'s instances may hold: a
/// superset of those they do, kept by the
/// [`AbilitySystem`](super::AbilitySystem) that owns them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReactiveWaits {
    /// A wait on a tag being added or removed.
    pub tags: bool,
    /// A wait on an attribute threshold or an effect's end.
    pub state: bool,
}

impl ReactiveWaits {
    const TAGS: u8 = 1;
    const STATE: u8 = 2;

    /// The kinds as one byte, for where the system keeps them.
    pub fn bits(self) -> u8 {
        (u8::from(self.tags) * Self::TAGS) | (u8::from(self.state) * Self::STATE)
    }

    /// The kinds [`bits`](Self::bits) gave.
    pub fn from_bits(bits: u8) -> Self {
        Self {
            tags: bits & Self::TAGS != 0,
            state: bits & Self::STATE != 0,
        }
    }

    /// Those `wait` is.
    pub fn of(wait: Wait) -> Self {
        Self {
            tags: wait.on_tags(),
            state: wait.on_state(),
        }
    }

    /// True when some wait of either kind may be held.
    #[inline]
    pub fn any(self) -> bool {
        self.tags || self.state
    }

    /// Both: what `self` or `other` may hold.
    pub fn with(self, other: Self) -> Self {
        Self {
            tags: self.tags || other.tags,
            state: self.state || other.state,
        }
    }
}

impl AbilityState {
    /// The granted entry for `ability`.
    pub fn granted(&self, ability: AbilityId) -> Option<Granted> {
        self.granted.iter().copied().find(|g| g.ability == ability)
    }

    /// The granted entry for `ability` while something holds it: not one
    /// being let go (a revoke's teardown runs before the entry goes), which
    /// may neither activate nor commit.
    pub fn held(&self, ability: AbilityId) -> Option<Granted> {
        self.granted(ability).filter(|g| g.is_held())
    }

    /// The kinds of reactive wait the instances hold, by a walk over them:
    /// what the owner's hint of them is rebuilt from on restore, and must
    /// cover (an invariant).
    pub fn reactive_waits_held(&self) -> ReactiveWaits {
        self.instances
            .values()
            .fold(ReactiveWaits::default(), |held, i| {
                held.with(ReactiveWaits::of(i.wait))
            })
    }

    /// The running instance of `ability`.
    pub fn instance_of(&self, ability: AbilityId) -> Option<InstanceKey> {
        self.instances
            .iter()
            .find(|(_, i)| i.ability() == ability)
            .map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entity reserves room for one running ability: an instance is
    /// 80 bytes, and its slot, a version beside it, 88 (the size of a
    /// version and an `Option` of it, as `slots.rs` checks).
    #[test]
    fn an_instance_slot_is_88_bytes() {
        use std::mem::size_of;
        assert_eq!(size_of::<Instance>(), 80);
        assert_eq!(size_of::<(u32, Option<Instance>)>(), 88);
    }

    /// A grant is eight bytes: whether game code granted it and how many
    /// effects do share a word, each changed without touching the other,
    /// the count held between zero and its ceiling.
    #[test]
    fn a_grant_packs_its_two_sources_in_one_word() {
        assert_eq!(std::mem::size_of::<Granted>(), 8);
        let mut granted = Granted::new(AbilityId::new(3), 2, false, 0);
        assert!(!granted.is_held());
        granted.remove_effect();
        assert_eq!((granted.direct(), granted.by_effects()), (false, 0));
        granted.add_effect();
        granted.add_effect();
        granted.set_direct(true);
        assert_eq!((granted.direct(), granted.by_effects()), (true, 2));
        granted.remove_effect();
        granted.remove_effect();
        assert!(granted.is_held() && granted.direct() && granted.by_effects() == 0);
        granted.set_direct(false);
        assert!(!granted.is_held());
        let mut crowded = Granted::new(AbilityId::new(1), 1, true, Granted::MAX_BY_EFFECTS);
        crowded.add_effect();
        assert_eq!(
            (crowded.direct(), crowded.by_effects()),
            (true, Granted::MAX_BY_EFFECTS)
        );
    }

    /// Saved as the four fields it always had, read back equal; a saved
    /// count beyond the ceiling is refused with a message naming it.
    #[test]
    fn a_grant_saves_as_its_four_fields() {
        let granted = Granted::new(AbilityId::new(4), 7, true, 3);
        let text = ron::to_string(&granted).unwrap();
        assert_eq!(text, "(ability:(4),level:7,direct:true,by_effects:3)");
        assert_eq!(ron::from_str::<Granted>(&text).unwrap(), granted);
        let error = ron::from_str::<Granted>("(ability:(4),level:7,direct:false,by_effects:40000)")
            .unwrap_err()
            .to_string();
        assert!(error.contains("granted by 40000 effects"), "{error}");
    }
}
