//! Engagement range: one resolver every range gate calls.
//!
//! A weapon's authored `attack_range` wins; 0 falls back to the setting for
//! its damage type (Stab, Slash and Crush collapse to melee). An autocast
//! spell's `cast_range_cm` wins when set, else the magic fallback.

use super::defs::{CombatSettings, DamageType, SpellDef, WeaponDef};

/// The engagement range (cm) of `weapon` swinging `damage_type`, or of bare
/// hands when there is no weapon.
pub fn resolve_engagement_range(
    settings: &CombatSettings,
    weapon: Option<&WeaponDef>,
    damage_type: DamageType,
) -> f64 {
    if let Some(range) = weapon.map(|w| w.attack_range_cm).filter(|r| *r > 0.0) {
        return range;
    }
    fallback_range(settings, damage_type)
}

/// The per-damage-type fallback.
pub fn fallback_range(settings: &CombatSettings, damage_type: DamageType) -> f64 {
    match damage_type {
        DamageType::Stab | DamageType::Slash | DamageType::Crush => settings.melee_range_cm,
        DamageType::Ranged => settings.ranged_range_cm,
        DamageType::Magic => settings.magic_range_cm,
    }
}

/// The range (cm) of `spell`.
pub fn resolve_spell_range(settings: &CombatSettings, spell: &SpellDef) -> f64 {
    if spell.cast_range_cm > 0.0 {
        spell.cast_range_cm
    } else {
        settings.magic_range_cm
    }
}
