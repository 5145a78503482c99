//! The data form of combat content, as written in `abilities/*.ron`:
//! settings, combatant kinds, items, spells and spellbooks.
//!
//! ```ron
//! combat: (melee_range_cm: 250, ranged_range_cm: 2000, magic_range_cm: 2000),
//! kinds: [(name: "Player", move_refresh_threshold_cm: 50, max_move_refresh_hz: 4)],
//! items: [
//!     (name: "Bronze Scimitar", slot: "Item.Slot.Weapon", value: 25,
//!      attack_bonus: {"Combat.DamageType.Slash": 7, "Combat.DamageType.Stab": 2},
//!      strength: 6,
//!      weapon: (damage_type: "Combat.DamageType.Slash", swing_interval: 2.4,
//!               style_damage_types: [("Combat.Style.Controlled", "Combat.DamageType.Stab")])),
//! ],
//! spells: [(name: "Wind Strike", book: "Spellbook.Standard", max_damage: 8, cast_interval: 3.0,
//!           runes: [("Air Rune", 1), ("Mind Rune", 1)])],
//! spellbooks: [(tag: "Spellbook.Standard", name: "Standard")],
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Combat tunables (the role of `UCradlCombatSettings`). Every field has a
/// default; a content file may set any of them. Settings from later files
/// override earlier ones field by field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CombatSettingsData {
    /// Fallback engagement range for Stab/Slash/Crush (cm; default 250).
    pub melee_range_cm: Option<f64>,
    /// Fallback engagement range for Ranged (cm; default 2000).
    pub ranged_range_cm: Option<f64>,
    /// Fallback engagement range for Magic and autocast (cm; default 2000).
    pub magic_range_cm: Option<f64>,
    /// Swing interval with no weapon (s; default 2.4).
    pub unarmed_swing_interval: Option<f64>,
    /// The shortest interval between two attacks (s; default 0.1, at least
    /// 0.001): authored swing and cast intervals below it are load errors,
    /// and a swing sped up below it by AttackSpeed is held at it.
    pub min_attack_interval: Option<f64>,
    /// Damage type with no weapon (default `Combat.DamageType.Crush`).
    pub unarmed_damage_type: Option<String>,
    /// Remaining cooldown at or below which an attack is ready (s; default
    /// 0: gaskit's timers fire exactly, so any positive remainder is real).
    pub ready_epsilon: Option<f64>,
    /// Length of `Status.InCombat` (s; default 20, minimum 1).
    pub in_combat_seconds: Option<f64>,
    /// MaxHealth per Hitpoints level (default 4).
    pub max_health_per_hitpoints_level: Option<f64>,
    /// Optional MaxHealth by Hitpoints level (entry *i* is level *i + 1*);
    /// overrides the multiplier where it has an entry.
    pub max_health_curve: Option<Vec<f64>>,
    /// Items kept on death, most valuable first (default 3).
    pub death_item_retention: Option<u32>,
    /// Where the dead respawn (cm; default the origin).
    pub respawn_position: Option<(f64, f64)>,
    /// Spellbook everyone can fall back to (default `Spellbook.Standard`).
    pub default_spellbook: Option<String>,
    /// XP routing per style: `(weapon_skill, defense)` XP per damage point for
    /// melee and ranged (defaults: Aggressive (4, 0), Defensive (0, 4) for
    /// melee and (2, 2) otherwise, Controlled (2, 2)).
    pub routing: Option<XpRoutingData>,
    /// Total XP per damage point for magic, split by style as for ranged
    /// (default 2).
    pub magic_xp_per_damage: Option<f64>,
    /// Hitpoints XP per damage point dealt (default 4/3, as in OSRS).
    pub hitpoints_xp_per_damage: Option<f64>,
}

/// XP per damage point to the weapon skill and to Defense, per style.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XpRoutingData {
    /// Aggressive: `(weapon skill, defense)`.
    pub aggressive: (f64, f64),
    /// Defensive on melee.
    pub defensive_melee: (f64, f64),
    /// Defensive on ranged and magic (split).
    pub defensive_other: (f64, f64),
    /// Controlled: always split.
    pub controlled: (f64, f64),
}

