//! Compiled combat content: the five damage types, styles and skills as
//! enums; settings, kinds, items, spells and spellbooks, and their lookups.
//! How the data files become these, with their validation, is in
//! `compile.rs`.

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::native::{self, CombatTags};
use super::vec2::Vec2;
use crate::names::NameTable;
use crate::tags::Tag;
use crate::time::SimDuration;

macro_rules! tag_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $native:ident,)* }) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name { $($(#[$vdoc])* $variant,)* }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// Dense index, for per-value arrays.
            pub const fn index(self) -> usize {
                self as usize
            }

            /// The gameplay tag of this value.
            pub fn tag(self, tags: &CombatTags) -> Tag {
                match self { $($name::$variant => tags[native::$native],)* }
            }

            /// The value whose tag is exactly `tag`.
            pub fn from_tag(tags: &CombatTags, tag: Tag) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.tag(tags) == tag)
            }
        }
    };
}

tag_enum! {
    /// The five first-class damage types.
    DamageType {
        /// `Combat.DamageType.Stab`.
        Stab => COMBAT_DAMAGE_TYPE_STAB,
        /// `Combat.DamageType.Slash`.
        Slash => COMBAT_DAMAGE_TYPE_SLASH,
        /// `Combat.DamageType.Crush`.
        Crush => COMBAT_DAMAGE_TYPE_CRUSH,
        /// `Combat.DamageType.Ranged`.
        Ranged => COMBAT_DAMAGE_TYPE_RANGED,
        /// `Combat.DamageType.Magic`.
        Magic => COMBAT_DAMAGE_TYPE_MAGIC,
    }
}

tag_enum! {
    /// The three combat styles.
    Style {
        /// `Combat.Style.Aggressive`: +3 to the weapon skill (the default).
        Aggressive => COMBAT_STYLE_AGGRESSIVE,
        /// `Combat.Style.Defensive`: +3 to Defense.
        Defensive => COMBAT_STYLE_DEFENSIVE,
        /// `Combat.Style.Controlled`: +1 to both.
        Controlled => COMBAT_STYLE_CONTROLLED,
    }
}

tag_enum! {
    /// The five combat skills.
    Skill {
        /// `Skill.Combat.Melee`: accuracy and strength with Stab/Slash/Crush.
        Melee => SKILL_MELEE,
        /// `Skill.Combat.Ranged`.
        Ranged => SKILL_RANGED,
        /// `Skill.Combat.Magic`.
        Magic => SKILL_MAGIC,
        /// `Skill.Combat.Defense`.
        Defense => SKILL_DEFENSE,
        /// `Skill.Combat.Hitpoints`: the health pool.
        Hitpoints => SKILL_HITPOINTS,
    }
}

impl DamageType {
    /// The engagement-range bucket and weapon skill: Stab, Slash and Crush
    /// collapse to melee.
    pub fn skill(self) -> Skill {
        match self {
            DamageType::Stab | DamageType::Slash | DamageType::Crush => Skill::Melee,
            DamageType::Ranged => Skill::Ranged,
            DamageType::Magic => Skill::Magic,
        }
    }

    /// The hit cue of this type.
    pub fn hit_cue(self, tags: &CombatTags) -> Tag {
        tags[match self {
            DamageType::Stab => native::CUE_HIT_STAB,
            DamageType::Slash => native::CUE_HIT_SLASH,
            DamageType::Crush => native::CUE_HIT_CRUSH,
            DamageType::Ranged => native::CUE_HIT_RANGED,
            DamageType::Magic => native::CUE_HIT_MAGIC,
        }]
    }
}