/// A kind of combatant: how its body pursues and how many may attack it.
/// Tunables tune the creature, not the controller.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatKindData {
    /// Unique name.
    pub name: String,
    /// Re-issue a chase move only when the target drifted this far from the
    /// last issued destination (cm; default 50).
    #[serde(default)]
    pub move_refresh_threshold_cm: Option<f64>,
    /// ... and at most this often (default 4 Hz).
    #[serde(default)]
    pub max_move_refresh_hz: Option<f64>,
    /// How often an out-of-range engagement re-polls (s; default 0.1).
    #[serde(default)]
    pub chase_poll_seconds: Option<f64>,
    /// Most simultaneous attackers (default 3).
    #[serde(default)]
    pub max_attackers: Option<u32>,
    /// Line of sight may be lost this long before the engagement ends (s; default 1).
    #[serde(default)]
    pub line_of_sight_tolerance: Option<f64>,
}

/// An item: equipment, ammunition, runes, food.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ItemData {
    /// Unique name.
    pub name: String,
    /// The equipment slot (`Item.Slot.*`), if it can be equipped.
    #[serde(default)]
    pub slot: Option<String>,
    /// Sell value; what is kept on death is decided by it (missing = 0).
    #[serde(default)]
    pub value: Option<u32>,
    /// Attack bonus per damage type.
    #[serde(default)]
    pub attack_bonus: BTreeMap<String, i32>,
    /// Defense bonus per damage type.
    #[serde(default)]
    pub defense_bonus: BTreeMap<String, i32>,
    /// Melee strength bonus.
    #[serde(default)]
    pub strength: i32,
    /// Ranged strength bonus (ammunition usually carries it).
    #[serde(default)]
    pub ranged_strength: i32,
    /// Magic damage bonus, percent.
    #[serde(default)]
    pub magic_damage: f64,
    /// Skill levels needed to equip it: `("Skill.Combat.Melee", 40)`.
    #[serde(default)]
    pub requirements: Vec<(String, u32)>,
    /// Weapon data, for items in `Item.Slot.Weapon`.
    #[serde(default)]
    pub weapon: Option<WeaponData>,
    /// Healing when eaten.
    #[serde(default)]
    pub heals: Option<f64>,
}

/// What makes an item a weapon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeaponData {
    /// The damage type swung when no style entry applies.
    #[serde(default)]
    pub damage_type: Option<String>,
    /// Seconds between swings at `AttackSpeed` 1.
    #[serde(default)]
    pub swing_interval: Option<f64>,
    /// Engagement range in cm; 0 uses the settings fallback for the type.
    #[serde(default)]
    pub attack_range: f64,
    /// Melee per-style damage type: `("Combat.Style.Controlled", "Combat.DamageType.Stab")`.
    /// Melee weapons only, each to Stab, Slash or Crush, each style once;
    /// a ranged or magic weapon swings its one type whatever the style.
    #[serde(default)]
    pub style_damage_types: Vec<(String, String)>,
    /// The style set when the weapon is equipped.
    #[serde(default)]
    pub default_style: Option<String>,
    /// True for weapons that fire ammunition (one per swing).
    #[serde(default)]
    pub uses_ammo: bool,
}

/// A spell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpellData {
    /// Unique name.
    pub name: String,
    /// The spellbook it belongs to (`Spellbook.*`).
    pub book: String,
    /// Runes consumed per cast: `("Air Rune", 2)`, each rune once.
    #[serde(default)]
    pub runes: Vec<(String, u32)>,
    /// The least damage of a hit.
    #[serde(default)]
    pub base_damage: u32,
    /// The most damage of a hit before the magic damage bonus.
    pub max_damage: u32,
    /// Magic level needed.
    #[serde(default = "one")]
    pub required_level: u32,
    /// Seconds of `Cooldown.Combat.Attack` a cast stamps (also the autocast cadence).
    pub cast_interval: f64,
    /// Cast range in cm; 0 uses the magic fallback.
    #[serde(default)]
    pub cast_range_cm: f64,
    /// Hit cue (default `GameplayCue.Combat.Hit.Magic`).
    #[serde(default)]
    pub hit_cue: Option<String>,
}

fn one() -> u32 {
    1
}

/// A spellbook.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpellbookData {
    /// The book's identity tag (`Spellbook.*`).
    pub tag: String,
    /// Display name.
    pub name: String,
}