macro_rules! dense_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub struct $name(u16);

        impl $name {
            pub(crate) const fn new(index: usize) -> Self {
                Self(index as u16)
            }

            /// The dense index.
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

dense_id!(
    /// An item definition.
    ItemId
);
dense_id!(
    /// A spell definition.
    SpellId
);
dense_id!(
    /// A combatant kind.
    KindId
);

/// XP per damage point as `(weapon skill, defense)`.
pub type XpSplit = (f64, f64);

/// Compiled combat settings.
#[derive(Clone, Debug, PartialEq)]
pub struct CombatSettings {
    /// Melee fallback range (cm).
    pub melee_range_cm: f64,
    /// Ranged fallback range (cm).
    pub ranged_range_cm: f64,
    /// Magic fallback range (cm).
    pub magic_range_cm: f64,
    /// Swing interval with no weapon.
    pub unarmed_swing_interval: SimDuration,
    /// The shortest interval between two attacks: authored intervals below
    /// it are load errors, computed ones are raised to it.
    pub min_attack_interval: SimDuration,
    /// Damage type with no weapon.
    pub unarmed_damage_type: DamageType,
    /// Remaining cooldown that counts as ready. Zero by default, and
    /// sound at zero: the clock counts whole microseconds and a wait wakes
    /// at its exact instant, so a poll woken for the cooldown's end reads
    /// exactly nothing left. A game that wakes the loop by a clock of its
    /// own, which may run early, sizes it to that clock's jitter.
    pub ready_epsilon: SimDuration,
    /// Length of `Status.InCombat`.
    pub in_combat: SimDuration,
    /// MaxHealth per Hitpoints level.
    pub max_health_per_hitpoints_level: f64,
    /// MaxHealth by Hitpoints level, overriding the multiplier where present.
    pub max_health_curve: Vec<f64>,
    /// Items kept on death.
    pub death_item_retention: u32,
    /// Respawn position.
    pub respawn_position: Vec2,
    /// The fallback spellbook.
    pub default_spellbook: Tag,
    /// Aggressive routing.
    pub routing_aggressive: XpSplit,
    /// Defensive routing on melee.
    pub routing_defensive_melee: XpSplit,
    /// Defensive routing on ranged and magic.
    pub routing_defensive_other: XpSplit,
    /// Controlled routing.
    pub routing_controlled: XpSplit,
    /// Total magic XP per damage point.
    pub magic_xp_per_damage: f64,
    /// Hitpoints XP per damage point.
    pub hitpoints_xp_per_damage: f64,
}

impl CombatSettings {
    /// True when an attack cooldown with `remaining` left counts as ready
    /// (`ready_epsilon` or less).
    pub fn is_ready(&self, remaining: SimDuration) -> bool {
        remaining <= self.ready_epsilon
    }
}

/// A compiled combatant kind.
#[derive(Clone, Debug, PartialEq)]
pub struct CombatKind {
    /// Unique name.
    pub name: String,
    /// Drift needed before a chase re-issue (cm).
    pub move_refresh_threshold_cm: f64,
    /// Least time between chase re-issues.
    pub min_move_refresh_interval: SimDuration,
    /// Out-of-range re-poll interval.
    pub chase_poll_interval: SimDuration,
    /// Most simultaneous attackers.
    pub max_attackers: u32,
    /// How long line of sight may be lost before the engagement ends.
    pub line_of_sight_tolerance: SimDuration,
}

/// Compiled weapon data.
#[derive(Clone, Debug, PartialEq)]
pub struct WeaponDef {
    /// Default damage type.
    pub damage_type: DamageType,
    /// Swing interval at `AttackSpeed` 1.
    pub swing_interval: SimDuration,
    /// Authored range (cm); 0 uses the settings fallback.
    pub attack_range_cm: f64,
    /// Per-style damage types.
    pub style_damage_types: SmallVec<[(Style, DamageType); 3]>,
    /// The style set on equip.
    pub default_style: Option<Style>,
    /// Fires ammunition.
    pub uses_ammo: bool,
}

impl WeaponDef {
    /// The damage type a swing in `style` uses: the style's entry, else the
    /// weapon's single type.
    pub fn damage_type_for(&self, style: Style) -> DamageType {
        self.style_damage_types
            .iter()
            .find(|(s, _)| *s == style)
            .map_or(self.damage_type, |(_, t)| *t)
    }
}

/// A compiled item.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemDef {
    /// Unique name.
    pub name: String,
    /// Equipment slot.
    pub slot: Option<Tag>,
    /// Value (0 when missing).
    pub value: u32,
    /// Attack bonus by damage type.
    pub attack_bonus: [i32; 5],
    /// Defense bonus by damage type.
    pub defense_bonus: [i32; 5],
    /// Melee strength bonus.
    pub strength: i32,
    /// Ranged strength bonus.
    pub ranged_strength: i32,
    /// Magic damage bonus (percent).
    pub magic_damage: f64,
    /// Skill levels needed to equip.
    pub requirements: SmallVec<[(Skill, u32); 2]>,
    /// Weapon data.
    pub weapon: Option<WeaponDef>,
    /// Healing when eaten.
    pub heals: Option<f64>,
}

impl ItemDef {
    /// The first of its skill requirements `skills` fall short of, with the
    /// level it asks: what keeps it from being worn.
    pub fn unmet_requirement(&self, skills: &super::Skills) -> Option<(Skill, u32)> {
        self.requirements
            .iter()
            .copied()
            .find(|&(skill, level)| skills.level(skill) < level)
    }
}

/// A compiled spell.
#[derive(Clone, Debug, PartialEq)]
pub struct SpellDef {
    /// Unique name.
    pub name: String,
    /// Its book.
    pub book: Tag,
    /// Runes per cast.
    pub runes: SmallVec<[(ItemId, u32); 3]>,
    /// Least damage of a hit.
    pub base_damage: u32,
    /// Most damage before the magic bonus.
    pub max_damage: u32,
    /// Magic level needed.
    pub required_level: u32,
    /// Attack cooldown per cast, and the autocast cadence.
    pub cast_interval: SimDuration,
    /// Authored range (cm); 0 uses the magic fallback.
    pub cast_range_cm: f64,
    /// Hit cue.
    pub hit_cue: Tag,
}

/// A compiled spellbook.
#[derive(Clone, Debug, PartialEq)]
pub struct SpellbookDef {
    /// Identity tag.
    pub tag: Tag,
    /// Display name.
    pub name: String,
}

/// All combat content: the combat layer's
/// [`ContentSection`](crate::catalog::ContentSection) of the content files
/// (keys `combat`, `kinds`, `items`, `spells`, `spellbooks`), and its tag
/// table.
#[derive(Clone, Debug)]
pub struct CombatDefs {
    /// The tags combat relies on, resolved.
    pub tags: CombatTags,
    /// Settings.
    pub settings: CombatSettings,
    pub(super) kinds: Vec<CombatKind>,
    pub(super) kind_names: NameTable,
    pub(super) items: Vec<ItemDef>,
    pub(super) item_names: NameTable,
    pub(super) spells: Vec<SpellDef>,
    pub(super) spell_names: NameTable,
    pub(super) spellbooks: Vec<SpellbookDef>,
}

impl CombatDefs {
    /// A combatant kind by name (load time).
    pub fn kind_named(&self, name: &str) -> Option<KindId> {
        self.kind_names.get(name).map(KindId::new)
    }

    /// The kind `id`.
    pub fn kind(&self, id: KindId) -> &CombatKind {
        &self.kinds[id.index()]
    }

    /// Every kind id (`Default` first).
    pub fn kind_ids(&self) -> impl ExactSizeIterator<Item = KindId> {
        (0..self.kinds.len()).map(KindId::new)
    }

    /// The kind used when a combatant names none (`Default`, always present).
    pub fn default_kind(&self) -> KindId {
        KindId::new(0)
    }

    /// An item by name (load time).
    pub fn item_named(&self, name: &str) -> Option<ItemId> {
        self.item_names.get(name).map(ItemId::new)
    }

    /// The item `id`, if in this catalog.
    pub fn item(&self, id: ItemId) -> Option<&ItemDef> {
        self.items.get(id.index())
    }

    /// The item whose id is `raw` (an event's object id), if any.
    pub fn item_from_raw(&self, raw: u32) -> Option<ItemId> {
        ((raw as usize) < self.items.len()).then(|| ItemId::new(raw as usize))
    }

    /// Every item id.
    pub fn item_ids(&self) -> impl ExactSizeIterator<Item = ItemId> {
        (0..self.items.len()).map(ItemId::new)
    }

    /// A spell by name (load time).
    pub fn spell_named(&self, name: &str) -> Option<SpellId> {
        self.spell_names.get(name).map(SpellId::new)
    }

    /// The spell `id`, if in this catalog.
    pub fn spell(&self, id: SpellId) -> Option<&SpellDef> {
        self.spells.get(id.index())
    }

    /// Every spell id.
    pub fn spell_ids(&self) -> impl ExactSizeIterator<Item = SpellId> {
        (0..self.spells.len()).map(SpellId::new)
    }

    /// The spell whose id is `raw` (an event's object id), if any.
    pub fn spell_from_raw(&self, raw: u32) -> Option<SpellId> {
        ((raw as usize) < self.spells.len()).then(|| SpellId::new(raw as usize))
    }

    /// True when `book` is a known spellbook.
    pub fn is_known_book(&self, book: Tag) -> bool {
        self.spellbooks.iter().any(|b| b.tag == book)
    }

    /// Every spellbook.
    pub fn spellbooks(&self) -> &[SpellbookDef] {
        &self.spellbooks
    }
}
